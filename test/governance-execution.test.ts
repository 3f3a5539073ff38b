import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { refusalOf } from '../runtime/services/governance/fetch.js';
import { setAt } from './helpers/generated.js';
import { governanceSet } from './helpers/governance-set.js';
import { tempDir } from './helpers/temp.js';
import { expectWarnings } from './helpers/warnings.js';

expectWarnings(/the online execution check failed/);

/**
 * The online execution check (services/governance/execution.ts) between two real agents on loopback: a governance
 * agent of the fixture set (it issues through agent.governance, publishes its key in its brand.json and JWKS, answers
 * check_governance) and a seller advertising `online_execution_check` for create_media_buy. The buyer's intent token
 * is verified, the seller presents it with its planned delivery over MCP with the registration's credential, and
 * commits only on `approved`, whose execution token it verifies in turn; `denied` and `conditions` block the commit
 * (GOVERNANCE_DENIED), an agent out of reach is GOVERNANCE_UNAVAILABLE. Then the SSRF rule, by its decisions.
 */
const set = await setAt(await governanceSet());
const { loadProfile, apiKeyAuth } = set;
const AUD = 'https://seller.test/mcp';
const CALLER = 'https://buyer.test';
const plan = { plan_id: 'p1', brand: { domain: 'buyer.test' }, objectives: 'o', budget: { total: 1000, currency: 'USD' }, flight: { start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z' } };

let mode: 'approved' | 'denied' | 'conditions' | 'wrong-audience' = 'approved';
const checks: Record<string, unknown>[] = [];
const govAgent = await loadProfile('gov-agent' as never, { mode: 'development', store: { stateDir: tempDir() } } as never);
const govServed = await govAgent.serve(
  {
    check_governance: async (args: Record<string, unknown>, ctx: { principal?: string }) => {
      checks.push({ ...args, principal: ctx.principal });
      const intent = JSON.parse(Buffer.from(String(args.governance_context).split('.')[1]!, 'base64url').toString()) as { sub: string };
      if (mode === 'denied') return { check_id: 'chk_exec', verdict: 'denied', check_type: 'execution', explanation: 'over budget', findings: [{ category_id: 'budget_authority', severity: 'critical', explanation: 'x' }] };
      if (mode === 'conditions') return { check_id: 'chk_exec', verdict: 'conditions', check_type: 'execution', explanation: 'maybe', conditions: [{ field: 'x', reason: 'y' }] };
      const planned = args.planned_delivery as { media_buy_id: string; total_budget: number };
      const issued = await govAgent.governance!.issue({
        phase: 'purchase',
        audience: mode === 'wrong-audience' ? 'https://another-seller.test/mcp' : String(args.caller),
        caller: String(args.caller),
        checkId: 'chk_exec',
        plan,
        sub: intent.sub,
        mediaBuyId: planned.media_buy_id,
        authorizedCommitment: { amount: planned.total_budget, currency: 'USD' },
        policyDecisionHash: 'e'.repeat(64),
      });
      return { check_id: 'chk_exec', verdict: 'approved', check_type: 'execution', explanation: 'ok', governance_context: issued.token, expires_at: issued.expiresAt };
    },
  } as never,
  { port: 0, host: '127.0.0.1', authenticate: apiKeyAuth({ 'k-seller': { principal: 'seller' } }) },
);
const GOV = govServed.url.replace(/\/mcp$/, '');

let registration: { url: string; credentials: string } = { url: govServed.url, credentials: 'k-seller' };
const booked: unknown[] = [];
const seller = await loadProfile('gov-seller-online' as never, {
  mode: 'development',
  store: { stateDir: tempDir() },
  governance: {
    audience: AUD,
    buyers: { buyer: { caller: CALLER, brandJson: `${GOV}/.well-known/brand.json` } },
    registration: () => registration,
    tasks: {
      create_media_buy: {
        commitment: (args: { budget: { amount: number; currency: string } }) => args.budget,
        plannedDelivery: (args: { budget: { amount: number; currency: string } }) => ({ media_buy_id: 'mb_planned_1', total_budget: args.budget.amount, currency: args.budget.currency }),
      },
    },
  },
} as never);
const handler = (_args: unknown, ctx: { governance?: unknown }) => {
  booked.push(ctx.governance);
  return { thing: { id: 't' }, media_buy_id: 'mb_planned_1' };
};

let n = 0;
async function buy(): Promise<Record<string, unknown>> {
  const req = { idempotency_key: `idem-execution-${String(++n).padStart(6, '0')}`, account: { account_id: 'acc' }, budget: { amount: 250, currency: 'USD' } };
  const intent = await govAgent.governance!.issue({ phase: 'intent', audience: AUD, caller: CALLER, checkId: `chk_intent_${n}`, plan, authorizedTask: 'create_media_buy', authorizedPayload: req, authorizedCommitment: { amount: 250, currency: 'USD' }, policyDecisionHash: 'd'.repeat(64) });
  const result = await seller.call('create_media_buy', { ...req, governance_context: intent.token }, handler as never, { principal: 'buyer' });
  return result.structuredContent as Record<string, unknown>;
}
const code = (body: Record<string, unknown>) => (body.adcp_error as { code?: string } | undefined)?.code;

test('approved: the intent verified, check_governance called as the service with the planned delivery, the execution token verified, then the commit', async () => {
  const body = await buy();
  assert.is(body.media_buy_id, 'mb_planned_1', JSON.stringify(body));
  const check = checks.at(-1)!;
  assert.is(check.caller, AUD, 'the execution check\'s caller is the service itself');
  assert.is(check.principal, 'seller', 'authenticated with the registration\'s credential');
  assert.is(check.phase, 'purchase');
  assert.equal(check.planned_delivery, { media_buy_id: 'mb_planned_1', total_budget: 250, currency: 'USD' });
  const authorization = booked.at(-1) as { token: string; execution: { check_id: string; claims: Record<string, unknown> } };
  assert.is(check.governance_context, authorization.token, 'the buyer\'s intent token, verbatim');
  assert.is(authorization.execution.check_id, 'chk_exec');
  assert.is(authorization.execution.claims.phase, 'purchase');
  assert.is(authorization.execution.claims.media_buy_id, 'mb_planned_1');
});

test('denied, conditions, an execution token for another audience, an agent out of reach: nothing committed', async () => {
  const before = booked.length;
  mode = 'denied';
  const denied = await buy();
  assert.is(code(denied), 'GOVERNANCE_DENIED');
  assert.equal(((denied.adcp_error as { details: { findings: unknown[] } }).details.findings as { category_id: string }[])[0]!.category_id, 'budget_authority');
  mode = 'conditions';
  assert.is(code(await buy()), 'GOVERNANCE_DENIED', 'conditions cannot authorize an execution');
  mode = 'wrong-audience';
  const misbound = await buy();
  assert.is(code(misbound), 'PERMISSION_DENIED');
  assert.is((misbound.adcp_error as { details: { governance_error: string } }).details.governance_error, 'governance_token_not_applicable');
  mode = 'approved';
  registration = { url: 'http://127.0.0.1:1/mcp', credentials: 'k-seller' };
  const down = await buy();
  assert.is(code(down), 'GOVERNANCE_UNAVAILABLE');
  assert.is((down.adcp_error as { recovery: string }).recovery, 'transient');
  registration = { url: 'http://169.254.169.254/mcp', credentials: 'k-seller' };
  assert.is(code(await buy()), 'GOVERNANCE_UNAVAILABLE', 'a registration the SSRF rule refuses is never called');
  assert.is(booked.length, before);
  registration = { url: govServed.url, credentials: 'k-seller' };
});

test('the SSRF rule, by its decisions: loopback and http only in a sandbox; private, link-local and metadata never', async () => {
  const refused = async (url: string, sandbox: boolean) => (await refusalOf(url, sandbox, false)) !== undefined;
  assert.ok(await refused('http://127.0.0.1:8080/.well-known/brand.json', false));
  assert.ok(await refused('https://127.0.0.1/.well-known/jwks.json', false));
  assert.ok(await refused('https://[::1]/jwks.json', false));
  assert.not.ok(await refused('http://127.0.0.1:8080/.well-known/brand.json', true));
  for (const sandbox of [false, true]) {
    assert.ok(await refused('http://169.254.169.254/latest/meta-data', sandbox), `metadata, sandbox ${sandbox}`);
    assert.ok(await refused('https://10.0.0.7/jwks.json', sandbox), `private, sandbox ${sandbox}`);
    assert.ok(await refused('https://192.168.1.1/jwks.json', sandbox), `private, sandbox ${sandbox}`);
    assert.ok(await refused('https://user:pw@gov.example/jwks.json', sandbox), `credentials, sandbox ${sandbox}`);
    assert.ok(await refused('file:///etc/passwd', sandbox), `scheme, sandbox ${sandbox}`);
    assert.not.ok(await refused('https://gov.example/.well-known/jwks.json', sandbox), `a public https name, sandbox ${sandbox}`);
  }
  assert.ok(await refused('http://gov.example/.well-known/jwks.json', false), 'http outside a sandbox');
});

test('a production seller never fetches a loopback brand.json: governance_jwks_untrusted, decided before connecting', async () => {
  const production = await loadProfile('gov-seller' as never, {
    mode: 'production',
    store: { stateDir: tempDir() },
    governance: { audience: AUD, buyers: { buyer: { caller: CALLER, brandJson: `${GOV}/.well-known/brand.json` } }, tasks: { make_thing: { commitment: () => undefined } } },
  } as never);
  const req = { idempotency_key: 'idem-production-000001', account: { account_id: 'acc' }, budget: { amount: 1, currency: 'USD' } };
  const intent = await govAgent.governance!.issue({ phase: 'intent', audience: AUD, caller: CALLER, checkId: 'c', plan, authorizedTask: 'make_thing', authorizedPayload: req, policyDecisionHash: 'c'.repeat(64) });
  let called = false;
  const result = await production.call('make_thing', { ...req, governance_context: intent.token }, (() => ((called = true), { thing: { id: 'x' } })) as never, { principal: 'buyer' });
  const e = (result.structuredContent as { adcp_error: { code: string; details: { governance_error: string } } }).adcp_error;
  assert.is(e.code, 'PERMISSION_DENIED');
  assert.is(e.details.governance_error, 'governance_jwks_untrusted');
  assert.not.ok(called);
  await production.close();
});

test('close', async () => {
  await Promise.all([govServed.close(), seller.close()]);
});

test.run();

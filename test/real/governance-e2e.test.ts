import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { governedPayloadHash } from '../../runtime/services/governance/hash.js';
import { AUTHORIZATION_HEADER, governanceKey, signToken, type Jwk } from '../helpers/governance.js';
import { buyerSite, governanceAgentsSet, issuerOf, startExample } from '../helpers/governance-agents.js';
import { sharedReleaseKey } from '../helpers/releases.js';
import { tempDir } from '../helpers/temp.js';
import { loopbackCertificate } from '../helpers/tls.js';

/**
 * End to end with the reference agents on loopback, each a process of its own started as a deployment starts it
 * (`node examples/…` with ADCP_GENERATED, ADCP_PROFILE, ADCP_API_KEY, ADCP_STATE_DIR, PORT and ADCP_TLS_CERT_FILE /
 * ADCP_TLS_KEY_FILE: HTTPS, which sync_governance requires of a governance agent's URL): the governance agent
 * (examples/governance-agent.js) issues governance_context tokens, the reference seller (its sandbox profile
 * advertises enforcement of create_media_buy, signed_context and online_execution_check) verifies them, the buyer's
 * brand.json — naming the governance agent as its brand.json entry publishes it — served by a third server, all
 * called with the official MCP client. Approved: booked once, the execution check visible in the governance agent's
 * audit log. A token bound to another payload, task or audience, expired, replayed, or from an issuer the buyer's
 * brand.json does not list is refused and books nothing; an execution check the governance agent denies blocks the
 * commit (GOVERNANCE_DENIED).
 */
const generated = await governanceAgentsSet();
const V = sharedReleaseKey();
const BUYER = 'https://buyer.example';
const site = await buyerSite();
const keyJwk = { ...(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'gov-e2e-1' } as Jwk;

const certificate = loopbackCertificate();
const keyFile = join(tempDir(), 'key.pem');
writeFileSync(keyFile, certificate.key);
const common = { ADCP_GENERATED: generated, ADCP_MODE: 'development', ADCP_API_KEY: 'k-buyer', ADCP_TLS_CERT_FILE: certificate.certFile, ADCP_TLS_KEY_FILE: keyFile, NODE_EXTRA_CA_CERTS: certificate.certFile };
const seller = await startExample('seller-agent.js', {
  ...common,
  ADCP_PROFILE: 'guaranteed-publisher-sandbox',
  ADCP_STATE_DIR: tempDir(),
  ADCP_GOVERNANCE_BUYERS: JSON.stringify({ buyer: { caller: BUYER, brandJson: `${site.base}/.well-known/brand.json` } }),
});
const SELLER = seller.url;
const gov = await startExample('governance-agent.js', {
  ...common,
  ADCP_PROFILE: 'governance-agent-sandbox',
  ADCP_STATE_DIR: tempDir(),
  ADCP_CALLER_URL: BUYER,
  ADCP_SERVICE_KEYS: JSON.stringify({ 'k-seller-at-gov-0000000000000000000000': SELLER }),
  ADCP_GOVERNANCE_KEY: JSON.stringify(keyJwk),
});
// The test trusts the agents' loopback certificate as they trust each other's (NODE_EXTRA_CA_CERTS).
const dispatcher = new Agent({ connect: { ca: certificate.cert } });
const trusting = ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
// The buyer lists its governance agent in its own brand.json: the entry the agent publishes for its tokens' issuer
// (its other entries name its MCP and A2A URLs, whose JWKS holds its webhook-signing key).
// The agent says its issuer once it serves (after the runtime's start line, which startExample waits for).
const ISS = await issuerOf(gov);
const govBrand = (await (await trusting(new URL('/.well-known/brand.json', gov.url))).json()) as { agents: Record<string, unknown>[] };
const entry = govBrand.agents.find((a) => a.url === ISS)!;
site.documents.set('/.well-known/brand.json', { agents: [{ ...entry, id: 'buyer_governance' }] });

async function client(url: string): Promise<Client> {
  const c = new Client({ name: 'governance-e2e', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: trusting, requestInit: { headers: { authorization: 'Bearer k-buyer' } } }));
  return c;
}
const toGov = await client(gov.url);
const toSeller = await client(SELLER);
const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: { adcp_version: V, ...args } })).structuredContent as Record<string, any>;

const account = { brand: { domain: 'acme.example' }, operator: 'acme.example' };
const buy = (budget: number, key = randomUUID()) => ({
  account,
  brand: { domain: 'acme.example' },
  start_time: 'asap',
  end_time: '2099-06-30T23:59:59Z',
  packages: [{ product_id: 'run_of_site_display', pricing_option_id: 'cpm_standard', budget }],
  idempotency_key: key,
});
/** The intent check a buyer makes for exactly `payload`, addressed to `target`. */
const intent = (planId: string, payload: Record<string, unknown>, over: Record<string, unknown> = {}) =>
  call(toGov, 'check_governance', { plan_id: planId, caller: BUYER, target_agent: SELLER, tool: 'create_media_buy', purchase_type: 'media_buy', payload, ...over });
const mediaBuys = async () => ((await call(toSeller, 'get_media_buys', { account })).media_buys ?? []).length as number;
const refusal = (body: Record<string, any>) => `${body.adcp_error?.code}/${body.adcp_error?.details?.governance_error ?? ''}`;

test('set up: a plan on the governance agent, the account and its governance agent on the seller', async () => {
  const plan = { plan_id: 'plan_e2e', brand: { domain: 'acme.example' }, objectives: 'e2e', budget: { total: 10_000, currency: 'USD', reallocation_threshold: 10_000 }, flight: { start: '2020-01-01T00:00:00Z', end: '2099-12-31T23:59:59Z' } };
  const synced = await call(toGov, 'sync_plans', { idempotency_key: randomUUID(), plans: [plan] });
  assert.is(synced.plans[0].status, 'active', JSON.stringify(synced));
  const accounts = await call(toSeller, 'sync_accounts', { idempotency_key: randomUUID(), accounts: [{ ...account, billing: 'operator', payment_terms: 'net_30' }] });
  assert.ok(accounts.accounts?.[0]?.account_id, JSON.stringify(accounts));
  const registered = await call(toSeller, 'sync_governance', {
    idempotency_key: randomUUID(),
    accounts: [{ account, governance_agents: [{ url: gov.url, authentication: { schemes: ['Bearer'], credentials: 'k-seller-at-gov-0000000000000000000000' } }] }],
  });
  assert.is(registered.accounts[0].status, 'synced', JSON.stringify(registered));
  assert.not.ok(JSON.stringify(registered).includes('k-seller-at-gov'), 'the credential is write-only');
});

test('approved: the seller verifies the intent, runs the execution check, books once; the audit log shows both checks', async () => {
  const payload = buy(1_000);
  const approved = await intent('plan_e2e', payload);
  assert.is(approved.verdict, 'approved', JSON.stringify(approved));
  assert.is(approved.check_type, 'intent');
  const before = await mediaBuys();
  const booked = await call(toSeller, 'create_media_buy', { ...payload, governance_context: approved.governance_context });
  assert.ok(typeof booked.media_buy_id === 'string', JSON.stringify(booked));
  assert.is(await mediaBuys(), before + 1);
  const logs = await call(toGov, 'get_plan_audit_logs', { plan_ids: ['plan_e2e'], include_entries: true });
  const checks = logs.plans[0].entries.filter((e: { type: string }) => e.type === 'check');
  assert.equal(checks.slice(-2).map((e: { check_type: string; verdict: string }) => `${e.check_type}:${e.verdict}`), ['intent:approved', 'execution:approved']);
  assert.is(checks.at(-1).caller, SELLER, 'the execution check came from the seller, authenticated by its registered credential');
  const outcome = await call(toGov, 'report_plan_outcome', { idempotency_key: randomUUID(), plan_id: 'plan_e2e', check_id: approved.check_id, governance_context: approved.governance_context, purchase_type: 'media_buy', outcome: 'completed', seller_response: { seller_reference: booked.media_buy_id, committed_budget: 1_000 } });
  assert.is(outcome.outcome_state, 'accepted', JSON.stringify(outcome));
});

test('bound to another payload, task or audience: refused, nothing booked', async () => {
  const before = await mediaBuys();
  const payload = buy(500);
  const ok = await intent('plan_e2e', payload);
  assert.is(refusal(await call(toSeller, 'create_media_buy', { ...payload, packages: [{ ...payload.packages[0]!, budget: 5_000 }], governance_context: ok.governance_context })), 'PERMISSION_DENIED/governance_token_not_applicable');
  const otherTask = await intent('plan_e2e', payload, { tool: 'update_media_buy', proposed_commitment: { amount: 500, currency: 'USD' } });
  assert.is(refusal(await call(toSeller, 'create_media_buy', { ...payload, governance_context: otherTask.governance_context })), 'PERMISSION_DENIED/governance_token_not_applicable');
  const elsewhere = await intent('plan_e2e', payload, { target_agent: 'https://other-seller.example/mcp' });
  assert.is(refusal(await call(toSeller, 'create_media_buy', { ...payload, governance_context: elsewhere.governance_context })), 'PERMISSION_DENIED/governance_token_not_applicable');
  assert.is(await mediaBuys(), before);
});

test('expired, replayed, or from an issuer the buyer\'s brand.json does not list: refused, nothing booked', async () => {
  const before = await mediaBuys();
  const now = Math.floor(Date.now() / 1000);
  const claims = (payload: Record<string, unknown>, over: Record<string, unknown>) => ({
    iss: ISS, sub: `gb_${randomUUID()}`, plan_hash: 'oR0jFDEtzcwgPbNf-Ofd_fZHYfAyD1TRbzGOFBVCG-c', aud: SELLER, iat: now, exp: now + 600, jti: randomUUID(), phase: 'intent', caller: BUYER, check_id: 'chk_crafted',
    authorized_commitment: { amount: 100_000, currency: 'USD' }, authorized_task: 'create_media_buy', authorized_payload_hash: governedPayloadHash(payload), policy_decision_hash: 'a'.repeat(64), ...over,
  });
  const header = { alg: 'EdDSA', kid: 'gov-e2e-1', ...AUTHORIZATION_HEADER };
  const expired = buy(100);
  assert.is(refusal(await call(toSeller, 'create_media_buy', { ...expired, governance_context: await signToken(header, claims(expired, { iat: now - 3600, exp: now - 1800 }), keyJwk) })), 'PERMISSION_DENIED/governance_token_expired');
  // The issuer's own key, reusing the jti of a token the seller accepted for another request.
  const first = buy(100);
  const approved = await intent('plan_e2e', first);
  assert.ok(typeof (await call(toSeller, 'create_media_buy', { ...first, governance_context: approved.governance_context })).media_buy_id === 'string');
  const jti = JSON.parse(Buffer.from(String(approved.governance_context).split('.')[1]!, 'base64url').toString()).jti;
  const second = buy(100);
  assert.is(refusal(await call(toSeller, 'create_media_buy', { ...second, governance_context: await signToken(header, claims(second, { jti }), keyJwk) })), 'PERMISSION_DENIED/governance_token_replayed');
  const rogue = governanceKey('rogue-1');
  const third = buy(100);
  assert.is(refusal(await call(toSeller, 'create_media_buy', { ...third, governance_context: await signToken({ ...header, kid: 'rogue-1' }, claims(third, { iss: 'https://rogue-governance.example/governance' }), rogue.privateJwk) })), 'PERMISSION_DENIED/governance_issuer_not_authorized');
  assert.is(await mediaBuys(), before + 1, 'only the legitimate buy');
});

test('no token on an account with a governance agent: refused; an execution check the agent denies: GOVERNANCE_DENIED', async () => {
  const before = await mediaBuys();
  assert.is(refusal(await call(toSeller, 'create_media_buy', buy(100))), 'PERMISSION_DENIED/');
  // Two intents within the plan, then the first's outcome commits most of it: the second's execution check is denied.
  const plan = { plan_id: 'plan_tight', brand: { domain: 'acme.example' }, objectives: 'tight', budget: { total: 1_000, currency: 'USD', reallocation_threshold: 1_000 }, flight: { start: '2020-01-01T00:00:00Z', end: '2099-12-31T23:59:59Z' } };
  await call(toGov, 'sync_plans', { idempotency_key: randomUUID(), plans: [plan] });
  const [a, b] = [buy(700), buy(700)];
  const [ia, ib] = [await intent('plan_tight', a), await intent('plan_tight', b)];
  assert.is(ib.verdict, 'approved');
  const booked = await call(toSeller, 'create_media_buy', { ...a, governance_context: ia.governance_context });
  await call(toGov, 'report_plan_outcome', { idempotency_key: randomUUID(), plan_id: 'plan_tight', check_id: ia.check_id, governance_context: ia.governance_context, purchase_type: 'media_buy', outcome: 'completed', seller_response: { seller_reference: booked.media_buy_id } });
  const denied = await call(toSeller, 'create_media_buy', { ...b, governance_context: ib.governance_context });
  assert.is(denied.adcp_error?.code, 'GOVERNANCE_DENIED', JSON.stringify(denied));
  assert.is(await mediaBuys(), before + 1);
});

test('close', async () => {
  await Promise.all([toGov.close(), toSeller.close()]);
  await Promise.all([seller.close(), gov.close(), site.close()]);
  await dispatcher.close();
  // What the agents logged: each refusal's step and code, never a token or a key.
  const logs = seller.stderr();
  assert.match(logs, /governance_context refused at step 12: governance_token_not_applicable/);
  assert.match(logs, /governance_context refused at step 9: governance_token_expired/);
  assert.match(logs, /governance_context refused at step 15: governance_token_replayed/);
  assert.not.ok(logs.includes(String(keyJwk.d)), 'no key material in the log');
});

test.run();

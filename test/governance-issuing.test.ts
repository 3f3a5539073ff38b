import { generateKeyPairSync } from 'node:crypto';
import { flattenedVerify, importJWK } from 'jose';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyGovernanceContext } from '../runtime/services/governance/checklist.js';
import { governedPayloadHash, planHash } from '../runtime/services/governance/hash.js';
import { committedSet } from './helpers/generated.js';
import { memoryDeps } from './helpers/governance.js';
import { tempDir } from './helpers/temp.js';

/**
 * A governance agent's issuing (services/governance/issuer.ts, issue.ts, revocations.ts), on the committed set's
 * `governance-agent` profile (it serves check_governance): tokens signed with the governance key carry the profile's
 * claims and verify through the seller checklist against the JWKS the agent publishes; the key is purpose-separated
 * (its own adcp_use, kid and material) and published as the agent's other keys are — the brand.json entry of type
 * governance naming the issuer and its JWKS, the JWKS, the signed revocation list; a production agent without a key
 * does not start.
 */
const { loadProfile } = await committedSet();
const PUBLIC = 'https://gov.test';
const plan = { plan_id: 'plan_1', brand: { domain: 'acme.example' }, objectives: 'Q3', budget: { total: 50000, currency: 'USD' }, flight: { start: '2026-01-01T00:00:00Z', end: '2026-12-31T00:00:00Z' }, version: 4 };
const payload = { idempotency_key: 'idem-issuing-0000001', account: { account_id: 'acc_1' }, total_budget: { amount: 500, currency: 'USD' }, context: { trace: 'x' } };
const agentOf = (options: Record<string, unknown> = {}) => loadProfile('governance-agent', { mode: 'development', store: { stateDir: tempDir() }, publicUrl: PUBLIC, ...options } as never);
const intent = { phase: 'intent', audience: 'https://seller.test/mcp', caller: 'https://buyer.test', checkId: 'chk_1', plan, authorizedTask: 'create_media_buy', authorizedPayload: payload, authorizedCommitment: { amount: 500, currency: 'USD' }, policyDecisionHash: 'a'.repeat(64) } as const;

async function documents(agent: Awaited<ReturnType<typeof agentOf>>) {
  const read = async (path: string) => JSON.parse((await agent.wellKnown(path))!.body) as Record<string, unknown>;
  return { brand: await read('/.well-known/brand.json'), jwks: (await read('/.well-known/governance-jwks.json')) as { keys: Record<string, unknown>[] }, read };
}

test('an intent token carries the profile\'s claims and verifies through the seller checklist against the published JWKS', async () => {
  const agent = await agentOf();
  await agent.ready();
  const issued = await agent.governance!.issue({ ...intent });
  const [h, p] = issued.token.split('.') as [string, string];
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  assert.equal(claims, issued.claims);
  assert.is(header.typ, 'adcp-gov+jws');
  assert.is(header.alg, 'EdDSA');
  assert.equal(header.crit, ['authorized_commitment', 'authorized_task', 'authorized_payload_hash']);
  assert.ok(header.authorized_commitment === true && header.authorized_task === true && header.authorized_payload_hash === true);
  assert.is(claims.iss, `${PUBLIC}/governance`);
  assert.is(agent.governance!.issuer(), `${PUBLIC}/governance`);
  assert.is(claims.plan_hash, planHash(plan), 'plan_hash over the plan evaluated, bookkeeping stripped');
  assert.is(claims.authorized_payload_hash, governedPayloadHash(payload));
  assert.is((claims.exp as number) - (claims.iat as number), 900, 'intent tokens live 15 minutes');
  assert.is(issued.expiresAt, new Date((claims.exp as number) * 1000).toISOString());
  assert.match(String(claims.jti), /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.match(String(claims.sub), /^gb_/);
  assert.not.ok(String(claims.sub).includes('plan_1'), 'sub is not derived from plan_id');
  assert.not.ok('media_buy_id' in claims);
  const again = await agent.governance!.issue({ ...intent });
  assert.is.not(again.claims.jti, claims.jti, 'a fresh jti every time');
  const { jwks } = await documents(agent);
  const deps = memoryDeps({ now: claims.iat as number, issuers: { [String(claims.iss)]: jwks.keys as never } });
  const gate = { phase: 'intent' as const, audience: intent.audience, caller: intent.caller, task: 'create_media_buy', payload, commitment: { amount: 500, currency: 'USD' } };
  const verdict = await verifyGovernanceContext(issued.token, gate, deps);
  assert.ok(verdict.ok, JSON.stringify(verdict));
  await agent.close();
});

test('what a token may not be is refused at issue: an over-long or plan-less lifetime, no decision record, phase rules, 4096 characters', async () => {
  const agent = await agentOf();
  const refusal = (input: Record<string, unknown>) => agent.governance!.issue(input as never).then(() => 'issued', (e: Error) => e.message);
  assert.match(await refusal({ ...intent, lifetimeSeconds: 901 }), /lives 1 to 900 seconds/);
  assert.match(await refusal({ ...intent, policyDecisionHash: undefined }), /policyDecisions or policyDecisionHash/);
  assert.match(await refusal({ ...intent, mediaBuyId: 'mb_1' }), /must not name a media_buy_id/);
  assert.match(await refusal({ ...intent, authorizedTask: undefined, authorizedPayload: undefined }), /authorizes one task/);
  assert.match(await refusal({ ...intent, phase: 'modification', authorizedTask: undefined, authorizedPayload: undefined }), /names its media buy/);
  assert.match(await refusal({ ...intent, authorizedCommitment: { amount: -1, currency: 'USD' } }), /finite non-negative/);
  const decisions = Array.from({ length: 80 }, (_, i) => ({ policy_id: `policy_with_a_long_name_${i}`, outcome: 'pass' }));
  assert.match(await refusal({ ...intent, policyDecisionHash: undefined, policyDecisions: decisions }), /over the envelope's 4096/);
  const exec = await agent.governance!.issue({ ...intent, phase: 'purchase', authorizedTask: undefined, authorizedPayload: undefined, mediaBuyId: 'mb_1', lifetimeSeconds: 86_400 });
  assert.is(exec.claims.media_buy_id, 'mb_1');
  assert.not.ok('authorized_task' in exec.claims);
  assert.equal(JSON.parse(Buffer.from(exec.token.split('.')[0]!, 'base64url').toString()).crit, ['authorized_commitment']);
  await agent.close();
});

test('the key is published as the agent\'s other keys: brand.json\'s governance entry, its own JWKS, the signed revocation list', async () => {
  const agent = await agentOf();
  await agent.ready();
  const { brand, jwks, read } = await documents(agent);
  assert.equal(brand.agents, [{ type: 'governance', id: 'governance_agent_governance', url: `${PUBLIC}/governance`, jwks_uri: `${PUBLIC}/.well-known/governance-jwks.json` }]);
  const [key] = jwks.keys;
  assert.is(key!.adcp_use, 'governance-signing');
  assert.equal(key!.key_ops, ['verify']);
  assert.is(key!.use, 'sig');
  assert.not.ok('d' in key!, 'public members only');
  const issued = await agent.governance!.issue({ ...intent });
  await agent.governance!.revoke({ jti: String(issued.claims.jti) });
  await agent.governance!.revoke({ kid: 'gov-old-2025' });
  const list = (await read('/.well-known/governance-revocations.json')) as { payload: string; protected: string; signature: string };
  const verified = await flattenedVerify(list, await importJWK(key as never, 'EdDSA'), { algorithms: ['EdDSA'] });
  assert.is(verified.protectedHeader?.typ, 'adcp-gov-revocation+jws');
  const body = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  assert.is(body.issuer, `${PUBLIC}/governance`);
  assert.equal(body.revoked_jtis, [issued.claims.jti]);
  assert.equal(body.revoked_kids, ['gov-old-2025']);
  const minutes = (Date.parse(String(body.next_update)) - Date.parse(String(body.updated))) / 60_000;
  assert.ok(minutes > 0 && minutes <= 30, `next_update ${minutes} min ahead (at most 30)`);
  // The development key is the store's: a second instance on it signs with the same key.
  await agent.close();
});

test('purpose separation: a configured key stating another adcp_use, or the request-signing key itself, is refused', async () => {
  const jwk: Record<string, unknown> = { ...(generateKeyPairSync("ed25519").privateKey.export({ format: "jwk" }) as Record<string, unknown>), kid: "gov-prod-1" };
  const wrong = await agentOf({ mode: 'production', governance: { key: { ...jwk, adcp_use: 'request-signing' } } });
  assert.match(await wrong.ready().then(() => 'ready', (e: Error) => e.message), /states adcp_use "request-signing"; it is used as the agent's "governance-signing" key/);
  const same = await agentOf({ mode: 'production', governance: { key: jwk }, signing: { key: jwk }, webhooks: { deliver: false } });
  assert.match(await same.ready().then(() => 'ready', (e: Error) => e.message), /is the request-signing key/);
  await same.close();
  const keyless = await agentOf({ mode: 'production' });
  const message = await keyless.ready().then(() => 'ready', (e: Error) => e.message);
  assert.match(message, /has no governance-signing key: set ADCP_GOVERNANCE_KEY_FILE/);
  assert.not.ok(message.includes(String(jwk.d)));
  const configured = await agentOf({ mode: 'production', governance: { key: jwk } });
  await configured.ready();
  const { jwks } = await documents(configured);
  assert.is(jwks.keys[0]!.kid, 'gov-prod-1');
  await configured.close();
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GovernanceRefusal, verifyGovernanceContext, type Gate, type Verdict } from '../runtime/services/governance/checklist.js';
import { governedPayloadHash } from '../runtime/services/governance/hash.js';
import { AUTHORIZATION_HEADER, governanceKey, intentClaims, memoryDeps, signToken, type Jwk } from './helpers/governance.js';
import './helpers/temp.js';

/**
 * The seller verification checklist, step by step, on tokens of this test's own making (its own Ed25519 and P-256
 * keys; jose signs): each defect refused at its step with the taxonomy's code, the steps in the spec's order (a token
 * with two defects is refused for the earlier), and the gate's bindings — task, exact payload, caller, audience,
 * phase, media buy, commitment, the action's prior binding. AdCP's own 27 byte-exact vectors run in
 * test/real/governance-vectors.test.ts.
 */
const NOW = 1_800_000_000;
const ISS = 'https://gov.test/governance';
const AUD = 'https://seller.test/mcp';
const CALLER = 'https://buyer.test';
const gov = governanceKey('gov-1');
const es = governanceKey('gov-es', 'P-256');
const payload = { idempotency_key: 'idem-0000000000000001', account: { account_id: 'acc' }, total_budget: { amount: 100, currency: 'USD' } };
const gate: Gate = { phase: 'intent', audience: AUD, caller: CALLER, task: 'create_media_buy', payload: { ...payload, governance_context: 'x', context: { c: 1 } }, commitment: { amount: 100, currency: 'USD' } };

const claims = (over: Record<string, unknown> = {}): Record<string, unknown> =>
  intentClaims({ iss: ISS, aud: AUD, caller: CALLER, task: 'create_media_buy', payloadHash: governedPayloadHash(payload), iat: NOW, ttl: 900 }, over);
const header = (over: Record<string, unknown> = {}): Record<string, unknown> => ({ alg: 'EdDSA', kid: 'gov-1', ...AUTHORIZATION_HEADER, ...over });
const deps = (over: Partial<Parameters<typeof memoryDeps>[0]> = {}) => memoryDeps({ now: NOW, issuers: { [ISS]: [gov.publicJwk, es.publicJwk] }, ...over });

async function verify(token: unknown, g: Gate = gate, d = deps()): Promise<Verdict> {
  return verifyGovernanceContext(token, g, d);
}
function refused(v: Verdict, code: string, step: number): void {
  assert.is(v.ok, false, JSON.stringify(v));
  if (!v.ok) {
    assert.is(v.code, code, v.detail);
    assert.is(v.step, step, `${v.code}: ${v.detail}`);
  }
}
const without = (o: Record<string, unknown>, ...names: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !names.includes(k)));

test('a token authorizing exactly this task, payload, caller, audience and commitment is accepted, and its jti consumed', async () => {
  const d = deps();
  const v = await verify(await signToken(header(), claims(), gov.privateJwk), gate, d);
  assert.ok(v.ok, JSON.stringify(v));
  if (v.ok) assert.is(v.payloadHash, governedPayloadHash(payload));
  assert.is(d.consumed.length, 1);
  assert.equal(d.freshAsked, [false], 'a 15-minute intent token needs no polled revocation list');
  // P-256 (ES256) tokens verify alike.
  assert.ok((await verify(await signToken(header({ alg: 'ES256', kid: 'gov-es' }), claims(), es.privateJwk))).ok);
});

test('step 1: malformed compact serializations', async () => {
  const good = await signToken(header(), claims(), gov.privateJwk);
  const [h, p, s] = good.split('.') as [string, string, string];
  for (const bad of [undefined, '', 42, `${h}.${p}`, `${h}.${p}.${s}.x`, `${h}..${s}`, `${h}.${p}.${s}=`, `${h}.${p}.${s}+`, 'a'.repeat(5000)]) refused(await verify(bad), 'governance_token_invalid', 1);
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  refused(await verify(`${enc(['alg'])}.${p}.${s}`), 'governance_token_invalid', 1);
  refused(await verify(`${h}.${Buffer.from([0xff, 0xfe]).toString('base64url')}.${s}`), 'governance_token_invalid', 1);
});

test('steps 2 and 3: only EdDSA and ES256, and typ exactly adcp-gov+jws', async () => {
  const c = claims();
  for (const alg of ['none', 'HS256', 'RS256', 'ES384', undefined]) {
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    refused(await verify(`${enc(header({ alg }))}.${enc(c)}.AAAA`), 'governance_token_invalid', 2);
  }
  for (const typ of ['ADCP-gov+jws', 'adcp-gov', 'JWT', undefined]) refused(await verify(await signToken(header({ typ }), c, gov.privateJwk)), 'governance_token_invalid', 3);
});

test('step 4: crit names only known extensions, each with its claim and true marker; task and payload hash pair up', async () => {
  const c = claims();
  refused(await verify(await signToken(header({ crit: [...AUTHORIZATION_HEADER.crit, 'future_limit'], future_limit: true }), c, gov.privateJwk)), 'governance_token_invalid', 4);
  refused(await verify(await signToken(without(header(), 'authorized_commitment'), c, gov.privateJwk)), 'governance_token_invalid', 4);
  refused(await verify(await signToken(header({ crit: ['authorized_task', 'authorized_payload_hash'] }), c, gov.privateJwk)), 'governance_token_invalid', 4);
  refused(await verify(await signToken(header(), without(c, 'authorized_commitment'), gov.privateJwk)), 'governance_token_invalid', 4);
  refused(await verify(await signToken(header({ authorized_task: 'yes' }), c, gov.privateJwk)), 'governance_token_invalid', 4);
  const pairless = { ...header({ crit: ['authorized_commitment', 'authorized_task'] }) };
  delete pairless.authorized_payload_hash;
  refused(await verify(await signToken(pairless, without(c, 'authorized_payload_hash'), gov.privateJwk)), 'governance_token_invalid', 4);
  refused(await verify(await signToken(header({ crit: [...AUTHORIZATION_HEADER.crit, 'authorized_task'] }), c, gov.privateJwk)), 'governance_token_invalid', 4);
});

test('steps 5 and 6: the issuer must be the buyer\'s, the kid published, the key one for governance signing', async () => {
  refused(await verify(await signToken(header(), claims({ iss: 'https://other-gov.test' }), gov.privateJwk)), 'governance_issuer_not_authorized', 5);
  refused(await verify(await signToken(header({ kid: 'gov-9' }), claims(), gov.privateJwk)), 'governance_key_unknown', 5);
  const unreachable = { ...deps(), issuer: async () => Promise.reject(new GovernanceRefusal('governance_jwks_unavailable', 'timeout')) };
  refused(await verify(await signToken(header(), claims(), gov.privateJwk), gate, unreachable as never), 'governance_jwks_unavailable', 5);
  const transport = governanceKey('rs-1', 'Ed25519', 'request-signing');
  const reused = deps({ issuers: { [ISS]: [transport.publicJwk] } });
  refused(await verify(await signToken(header({ kid: 'rs-1' }), claims(), transport.privateJwk), gate, reused), 'governance_key_unknown', 6);
  for (const bent of [{ use: 'enc' }, { key_ops: ['sign'] }, { alg: 'ES256' }, { d: 'secret' }]) {
    const d = deps({ issuers: { [ISS]: [{ ...gov.publicJwk, ...bent } as Jwk] } });
    refused(await verify(await signToken(header(), claims(), gov.privateJwk), gate, d), 'governance_key_unknown', 6);
  }
  // An ES256 header naming an Ed25519 key is refused before any cryptography.
  refused(await verify(await signToken(header({ alg: 'ES256', kid: 'gov-es' }), claims(), es.privateJwk), gate, deps({ issuers: { [ISS]: [{ ...gov.publicJwk, kid: 'gov-es', alg: undefined }] } })), 'governance_key_unknown', 6);
});

test('step 7: a signature that does not verify, whatever else is wrong after it', async () => {
  const good = await signToken(header(), claims({ aud: 'https://elsewhere.test' }), gov.privateJwk);
  const [h, p, s] = good.split('.') as [string, string, string];
  const flipped = `${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}`;
  refused(await verify(`${h}.${p}.${flipped}`), 'governance_token_invalid', 7);
  const other = governanceKey('gov-1');
  refused(await verify(await signToken(header(), claims(), other.privateJwk)), 'governance_token_invalid', 7);
});

test('step 8: audience and authenticated caller, byte for byte', async () => {
  refused(await verify(await signToken(header(), without(claims(), 'aud'), gov.privateJwk)), 'governance_token_invalid', 8);
  refused(await verify(await signToken(header(), claims({ aud: `${AUD}/` }), gov.privateJwk)), 'governance_token_not_applicable', 8);
  refused(await verify(await signToken(header(), without(claims(), 'caller'), gov.privateJwk)), 'governance_token_invalid', 8);
  refused(await verify(await signToken(header(), claims({ caller: 'https://buyer.test/' }), gov.privateJwk)), 'governance_token_not_applicable', 8);
  // Wrong audience and expired: the audience is step 8, expiry step 9.
  refused(await verify(await signToken(header(), claims({ aud: 'https://x.test', exp: NOW - 3600, iat: NOW - 4000 }), gov.privateJwk)), 'governance_token_not_applicable', 8);
});

test('step 9: exp, iat and nbf within 60 s of skew, exp after iat, execution tokens at most 30 days', async () => {
  refused(await verify(await signToken(header(), without(claims(), 'exp'), gov.privateJwk)), 'governance_token_invalid', 9);
  refused(await verify(await signToken(header(), claims({ iat: String(NOW) }), gov.privateJwk)), 'governance_token_invalid', 9);
  refused(await verify(await signToken(header(), claims({ exp: NOW - 61 }), gov.privateJwk)), 'governance_token_expired', 9);
  assert.ok((await verify(await signToken(header(), claims({ exp: NOW - 60, iat: NOW - 900 }), gov.privateJwk))).ok, 'within the skew');
  refused(await verify(await signToken(header(), claims({ iat: NOW + 61 }), gov.privateJwk)), 'governance_token_not_yet_valid', 9);
  refused(await verify(await signToken(header(), claims({ nbf: NOW + 61 }), gov.privateJwk)), 'governance_token_not_yet_valid', 9);
  assert.ok((await verify(await signToken(header(), claims({ nbf: NOW + 60 }), gov.privateJwk))).ok);
  refused(await verify(await signToken(header(), claims({ exp: NOW, iat: NOW }), gov.privateJwk)), 'governance_token_invalid', 9);
  const purchase: Gate = { phase: 'purchase', audience: AUD, caller: AUD, task: 'create_media_buy' };
  const exec = (over: Record<string, unknown>) => without(claims({ phase: 'purchase', caller: AUD, ...over }), 'authorized_task', 'authorized_payload_hash', 'authorized_commitment');
  const plain = { alg: 'EdDSA', kid: 'gov-1', typ: 'adcp-gov+jws' };
  refused(await verify(await signToken(plain, exec({ exp: NOW + 31 * 86_400 }), gov.privateJwk), purchase), 'governance_token_invalid', 9);
  assert.ok((await verify(await signToken(plain, exec({ exp: NOW + 29 * 86_400 }), gov.privateJwk), purchase)).ok);
});

test('steps 10 and 11: the opaque action binding (and its continuation), the correlation claims, the phase', async () => {
  refused(await verify(await signToken(header(), claims({ sub: '' }), gov.privateJwk)), 'governance_token_invalid', 10);
  refused(await verify(await signToken(header(), claims(), gov.privateJwk), { ...gate, priorSub: 'gb_action_0' }), 'governance_token_not_applicable', 10);
  assert.ok((await verify(await signToken(header(), claims({ sub: 'gb_action_1' }), gov.privateJwk), { ...gate, priorSub: 'gb_action_1' })).ok);
  refused(await verify(await signToken(header(), without(claims(), 'check_id'), gov.privateJwk)), 'governance_token_invalid', 10);
  refused(await verify(await signToken(header(), without(claims(), 'plan_hash'), gov.privateJwk)), 'governance_token_invalid', 10);
  refused(await verify(await signToken(header(), claims({ phase: 'purchase' }), gov.privateJwk)), 'governance_token_not_applicable', 11);
});

test('step 12: task, exact payload, media buy and commitment', async () => {
  refused(await verify(await signToken(header(), claims({ authorized_task: 'update_media_buy' }), gov.privateJwk)), 'governance_token_not_applicable', 12);
  refused(await verify(await signToken(header(), claims({ authorized_payload_hash: governedPayloadHash({ ...payload, total_budget: { amount: 101, currency: 'USD' } }) }), gov.privateJwk)), 'governance_token_not_applicable', 12);
  refused(await verify(await signToken(header(), claims(), gov.privateJwk), { ...gate, payload: { ...payload, idempotency_key: 'idem-0000000000000002' } }), 'governance_token_not_applicable', 12);
  refused(await verify(await signToken(header(), claims({ media_buy_id: 'mb_1' }), gov.privateJwk)), 'governance_token_not_applicable', 12);
  refused(await verify(await signToken(header(), claims(), gov.privateJwk), { ...gate, commitment: { amount: 100.01, currency: 'USD' } }), 'governance_token_not_applicable', 12);
  refused(await verify(await signToken(header(), claims(), gov.privateJwk), { ...gate, commitment: { amount: 100, currency: 'EUR' } }), 'governance_token_not_applicable', 12);
  refused(await verify(await signToken(header(), claims({ authorized_commitment: { amount: -1, currency: 'USD' } }), gov.privateJwk)), 'governance_token_invalid', 12);
  refused(await verify(await signToken(header(), claims({ authorized_commitment: { amount: 1, currency: 'usd' } }), gov.privateJwk)), 'governance_token_invalid', 12);
  // An action that commits no money needs no ceiling; an explicit zero ceiling authorizes a zero-cost one only.
  const noCeiling = without(header({ crit: ['authorized_task', 'authorized_payload_hash'] }), 'authorized_commitment');
  assert.ok((await verify(await signToken(noCeiling, without(claims(), 'authorized_commitment'), gov.privateJwk), { ...gate, commitment: undefined })).ok);
  refused(await verify(await signToken(noCeiling, without(claims(), 'authorized_commitment'), gov.privateJwk)), 'governance_token_not_applicable', 12);
  const zero = claims({ authorized_commitment: { amount: 0, currency: 'USD' } });
  assert.ok((await verify(await signToken(header(), zero, gov.privateJwk), { ...gate, commitment: { amount: 0, currency: 'USD' } })).ok);
  refused(await verify(await signToken(header(), { ...zero, jti: 'z2' }, gov.privateJwk), { ...gate, commitment: { amount: 0.01, currency: 'USD' } }), 'governance_token_not_applicable', 12);
  // Lifecycle tokens: modification and delivery name the request's media buy; purchase may.
  const plain = { alg: 'EdDSA', kid: 'gov-1', typ: 'adcp-gov+jws' };
  const lifecycle = (phase: string, over: Record<string, unknown> = {}) => without(claims({ phase, caller: AUD, ...over }), 'authorized_task', 'authorized_payload_hash', 'authorized_commitment');
  const at = (phase: 'modification' | 'purchase', mediaBuyId?: string): Gate => ({ phase, audience: AUD, caller: AUD, task: 'update_media_buy', ...(mediaBuyId !== undefined ? { mediaBuyId } : {}) });
  refused(await verify(await signToken(plain, lifecycle('modification'), gov.privateJwk), at('modification', 'mb_1')), 'governance_token_not_applicable', 12);
  refused(await verify(await signToken(plain, lifecycle('modification', { media_buy_id: 'mb_2' }), gov.privateJwk), at('modification', 'mb_1')), 'governance_token_not_applicable', 12);
  assert.ok((await verify(await signToken(plain, lifecycle('modification', { media_buy_id: 'mb_1' }), gov.privateJwk), at('modification', 'mb_1'))).ok);
  assert.ok((await verify(await signToken(plain, lifecycle('purchase'), gov.privateJwk), at('purchase', 'mb_1'))).ok);
  refused(await verify(await signToken(plain, lifecycle('purchase', { media_buy_id: 'mb_2' }), gov.privateJwk), at('purchase', 'mb_1')), 'governance_token_not_applicable', 12);
});

test('steps 13 to 15: brand.json cross-check, revocation (fresh when it must be), the replay set', async () => {
  const d = { ...deps(), listed: async () => false };
  refused(await verify(await signToken(header(), claims(), gov.privateJwk), gate, d), 'governance_issuer_not_authorized', 13);
  refused(await verify(await signToken(header(), without(claims(), 'jti'), gov.privateJwk)), 'governance_token_invalid', 14);
  refused(await verify(await signToken(header(), claims({ jti: '' }), gov.privateJwk)), 'governance_token_invalid', 14);
  refused(await verify(await signToken(header(), claims({ jti: 'j-revoked' }), gov.privateJwk), gate, deps({ revokedJtis: ['j-revoked'] })), 'governance_token_revoked', 14);
  refused(await verify(await signToken(header(), claims(), gov.privateJwk), gate, deps({ revokedKids: ['gov-1'] })), 'governance_token_revoked', 14);
  // A 15-minute intent token is verified without a polled list; a longer one needs a fresh list.
  const unpolled = deps({ revocationFresh: false });
  assert.ok((await verify(await signToken(header(), claims(), gov.privateJwk), gate, unpolled)).ok);
  refused(await verify(await signToken(header(), claims({ exp: NOW + 901 }), gov.privateJwk), gate, unpolled), 'governance_revocation_stale', 14);
  assert.equal(unpolled.freshAsked, [false, true]);
  const once = deps();
  const token = await signToken(header(), claims(), gov.privateJwk);
  assert.ok((await verify(token, gate, once)).ok);
  // The same request again (its claim released, retried with its idempotency key): the same binding is not a replay.
  assert.ok((await verify(token, gate, once)).ok);
  refused(await verify(token, { ...gate, caller: CALLER, payload: { ...payload, ext: {} } }, once), 'governance_token_not_applicable', 12);
  const elsewhere = deps({ consumed: [{ ...once.consumed[0]!, payloadHash: 'another-request' }] });
  refused(await verify(token, gate, elsewhere), 'governance_token_replayed', 15);
});

test.run();

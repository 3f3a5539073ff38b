import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { GovernanceCommitment } from '../../runtime/api/governance-types.js';
import { verifyGovernanceContext, type ChecklistDeps, type Gate } from '../../runtime/services/governance/checklist.js';
import { governedPayloadHash, planHash, planPreimage } from '../../runtime/services/governance/hash.js';
import { tokenRecord, type TokenRecord } from '../../runtime/services/governance/replay.js';
import { canonicalJson } from '../../runtime/services/jcs.js';
import { lazyStore, type Store } from '../../runtime/stores/open.js';
import { AUTHORIZATION_HEADER, governanceKey, signToken, tokenRecordContract } from '../helpers/governance.js';
import { createDatabase, startPostgres } from '../helpers/postgres.js';
import { sharedComplianceDir } from '../helpers/releases.js';
import { tempDir } from '../helpers/temp.js';

/**
 * AdCP 3.2.0-beta.5's governance vectors, every case, through the runtime (services/governance/):
 * - test-vectors/plan-hash/: each plan's preimage, its JCS bytes, the SHA-256 and the `plan_hash` claim, the pairs
 *   that must agree (bookkeeping stripped) and those that must differ (null vs omitted, array order, ext);
 * - governance-authorization.json: the payload-hash cases; the abstract authorization cases, each made a real token
 *   (signed with a key of this test's) and verified; and the 27 byte-exact Ed25519 compact-JWS cases, verified with
 *   the published test key against the vectors' verification defaults and overrides — the jti replay cases on the
 *   embedded store (SQLite in a state directory) and on a real PostgreSQL server, where two instances share the set.
 */
const compliance = sharedComplianceDir();
if (compliance === undefined) throw new Error('../shared/adcp/compliance/3.2.0-beta.5 is required for the real-release suite');
const vectors = join(compliance, 'test-vectors');

interface PlanVector {
  name: string;
  plan_as_supplied: Record<string, unknown>;
  cross_reference?: { same_hash_as?: string; differs_from?: string };
  expected: { preimage: Record<string, unknown>; jcs_bytes: string; sha256_hex: string; plan_hash: string };
}
const plans = new Map(
  readdirSync(join(vectors, 'plan-hash'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(vectors, 'plan-hash', f), 'utf8')) as PlanVector]),
);

interface SignedCase {
  id: string;
  protected_header: Record<string, unknown>;
  claims: Record<string, unknown>;
  compact_jws: string;
  verification_overrides?: { payload?: Record<string, unknown>; actual_commitment?: GovernanceCommitment; preconsumed_jti?: boolean };
  expected: { result: 'accept' | 'reject'; error: string | null };
}
const authorization = JSON.parse(readFileSync(join(vectors, 'governance-authorization.json'), 'utf8')) as {
  payload_hash_cases: { id: string; payload: Record<string, unknown>; canonical_business_payload: string; expected_hash: string }[];
  authorization_cases: { id: string; task_match: boolean; payload_hash_match: boolean; authorized_amount: number; actual_amount: number; currency_match: boolean; critical_markers_complete: boolean; expected: 'accept' | 'reject' }[];
  signed_jws: {
    test_key: Record<string, unknown> & { kid: string };
    verification_defaults: {
      now: number;
      clock_skew_seconds: number;
      expected_issuer: string;
      expected_audience: string;
      authenticated_caller: string;
      expected_task: string;
      payload: Record<string, unknown>;
      actual_commitment: GovernanceCommitment;
      expected_phase: 'intent';
    };
    cases: SignedCase[];
  };
};
const results: string[] = [];

test('plan-hash: every vector\'s preimage, JCS bytes, SHA-256 and plan_hash', () => {
  assert.is(plans.size, 11);
  for (const [id, v] of plans) {
    const preimage = planPreimage(v.plan_as_supplied);
    assert.equal(preimage, v.expected.preimage, `${id}: preimage`);
    const jcs = canonicalJson(preimage, 'test');
    assert.is(jcs, v.expected.jcs_bytes, `${id}: JCS bytes`);
    assert.is(createHash('sha256').update(jcs, 'utf8').digest('hex'), v.expected.sha256_hex, `${id}: SHA-256`);
    assert.is(planHash(v.plan_as_supplied), v.expected.plan_hash, `${id}: plan_hash`);
    const x = v.cross_reference;
    if (x?.same_hash_as !== undefined) assert.is(planHash(v.plan_as_supplied), plans.get(x.same_hash_as)!.expected.plan_hash, `${id} = ${x.same_hash_as}`);
    if (x?.differs_from !== undefined) assert.is.not(planHash(v.plan_as_supplied), plans.get(x.differs_from)!.expected.plan_hash, `${id} ≠ ${x.differs_from}`);
  }
  results.push(`plan-hash: ${plans.size} of ${plans.size} vectors reproduce bit-exactly`);
});

test('governance-authorization: the payload-hash cases', () => {
  for (const c of authorization.payload_hash_cases) {
    const business = Object.fromEntries(Object.entries(c.payload).filter(([k]) => k !== 'governance_context' && k !== 'context'));
    assert.is(canonicalJson(business, 'test'), c.canonical_business_payload, c.id);
    assert.is(governedPayloadHash(c.payload), c.expected_hash, c.id);
  }
  results.push(`payload_hash_cases: ${authorization.payload_hash_cases.length} of ${authorization.payload_hash_cases.length}`);
});

const defaults = authorization.signed_jws.verification_defaults;
const testKey = Object.fromEntries(Object.entries(authorization.signed_jws.test_key).filter(([k]) => k !== '$comment' && !k.startsWith('_'))) as Record<string, unknown> & { kid: string };

/** Checklist dependencies over one issuer's static JWKS (the buyer's brand.json lists it), no revocations, a replay record. */
function deps(issuer: string, keys: readonly Record<string, unknown>[], record: TokenRecord, now: number): ChecklistDeps {
  return {
    now: () => now,
    skewSeconds: defaults.clock_skew_seconds,
    issuer: async (iss) => (iss === issuer ? { key: async (kid) => keys.find((k) => k.kid === kid) ?? null } : undefined),
    listed: async (iss) => iss === issuer,
    revocation: async () => 'ok',
    consume: (entry) => record.consume(entry, now),
  };
}

test('governance-authorization: the abstract authorization cases, each a signed token verified', async () => {
  const key = governanceKey('gov-auth-cases');
  const record = tokenRecord(lazyStore('memory', 'vectors'), 86_400_000);
  const payload = { idempotency_key: 'gov-case-0000000001', account: { account_id: 'acc_1' }, amount: 1 };
  for (const c of authorization.authorization_cases) {
    const header: Record<string, unknown> = { alg: 'EdDSA', kid: key.publicJwk.kid, ...AUTHORIZATION_HEADER };
    if (!c.critical_markers_complete) {
      delete header.authorized_commitment;
      header.crit = ['authorized_task', 'authorized_payload_hash'];
    }
    const claims = {
      iss: defaults.expected_issuer,
      sub: `gb_${c.id}`,
      plan_hash: plans.get('001-minimal-plan')!.expected.plan_hash,
      aud: defaults.expected_audience,
      iat: defaults.now,
      exp: defaults.now + 900,
      jti: `case-${c.id}`,
      phase: 'intent',
      caller: defaults.authenticated_caller,
      check_id: `chk_${c.id}`,
      authorized_commitment: { amount: c.authorized_amount, currency: 'USD' },
      authorized_task: c.task_match ? 'create_media_buy' : 'update_media_buy',
      authorized_payload_hash: governedPayloadHash(c.payload_hash_match ? payload : { ...payload, amount: 2 }),
    };
    const gate: Gate = { ...gateOf(payload), commitment: { amount: c.actual_amount, currency: c.currency_match ? 'USD' : 'EUR' } };
    const v = await verifyGovernanceContext(await signToken(header, claims, key.privateJwk), gate, deps(defaults.expected_issuer, [key.publicJwk], record, defaults.now));
    assert.is(v.ok ? 'accept' : 'reject', c.expected, `${c.id}: ${v.ok ? 'accepted' : `${v.code} at step ${v.step}: ${v.detail}`}`);
  }
  results.push(`authorization_cases: ${authorization.authorization_cases.length} of ${authorization.authorization_cases.length}`);
});

function gateOf(payload: Record<string, unknown>, commitment: GovernanceCommitment = defaults.actual_commitment): Gate {
  return {
    phase: defaults.expected_phase,
    audience: defaults.expected_audience,
    caller: defaults.authenticated_caller,
    task: defaults.expected_task,
    payload,
    commitment,
    ...(typeof payload.idempotency_key === 'string' ? { idempotencyKey: payload.idempotency_key } : {}),
  };
}

/** The 27 signed cases on one store; each case's verdict, as `accept` or the rejection's code. */
async function signedCases(store: Store): Promise<Map<string, string>> {
  const record = tokenRecord(store, 86_400_000);
  const verdicts = new Map<string, string>();
  for (const c of authorization.signed_jws.cases) {
    const [h, p] = c.compact_jws.split('.');
    assert.equal(JSON.parse(Buffer.from(h!, 'base64url').toString('utf8')), c.protected_header, `${c.id}: the published header is the token's`);
    assert.equal(JSON.parse(Buffer.from(p!, 'base64url').toString('utf8')), c.claims, `${c.id}: the published claims are the token's`);
    const o = c.verification_overrides ?? {};
    if (o.preconsumed_jti === true) {
      const consumed = await record.consume({ iss: String(c.claims.iss), aud: String(c.claims.aud), jti: String(c.claims.jti), expiresAt: defaults.now + 3600, sub: 'earlier', phase: 'intent', caller: 'earlier', task: 'earlier', token: 'earlier' }, defaults.now);
      assert.is(consumed, 'ok');
    }
    const v = await verifyGovernanceContext(c.compact_jws, gateOf(o.payload ?? defaults.payload, o.actual_commitment), deps(defaults.expected_issuer, [testKey], record, defaults.now));
    verdicts.set(c.id, v.ok ? 'accept' : v.code);
  }
  return verdicts;
}

function expectSigned(verdicts: Map<string, string>, where: string): void {
  const cases = authorization.signed_jws.cases;
  assert.is(cases.length, 27);
  const wrong = cases.filter((c) => verdicts.get(c.id) !== (c.expected.result === 'accept' ? 'accept' : c.expected.error));
  assert.equal(
    wrong.map((c) => `${c.id}: ${verdicts.get(c.id)}`),
    [],
    `${where}: cases whose verdict is not the published one`,
  );
  const accepted = cases.filter((c) => c.expected.result === 'accept').length;
  results.push(`signed_jws on ${where}: ${cases.length} of ${cases.length} (${accepted} accepted, ${cases.length - accepted} rejected with the published code)`);
}

test('governance-authorization: the 27 signed compact-JWS cases on the embedded store', async () => {
  const store = lazyStore({ stateDir: tempDir() }, 'vectors');
  try {
    expectSigned(await signedCases(store), 'SQLite');
  } finally {
    await store.close();
  }
});

test('governance-authorization: the 27 signed cases and the replay set on PostgreSQL, two instances sharing it', async () => {
  const server = await startPostgres({ name: 'governance' });
  try {
    const url = await createDatabase(server, 'governance_vectors');
    const store = lazyStore({ url }, 'vectors');
    const other = lazyStore({ url }, 'vectors');
    try {
      expectSigned(await signedCases(store), 'PostgreSQL');
      // The accepted token's call succeeded on the first instance: the second refuses the token, the same request too.
      const accepted = authorization.signed_jws.cases.find((c) => c.id === 'valid-exact-authorization')!;
      await tokenRecord(store, 86_400_000).spend({ iss: String(accepted.claims.iss), aud: String(accepted.claims.aud), jti: String(accepted.claims.jti) }, undefined);
      const v = await verifyGovernanceContext(accepted.compact_jws, gateOf(defaults.payload), deps(defaults.expected_issuer, [testKey], tokenRecord(other, 86_400_000), defaults.now));
      assert.is(v.ok ? 'accept' : v.code, 'governance_token_replayed', 'a token spent on one instance, presented to the other');
      await tokenRecordContract(tokenRecord(store, 86_400_000), tokenRecord(other, 86_400_000), defaults.now);
    } finally {
      await Promise.all([store.close(), other.close()]);
    }
  } finally {
    await server.stop();
  }
});

test('report', () => {
  process.stderr.write(`\nAdCP governance vectors:\n${results.map((r) => `  ${r}`).join('\n')}\n`);
});

test.run();

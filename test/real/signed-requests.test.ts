import { join } from 'node:path';
import { canonicalTargetUri } from '@adcp/sdk/signing/server';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RequestSigningProfile, SignatureVerdict } from '../../runtime/api/signing-types.js';
import { trustedKeys } from '../../runtime/services/signing/keys.js';
import { signingPolicy } from '../../runtime/services/signing/policy.js';
import { requestVerifier } from '../../runtime/services/signing/verifier.js';
import { lazyStore, type Store } from '../../runtime/stores/open.js';
import { createDatabase, startPostgres } from '../helpers/postgres.js';
import { createMediaBuyRequest } from '../helpers/payloads.js';
import { sharedComplianceDir } from '../helpers/releases.js';
import { freshKey, requestVectors, signed, toolCall, vectorKeys, type Vector } from '../helpers/signing.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Every request-signing conformance vector of AdCP 3.2.0-beta.5 (positive/, negative/, profile-3.2/) through the
 * runtime's verifier (services/signing/), over the embedded store (SQLite in a state directory) and a real PostgreSQL
 * server, each with the vector's own state injected as a white-box harness does (its README, "test_harness_state"):
 * the replay entry written into the replay table, the revocation list as the counterparty's revoked keys, the
 * per-keyid cap reached with placeholder nonces (the test counterparty's cap is 100, as the runner contract grades
 * with) — and the clock pinned to the vector's reference_now.
 */
const compliance = sharedComplianceDir();
if (compliance === undefined) throw new Error('../shared/adcp/compliance/3.2.0-beta.5 is required for the real-release suite');
const dir = join(compliance, 'test-vectors/request-signing');
const vectors = requestVectors(dir);
const keys = vectorKeys(dir);
const CAP = 100;

/** The REST-style vector URLs name the operation in their last path segment; /mcp ones carry it in the body. */
function operationOf(v: Vector): string | undefined {
  const path = new URL(v.request.url).pathname;
  return path.endsWith('/mcp') ? undefined : path.split('/').filter(Boolean).pop();
}

async function run(v: Vector, store: Store): Promise<SignatureVerdict> {
  const sql = await store.open();
  await sql.query('DELETE FROM adcp_request_replay');
  const state = v.test_harness_state ?? {};
  const now = v.reference_now;
  for (const e of state.replay_cache_entries ?? []) {
    await sql.query('INSERT INTO adcp_request_replay (keyid, scope, nonce, expires_at) VALUES ($1, $2, $3, $4)', [e.keyid, canonicalTargetUri(v.request.url), e.nonce, (now + (e.ttl_seconds ?? 360)) * 1000]);
  }
  if (state.replay_cache_per_keyid_cap_hit !== undefined) {
    for (let i = 0; i < CAP; i++) {
      await sql.query('INSERT INTO adcp_request_replay (keyid, scope, nonce, expires_at) VALUES ($1, $2, $3, $4)', [state.replay_cache_per_keyid_cap_hit.keyid, 'https://placeholder.example/mcp', `placeholder_${i}`, (now + 360) * 1000]);
    }
  }
  const jwks = v.jwks_override ?? { keys: (v.jwks_ref ?? []).map((kid) => keys.find((k) => k.kid === kid)!) };
  const profile: RequestSigningProfile = v.signing_profile_version === '3.2' ? '3.2' : 'legacy-3.1';
  const clock = (): number => now;
  const verifier = requestVerifier({
    policy: signingPolicy(v.verifier_capability, { profile, releaseBelow32: false, where: v.id }),
    keys: trustedKeys({ trust: [{ jwks, principal: 'test-counterparty', capPerKeyid: CAP, revokedKeyids: state.revocation_list?.revoked_kids }] }, clock),
    store,
    clock,
  });
  const headers = v.request.headers;
  // A bearer beside an unsigned webhook registration (027) is another accepted credential: it must not help.
  const authenticated = Object.keys(headers).some((h) => h.toLowerCase() === 'authorization');
  return verifier.verify({ ...v.request, operation: operationOf(v), authenticated });
}

function check(v: Vector, verdict: SignatureVerdict): string | undefined {
  if (v.kind === 'positive') {
    return verdict.ok && verdict.authenticatedBy === 'signature' && verdict.signer.principal === 'test-counterparty' ? undefined : `expected a verified signer, got ${JSON.stringify(verdict)}`;
  }
  const code = v.expected_outcome.error_code!;
  if (verdict.ok) return `expected ${code}, got ${JSON.stringify(verdict)}`;
  if (verdict.code !== code || verdict.status !== 401 || verdict.wwwAuthenticate !== `Signature error="${code}"`) return `expected 401 ${code}, got ${verdict.status} ${verdict.code} (${verdict.wwwAuthenticate}; ${verdict.detail})`;
  return undefined;
}

async function everyVector(store: Store): Promise<void> {
  const wrong: string[] = [];
  for (const v of vectors) {
    const problem = check(v, await run(v, store));
    if (problem !== undefined) wrong.push(`${v.id}: ${problem}`);
  }
  assert.equal(wrong, []);
}

test('the bundle holds 43 request-signing vectors: 12 positive and 28 negative (legacy 3.1), 1 and 2 in profile-3.2/', () => {
  assert.is(vectors.filter((v) => !v.id.startsWith('profile-3.2/') && v.kind === 'positive').length, 12);
  assert.is(vectors.filter((v) => !v.id.startsWith('profile-3.2/') && v.kind === 'negative').length, 28);
  assert.is(vectors.filter((v) => v.id.startsWith('profile-3.2/')).length, 3);
  for (const v of vectors) assert.is(v.expected_outcome.success, v.kind === 'positive', v.id);
});

test('every vector gives its expected outcome over the embedded store (SQLite)', async () => {
  const store = lazyStore({ stateDir: tempDir('adcp-signing-vectors-') }, 'signing-vectors');
  try {
    await everyVector(store);
  } finally {
    await store.close();
  }
});

test('every vector gives its expected outcome over a real PostgreSQL; two instances sharing it keep one replay store and one exact per-keyid cap', async () => {
  const pg = await startPostgres();
  const store = lazyStore({ url: pg.url }, 'signing-vectors');
  const shared = await createDatabase(pg, 'shared_replay');
  const instances = [lazyStore({ url: shared }, 'a'), lazyStore({ url: shared }, 'b')];
  try {
    await everyVector(store);

    // Two verifiers, each its own pool on one database, as two agent processes would be.
    const key = freshKey();
    const clock = (): number => Math.floor(Date.now() / 1000);
    const policy = signingPolicy({ supported: true, covers_content_digest: 'required', required_for: ['create_media_buy'] }, { releaseBelow32: false, where: 'test' });
    const [a, b] = instances.map((s) => requestVerifier({ policy, keys: trustedKeys({ trust: [{ jwks: { keys: [key.jwk] }, capPerKeyid: CAP }] }, clock), store: s, clock }));
    const request = (i: number) => signed(toolCall(`https://seller.example/${['mcp', 'a2a', 'x'][i % 3]}`, 'create_media_buy', createMediaBuyRequest()), key);
    // One nonce sent to both at once, four times over: accepted once.
    const once = request(0);
    const first = await Promise.all([a, b, a, b].map((v) => v.verify(once)));
    assert.equal(first.map((v) => (v.ok ? 'ok' : v.code)).sort(), ['ok', 'request_signature_replayed', 'request_signature_replayed', 'request_signature_replayed']);
    // 150 distinct nonces over three endpoints, split between them, concurrently: exactly the cap is accepted.
    const verdicts = await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? a : b).verify(request(i))));
    const tally = (c: string): number => verdicts.filter((v) => (v.ok ? 'ok' : v.code) === c).length;
    assert.equal({ ok: tally('ok'), rate_abuse: tally('request_signature_rate_abuse') }, { ok: CAP - 1, rate_abuse: 151 - CAP });
  } finally {
    await Promise.all([store, ...instances].map((s) => s.close()));
    await pg.stop();
  }
});

test.run();

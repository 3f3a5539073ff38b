import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { canonicalTargetUri, computeContentDigest } from '@adcp/sdk/signing/server';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generate } from '../../generator/generate.js';
import { silentLogger } from '../../generator/shared/index.js';
import type { RequestSigningProfile, SignatureVerdict, SigningJwks } from '../../runtime/api/signing-types.js';
import { trustedKeys } from '../../runtime/services/signing/keys.js';
import { signingPolicy } from '../../runtime/services/signing/policy.js';
import { requestVerifier } from '../../runtime/services/signing/verifier.js';
import { lazyStore, type Store } from '../../runtime/stores/open.js';
import { setAt } from '../helpers/generated.js';
import { createDatabase, startPostgres } from '../helpers/postgres.js';
import { createMediaBuyRequest } from '../helpers/payloads.js';
import { repoRoot, sdkReleaseDir, sharedComplianceDir, sharedReleaseDir } from '../helpers/releases.js';
import { freshKey, judgeRequest, requestVectors, signed, toolCall, vectorKeys, vectorSigners, type Vector } from '../helpers/signing.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Every request-signing conformance vector of AdCP 3.2.0-beta.5 (positive/, negative/, profile-3.2/) through the
 * runtime's verifier (services/signing/), over the embedded store (SQLite in a state directory) and a real PostgreSQL
 * server, each with the vector's own state injected as a white-box harness does (its README, "test_harness_state"):
 * the replay entry written into the replay table, the revocation list as the counterparty's revoked keys, the
 * per-keyid cap reached with placeholder nonces (the test counterparty's cap is 100, as the runner contract grades
 * with) — and the clock pinned to the vector's reference_now. Then the 3.2 body-integrity policy matrix as wire
 * requests, and the sandbox seller configured from the runner contract.
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
    // The root directories are 3.1 fixtures: a verifier of a 3.0/3.1 endpoint, whose digest posture may be legacy.
    policy: signingPolicy(v.verifier_capability, { profile, releaseBelow32: profile === 'legacy-3.1', where: v.id }),
    keys: trustedKeys({ trust: [{ jwks, principal: 'test-counterparty', capPerKeyid: CAP, revokedKeyids: state.revocation_list?.revoked_kids }] }, clock),
    store,
    clock,
  });
  const headers = v.request.headers;
  // A bearer beside an unsigned webhook registration (027) is another accepted credential: it must not help.
  const authenticated = Object.keys(headers).some((h) => h.toLowerCase() === 'authorization');
  return judgeRequest(verifier, { ...v.request, authenticated }, operationOf(v));
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

interface PolicyCase {
  id: string;
  endpoint_profile: '3.2' | '3.1';
  legacy_digest_policy?: 'either' | 'forbidden' | 'required';
  mode: 'supported_for' | 'required_for' | 'warn_for' | 'protocol_methods_supported_for' | 'protocol_methods_required_for' | 'protocol_methods_warn_for';
  has_body: boolean;
  signature_present: boolean;
  signature_header_state?: 'malformed_pair';
  covers_content_digest?: boolean;
  digest_matches_body?: boolean;
  cryptographic_signature_valid?: boolean;
  fallback_auth_valid: boolean;
  request_body_adcp_version?: string;
  expected: { action: 'accept' | 'accept_with_warning' | 'reject' | 'reject_unauthenticated'; error_code?: string; authentication_source?: 'signature' | 'fallback'; verified_signer_identity: boolean };
}

test('body-integrity-policy.json: every case of the 3.2 policy matrix, as wire requests, gets the reference outcome (composition with other credentials included)', async () => {
  const cases = (JSON.parse(readFileSync(join(dir, 'body-integrity-policy.json'), 'utf8')) as { cases: PolicyCase[] }).cases;
  assert.is(cases.length, 17);
  const key = freshKey();
  const store = lazyStore({ stateDir: tempDir('adcp-signing-policy-') }, 'signing-policy');
  const clock = (): number => Math.floor(Date.now() / 1000);
  const url = 'https://seller.example/mcp';
  const wrong: string[] = [];
  for (const c of cases) {
    const methods = c.mode.startsWith('protocol_methods_');
    const list = c.mode.replace('protocol_methods_', '');
    const name = methods ? 'tasks/cancel' : 'create_media_buy';
    const capability = { supported: true, covers_content_digest: c.endpoint_profile === '3.2' ? 'required' : (c.legacy_digest_policy ?? 'either'), supported_for: methods ? [] : ['create_media_buy'], [`${methods ? 'protocol_methods_' : ''}${list}`]: [name] };
    const profile: RequestSigningProfile = c.endpoint_profile === '3.2' ? '3.2' : 'legacy-3.1';
    const verifier = requestVerifier({ policy: signingPolicy(capability, { profile, releaseBelow32: profile === 'legacy-3.1', where: c.id }), keys: trustedKeys({ trust: [{ jwks: { keys: [key.jwk] }, principal: 'p' }] }, clock), store, clock });
    const args = { ...createMediaBuyRequest(), ...(c.request_body_adcp_version !== undefined ? { adcp_version: c.request_body_adcp_version } : {}) };
    let request = !c.has_body
      ? { method: 'GET', url, headers: { host: 'seller.example' }, body: '' }
      : methods
        ? { method: 'POST', url, headers: { 'content-type': 'application/json', host: 'seller.example' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/cancel', params: { taskId: 'task_1' } }) }
        : toolCall(url, 'create_media_buy', args);
    if (c.signature_present) request = signed(request, key, { profile, coverDigest: c.covers_content_digest ?? true });
    if (c.signature_header_state === 'malformed_pair') {
      const { ['Signature-Input']: _dropped, ...rest } = request.headers;
      request = { ...request, headers: rest };
    }
    if (c.digest_matches_body === false || c.cryptographic_signature_valid === false) {
      // The body substituted after signing; a rewritten digest follows it unless the case says it does not match.
      const body = request.body.replace('"id":1', '"id":2').replace('"task_1"', '"task_2"').replace(/"idempotency_key":"[^"]+"/, '"idempotency_key":"substituted-0000-4000-8000-000000000000"');
      const digest = c.digest_matches_body === false ? request.headers['Content-Digest'] : computeContentDigest(body);
      request = { ...request, body, headers: { ...request.headers, 'Content-Digest': digest! } };
      if (c.cryptographic_signature_valid === false && c.digest_matches_body === false) request.headers['Content-Digest'] = computeContentDigest('{"unrelated":true}');
    }
    const v = await judgeRequest(verifier, { ...request, authenticated: c.fallback_auth_valid });
    const e = c.expected;
    const got = v.ok ? `${v.authenticatedBy}${v.authenticatedBy === 'fallback' && v.warning !== undefined ? '+warning' : ''}` : v.code;
    const want =
      e.action === 'reject' ? e.error_code! : e.action === 'accept_with_warning' ? 'fallback+warning' : e.action === 'accept' ? e.authentication_source! : 'rejected';
    const ok = want === 'rejected' ? !v.ok : got === want;
    const signer = v.ok && v.authenticatedBy === 'signature';
    if (!ok || signer !== e.verified_signer_identity) wrong.push(`${c.id}: expected ${want} (signer ${e.verified_signer_identity}), got ${got}`);
  }
  await store.close();
  assert.equal(wrong, []);
});

test("the sandbox seller pre-configured from the runner contract (examples/signing-test-kit.js) answers the runner's signed requests as the contract says", async () => {
  const { signedRequestsRunnerSigning } = (await import(pathToFileURL(join(repoRoot, 'examples/signing-test-kit.js')).href)) as {
    signedRequestsRunnerSigning(kit: string, keys?: string): import('../../runtime/api/signing-types.js').RequestSigningOptions;
  };
  const requests = signedRequestsRunnerSigning(join(compliance, 'test-kits/signed-requests-runner.yaml'));
  const trust = requests.trust![0]!;
  assert.is(requests.profile, 'legacy-3.1', 'the runner signs the legacy 3.1 wire profile');
  assert.equal(
    (trust.jwks as SigningJwks).keys.map((k) => k.kid),
    ['test-ed25519-2026', 'test-es256-2026', 'test-gov-2026', 'test-revoked-2026'],
  );
  assert.not.match(JSON.stringify(trust.jwks), /"d"|_private/, 'public halves only');
  assert.equal({ principal: trust.principal, revoked: trust.revokedKeyids, cap: trust.capPerKeyid }, { principal: 'adcp-signed-requests-runner', revoked: ['test-revoked-2026'], cap: 100 });

  // The reference seller's signed sandbox set (3.0.6 + 3.2.0-beta.5), as its repository generates it.
  const work = tempDir('adcp-signing-sandbox-');
  writeFileSync(
    join(work, 'adcp-codegen.config.json'),
    JSON.stringify({
      releases: [sdkReleaseDir(), sharedReleaseDir()],
      profiles: [join(repoRoot, 'examples/profiles/guaranteed-publisher-sandbox-signed.json')],
      normalizations: [join(repoRoot, 'schemas/normalizations/*.json')],
      overlays: [join(repoRoot, 'schemas/overlays/*.json')],
      out: 'generated',
    }),
  );
  symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
  await generate({ config: join(work, 'adcp-codegen.config.json'), logger: silentLogger });
  const { loadProfile } = await setAt(join(work, 'generated'));
  // The profile enforces signed governance on create_media_buy: the seller's side of it, as seller-agent.js gives it.
  const { createSellerGovernance } = (await import(pathToFileURL(join(repoRoot, 'examples/seller/governance.js')).href)) as { createSellerGovernance(): { options: never } };
  const agent = await loadProfile('guaranteed-publisher-sandbox-signed' as never, { store: { stateDir: tempDir() }, signing: { requests }, governance: createSellerGovernance().options });
  const verifier = agent.requestSignatures!;
  const signers = vectorSigners(dir);
  const url = 'http://127.0.0.1:3000/mcp';
  const by = async (kid: string, tool = 'create_media_buy', digest = true): Promise<string> => {
    const v = await judgeRequest(verifier, signed(toolCall(url, tool, createMediaBuyRequest()), signers.get(kid)!, { profile: 'legacy-3.1', coverDigest: digest }));
    return v.ok ? `${v.authenticatedBy}${v.authenticatedBy === 'signature' ? `:${v.signer.principal}` : ''}` : v.code;
  };
  assert.is(await by('test-ed25519-2026'), 'signature:adcp-signed-requests-runner');
  assert.is(await by('test-es256-2026', 'sync_creatives'), 'signature:adcp-signed-requests-runner');
  assert.is(await by('test-revoked-2026'), 'request_signature_key_revoked', '017');
  assert.is(await by('test-gov-2026'), 'request_signature_key_purpose_invalid', '009');
  assert.is(await by('test-ed25519-2026', 'create_media_buy', false), 'request_signature_components_incomplete', 'a profile serving 3.2 requires the digest');
  const unsigned = (body: string): Promise<SignatureVerdict> => judgeRequest(verifier, { method: 'POST', url, headers: { 'content-type': 'application/json' }, body });
  assert.is(((await unsigned(toolCall(url, 'create_media_buy', createMediaBuyRequest()).body)) as { code?: string }).code, 'request_signature_required', '001');
  assert.is(((await unsigned('{"jsonrpc":"2.0","method":"tasks/cancel","params":{"taskId":"t"},"id":1}')) as { code?: string }).code, 'request_signature_required', '028');
  // 016: the same signed request twice.
  const twice = signed(toolCall(url, 'create_media_buy', createMediaBuyRequest()), signers.get('test-es256-2026')!, { profile: 'legacy-3.1' });
  assert.ok((await verifier.verify(twice)).ok);
  assert.is(((await verifier.verify(twice)) as { code?: string }).code, 'request_signature_replayed');
  // 020: the test counterparty's cap is 100 nonces per key; test-ed25519-2026 holds 1 so far.
  const outcomes: string[] = [];
  for (let i = 0; i < 100; i++) outcomes.push(await by('test-ed25519-2026'));
  assert.is(outcomes.filter((o) => o.startsWith('signature')).length, 99);
  assert.is(outcomes.at(-1), 'request_signature_rate_abuse');
  await agent.close();
});

test.run();

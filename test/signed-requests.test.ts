import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AgentOptions, RequestSignatureVerifier, SignatureVerdict, SignedRequestInput, SignerTrust } from '../runtime/agent.js';
import { trustedKeys } from '../runtime/services/signing/keys.js';
import { signingPolicy } from '../runtime/services/signing/policy.js';
import { requestVerifier } from '../runtime/services/signing/verifier.js';
import { lazyStore } from '../runtime/stores/open.js';
import { setAt } from './helpers/generated.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot } from './helpers/releases.js';
import { freshKey, judgeRequest, signed, signingProfileSet, toolCall, type PlainRequest, type TestKey } from './helpers/signing.js';
import { tempDir } from './helpers/temp.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(
  /request signing: key "test-ed25519-[0-9a-f]+" holds 3 unexpired nonces/,
  /guaranteed-publisher keeps idempotency keys in memory/,
);

/**
 * Signed requests (RFC 9421) through the runtime's verifier, with requests signed by @adcp/sdk's own signer and keys
 * generated here: an agent generated from the guaranteed-publisher profile with `request_signing` added (AdCP 3.0.6,
 * content-digest required, create_media_buy required, update_media_buy shadowed), over the embedded store.
 * test/real/signed-requests.test.ts runs AdCP's conformance vectors over SQLite and PostgreSQL.
 */
const URL_ = 'https://seller.example/mcp';
const PROFILE = 'signing-publisher';
const generatedDir = await signingProfileSet();
const set = await setAt(generatedDir);
const buyer = freshKey('ed25519');
const buyerEs = freshKey('ecdsa-p256-sha256');
const TRUST: SignerTrust = { jwks: { keys: [buyer.jwk, buyerEs.jwk] }, agentUrl: 'https://buyer.example/mcp' };

type Agent = Awaited<ReturnType<typeof set.loadProfile>>;
const agentIn = (stateDir: string, requests: NonNullable<AgentOptions['signing']>['requests'] = { trust: [TRUST] }): Promise<Agent> =>
  set.loadProfile(PROFILE as never, { store: { stateDir }, signing: { requests } });
const verifierOf = (agent: Agent): RequestSignatureVerifier => agent.requestSignatures!;
const createMediaBuy = (): PlainRequest => toolCall(URL_, 'create_media_buy', createMediaBuyRequest());
const input = (r: PlainRequest, extra: Partial<SignedRequestInput> = {}): SignedRequestInput => ({ ...r, ...extra });
const code = (v: SignatureVerdict): string => (v.ok ? `ok:${v.authenticatedBy}` : v.code);

async function rejects(fn: () => Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await fn();
  } catch (e) {
    assert.match(String((e as Error).message), message);
    return;
  }
  assert.unreachable(`expected a rejection matching ${message}`);
}

test('a create_media_buy signed by @adcp/sdk with a fresh Ed25519 or ES256 key verifies: its signer is a principal of its own', async () => {
  const agent = await agentIn(tempDir());
  assert.is(verifierOf(agent).profile, 'legacy-3.1', 'a 3.0 profile verifies the legacy wire profile by default');
  for (const key of [buyer, buyerEs]) {
    const v = await judgeRequest(verifierOf(agent), input(signed(createMediaBuy(), key, { profile: 'legacy-3.1' })));
    assert.ok(v.ok && v.authenticatedBy === 'signature', JSON.stringify(v));
    if (v.ok && v.authenticatedBy === 'signature') {
      assert.equal({ keyid: v.signer.keyid, agent_url: v.signer.agent_url, principal: v.signer.principal }, { keyid: key.kid, agent_url: 'https://buyer.example/mcp', principal: 'https://buyer.example/mcp' });
    }
  }
  await agent.close();
});

test('a tampered body is request_signature_digest_mismatch; a body the signature does not bind is components_incomplete', async () => {
  const agent = await agentIn(tempDir());
  const s = signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' });
  const tampered = { ...s, body: s.body.replace('"create_media_buy"', '"create_media_buy" ') };
  assert.is.not(tampered.body, s.body);
  const v = await judgeRequest(verifierOf(agent), input(tampered));
  assert.is(code(v), 'request_signature_digest_mismatch');
  assert.ok(!v.ok && v.wwwAuthenticate === 'Signature error="request_signature_digest_mismatch"' && v.status === 401);
  // The profile says content-digest is required.
  assert.is(code(await judgeRequest(verifierOf(agent), input(signed(createMediaBuy(), buyer, { profile: 'legacy-3.1', coverDigest: false })))), 'request_signature_components_incomplete');
  await agent.close();
});

test('a replayed nonce is request_signature_replayed, on the same agent and on another agent sharing its state directory', async () => {
  const dir = tempDir();
  const [a, b] = await Promise.all([agentIn(dir), agentIn(dir)]);
  const s = signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' });
  assert.is(code(await judgeRequest(verifierOf(a), input(s))), 'ok:signature');
  assert.is(code(await judgeRequest(verifierOf(a), input(s))), 'request_signature_replayed');
  const t = signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' });
  assert.is(code(await judgeRequest(verifierOf(b), input(t))), 'ok:signature');
  assert.is(code(await judgeRequest(verifierOf(a), input(t))), 'request_signature_replayed', 'the other agent accepted it first');
  // Concurrently, one nonce is accepted once.
  const u = signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' });
  const verdicts = await Promise.all([a, b, a, b].map((x) => judgeRequest(verifierOf(x), input(u))));
  assert.equal(verdicts.map(code).sort(), ['ok:signature', 'request_signature_replayed', 'request_signature_replayed', 'request_signature_replayed']);
  await Promise.all([a.close(), b.close()]);
});

test('a key no trusted counterparty publishes is request_signature_key_unknown', async () => {
  const agent = await agentIn(tempDir());
  assert.is(code(await judgeRequest(verifierOf(agent), input(signed(createMediaBuy(), freshKey(), { profile: 'legacy-3.1' })))), 'request_signature_key_unknown');
  await agent.close();
});

/** A JWKS endpoint on 127.0.0.1 counting its fetches; `close()` makes it unreachable. */
async function jwksServer(keys: TestKey[], status = 200): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(JSON.stringify({ keys: keys.map((k) => k.jwk) }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}/.well-known/jwks.json`, hits: () => hits, close: () => new Promise((r) => server.close(() => r())) };
}

test('keys from a JWKS URL: fetched once and cached; an unreachable JWKS fails closed (request_signature_jwks_unavailable) and is not refetched per request', async () => {
  const jwks = await jwksServer([buyer]);
  const agent = await agentIn(tempDir(), { trust: [{ jwksUrl: jwks.url, principal: 'buyer-by-url' }], allowPrivateNetwork: true });
  const v = await judgeRequest(verifierOf(agent), input(signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' })));
  assert.ok(v.ok && v.authenticatedBy === 'signature' && v.signer.principal === 'buyer-by-url', JSON.stringify(v));
  assert.is(code(await judgeRequest(verifierOf(agent), input(signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' })))), 'ok:signature');
  assert.is(jwks.hits(), 1, 'cached');
  await jwks.close();
  await agent.close();

  // Unreachable (nothing listens), or answering 503: fail closed, retryable; asked again only after 30 s.
  const gone = await jwksServer([buyer]);
  await gone.close();
  const failing = await jwksServer([buyer], 503);
  for (const url of [gone.url, failing.url]) {
    const cold = await agentIn(tempDir(), { trust: [{ jwksUrl: url }], allowPrivateNetwork: true });
    for (let i = 0; i < 3; i++) {
      const r = await judgeRequest(verifierOf(cold), input(signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' })));
      assert.is(code(r), 'request_signature_jwks_unavailable');
      assert.ok(!r.ok && !r.detail.includes('/.well-known/'), `the detail names the host, not the URL: ${!r.ok && r.detail}`);
    }
    await cold.close();
  }
  assert.is(failing.hits(), 1, 'one fetch for three requests');
  await failing.close();
  // Without allowPrivateNetwork, a loopback http JWKS is refused by the SSRF guard: untrusted, not retried as transient.
  const guarded = await agentIn(tempDir(), { trust: [{ jwksUrl: 'http://127.0.0.1:9/jwks.json' }] });
  assert.is(code(await judgeRequest(verifierOf(guarded), input(signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' })))), 'request_signature_jwks_untrusted');
  await guarded.close();
});

test('the per-keyid cap: past it, a new nonce is request_signature_rate_abuse (step 9a), across endpoints', async () => {
  const agent = await agentIn(tempDir(), { trust: [{ ...TRUST, capPerKeyid: 3 }] });
  const urls = ['https://seller.example/mcp', 'https://seller.example/a2a', 'https://seller.example/mcp'];
  for (const url of urls) assert.is(code(await judgeRequest(verifierOf(agent), input(signed(toolCall(url, 'create_media_buy', createMediaBuyRequest()), buyer, { profile: 'legacy-3.1' })))), 'ok:signature');
  assert.is(code(await judgeRequest(verifierOf(agent), input(signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' })))), 'request_signature_rate_abuse');
  assert.is(code(await judgeRequest(verifierOf(agent), input(signed(createMediaBuy(), buyerEs, { profile: 'legacy-3.1' })))), 'ok:signature', 'another key has its own cap');
  await agent.close();
});

test('required_for: an unsigned create_media_buy is request_signature_required without other credentials, accepted with them; unrequired calls go on', async () => {
  const agent = await agentIn(tempDir());
  const r = await judgeRequest(verifierOf(agent), input(createMediaBuy()));
  assert.equal(r, { ok: false, status: 401, code: 'request_signature_required', wwwAuthenticate: 'Signature error="request_signature_required"', detail: (r as { detail: string }).detail });
  assert.is(code(await judgeRequest(verifierOf(agent), input(createMediaBuy(), { authenticated: true }))), 'ok:fallback');
  assert.is(code(await judgeRequest(verifierOf(agent), input(toolCall(URL_, 'get_products', { brief: 'x' })))), 'ok:none');
  assert.is(code(await judgeRequest(verifierOf(agent), input(toolCall(URL_, 'get_products', { brief: 'x' }), { authenticated: true }))), 'ok:fallback');
  // The same through A2A's message/send (the DataPart's skill), a JSON-RPC batch, and a REST-style operation.
  const a2a = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'data', data: { skill: 'create_media_buy', input: {} } }] } } });
  assert.is(code(await judgeRequest(verifierOf(agent), { method: 'POST', url: 'https://seller.example/a2a', headers: {}, body: a2a })), 'request_signature_required');
  const batch = JSON.stringify([JSON.parse(toolCall(URL_, 'get_products', {}).body), JSON.parse(createMediaBuy().body)]);
  assert.is(code(await judgeRequest(verifierOf(agent), { method: 'POST', url: URL_, headers: {}, body: batch })), 'request_signature_required');
  assert.is(code(await judgeRequest(verifierOf(agent), { method: 'POST', url: 'https://seller.example/create', headers: {}, body: '{}' }, 'create_media_buy')), 'request_signature_required');
  await agent.close();
});

test('webhook credentials in an unsigned body need a signature whatever the operation and other credentials (vector 027)', async () => {
  const agent = await agentIn(tempDir());
  const args = { media_buy_id: 'mb_1', push_notification_config: { url: 'https://buyer.example/hook', authentication: { schemes: ['Bearer'], credentials: 'x'.repeat(40) } } };
  assert.is(code(await judgeRequest(verifierOf(agent), input(toolCall(URL_, 'update_media_buy', args), { authenticated: true }))), 'request_signature_required');
  await agent.close();
});

test('warn_for (shadow mode): a failed signature falls back to other credentials with a warning and no signer; without them it is refused', async () => {
  const agent = await agentIn(tempDir());
  const update = toolCall(URL_, 'update_media_buy', { media_buy_id: 'mb_1', paused: true });
  const stranger = freshKey();
  assert.equal(await judgeRequest(verifierOf(agent), input(signed(update, stranger, { profile: 'legacy-3.1' }), { authenticated: true })), { ok: true, authenticatedBy: 'fallback', warning: 'request_signature_key_unknown' });
  assert.is(code(await judgeRequest(verifierOf(agent), input(signed(update, stranger, { profile: 'legacy-3.1' })))), 'request_signature_key_unknown');
  // A signed required_for operation is judged on its merits: other credentials do not save a bad signature.
  assert.is(code(await judgeRequest(verifierOf(agent), input(signed(createMediaBuy(), stranger, { profile: 'legacy-3.1' }), { authenticated: true }))), 'request_signature_key_unknown');
  // A malformed pair never falls back.
  const { Signature: _s, ...half } = signed(update, buyer, { profile: 'legacy-3.1' }).headers;
  assert.is(code(await judgeRequest(verifierOf(agent), { ...update, headers: half, authenticated: true })), 'request_signature_header_malformed');
  await agent.close();
});

test('the signed authority is the one received: a Host naming another vhost is request_target_uri_malformed', async () => {
  const agent = await agentIn(tempDir());
  const s = signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' });
  assert.is(code(await judgeRequest(verifierOf(agent), input({ ...s, headers: { ...s.headers, host: 'other.example' } }))), 'request_target_uri_malformed');
  assert.is(code(await judgeRequest(verifierOf(agent), input({ ...s, headers: { ...s.headers, host: 'seller.example:443' } }))), 'ok:signature', 'the default port is the same authority');
  await agent.close();
});

test('the 3.2 profile: sf-binary only, content-digest on every signed body; the legacy profile takes the legacy alphabet', async () => {
  const dir = tempDir();
  const policy = { supported: true, covers_content_digest: 'required', required_for: ['create_media_buy'], protocol_methods_required_for: ['tasks/cancel'] };
  const clock = (): number => Math.floor(Date.now() / 1000);
  const store = lazyStore({ stateDir: dir }, 'signing');
  const strict = requestVerifier({ policy: signingPolicy(policy, { releaseBelow32: false, where: 'test' }), keys: trustedKeys({ trust: [TRUST] }, clock), store, clock });
  assert.is(strict.profile, '3.2');
  assert.is(code(await judgeRequest(strict, input(signed(createMediaBuy(), buyer, { profile: '3.2' })))), 'ok:signature');
  assert.is(code(await judgeRequest(strict, input(signed(createMediaBuy(), buyer, { profile: '3.2', nonce: 'n-with_underscore-and-dash_0123456789' })))), 'ok:signature', 'a nonce is a string, not binary');
  // The legacy alphabet: a signature whose Base64URL spelling uses '-' or '_' (most do) is no sf-binary.
  let legacy = signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' });
  while (!/[-_]/.test(legacy.headers['Signature']!.split(':')[1]!)) legacy = signed(createMediaBuy(), buyer, { profile: 'legacy-3.1' });
  assert.is(code(await judgeRequest(strict, input(legacy))), 'request_signature_header_malformed');
  // A 3.2 signer signs a body-less request without a digest.
  assert.is(code(await judgeRequest(strict, input(signed({ method: 'GET', url: URL_, headers: { host: 'seller.example' }, body: '' }, buyer, { profile: '3.2', coverDigest: false })))), 'ok:signature');
  // protocol_methods_required_for (vector 028's rule).
  const cancel = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/cancel', params: { taskId: 't1' } });
  assert.is(code(await judgeRequest(strict, { method: 'POST', url: URL_, headers: {}, body: cancel })), 'request_signature_required');
  // A 3.2 endpoint cannot advertise a legacy digest posture; a legacy one may.
  // A profile serving 3.2 advertises "required" whatever verifies it (its 3.2 capabilities schema says so); a legacy
  // posture belongs to an endpoint serving 3.0/3.1 only, where a 3.2 verifier still needs "required".
  const either = { ...policy, covers_content_digest: 'either' };
  assert.throws(() => signingPolicy(either, { releaseBelow32: false, where: 'test' }), /serves AdCP 3\.2/);
  assert.throws(() => signingPolicy(either, { profile: 'legacy-3.1', releaseBelow32: false, where: 'test' }), /serves AdCP 3\.2/);
  assert.throws(() => signingPolicy(either, { profile: '3.2', releaseBelow32: true, where: 'test' }), /legacy-3\.1/);
  assert.is(signingPolicy(either, { releaseBelow32: true, where: 'test' }).digest, 'either');
  assert.is(signingPolicy({ ...policy, covers_content_digest: 'required' }, { profile: 'legacy-3.1', releaseBelow32: false, where: 'test' }).digest, 'required');
  await store.close();
});

test('configuration: trust is checked at start; signing options for a profile that does not advertise it fail the start', async () => {
  const dir = tempDir();
  await rejects(() => agentIn(dir, { trust: [{ jwks: { keys: [buyer.jwk] }, jwksUrl: 'https://x.example/jwks' }] }), /exactly one key source/);
  await rejects(() => agentIn(dir, { trust: [{ jwks: { keys: [buyer.signer.privateKey as never] } }] }), /private member/);
  await rejects(() => agentIn(dir, { trust: [{ jwks: join(dir, 'missing.json') }] }), /cannot be read/);
  const { loadProfile } = await setAt(join(repoRoot, 'generated'));
  await rejects(() => loadProfile('guaranteed-publisher', { store: 'memory', signing: { requests: { trust: [TRUST] } } }), /does not advertise supported: true/);
  const plain = await loadProfile('guaranteed-publisher', { store: 'memory' });
  assert.is(plain.requestSignatures, undefined, 'a profile without request_signing has no verifier: signatures are ignored');
  await plain.close();
});

test('an unsigned request never loads the SDK verifier (about a second): only a signed one does', () => {
  const script = `
    const { createRequire } = await import('node:module');
    const { loadProfile } = await import(${JSON.stringify(pathToFileURL(join(generatedDir, 'index.js')).href)});
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/signing/server.js'));
    const agent = await loadProfile(${JSON.stringify(PROFILE)}, { store: 'memory', signing: { requests: { trust: [] } } });
    const unsigned = await agent.requestSignatures.verify({ method: 'POST', url: 'https://s.example/mcp', headers: {}, body: ${JSON.stringify(createMediaBuy().body)}, authenticated: true });
    const before = loaded();
    const signed = await agent.requestSignatures.verify({ method: 'POST', url: 'https://s.example/mcp', headers: { 'signature-input': 'sig1=("@method");keyid="k"', signature: 'sig1=:AA==:' }, body: '' });
    console.log(JSON.stringify({ unsigned: unsigned.authenticatedBy, before, signed: signed.code, after: loaded() }));
    await agent.close();
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout.trim().split('\n').pop()!), { unsigned: 'fallback', before: false, signed: 'request_signature_params_incomplete', after: true });
});

test.run();

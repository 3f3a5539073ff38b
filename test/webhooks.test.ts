import { createHmac, generateKeyPairSync } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lazyStore } from '../runtime/stores/open.js';
import { signingKeys } from '../runtime/services/keys/keys.js';
import { webhookOutbox } from '../runtime/services/webhooks/outbox.js';
import { outcomeOf } from '../runtime/services/webhooks/schedule.js';
import { committedSet, setAt } from './helpers/generated.js';
import { tempDir } from './helpers/temp.js';
import { startReceiver, type Received, type Receiver } from './helpers/webhook-receiver.js';
import { webhookSet } from './helpers/webhook-set.js';
import { expectWarnings } from './helpers/warnings.js';
import { verifySigned } from './helpers/verify-webhook.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(
  /hooks-sandbox keeps idempotency keys in memory/,
  /hooks-sandbox: webhook whe_\S+ to 127\.0\.0\.1:\d+ failed/,
  /hooks-sandbox: a webhook to 127\.0\.0\.1:\d+ uses the buyer's legacy HMAC-SHA256/,
  /hooks-sandbox: a webhook to 127\.0\.0\.1:\d+ uses the buyer's legacy Bearer/,
  /hooks-production: webhook whe_\S+ to 169\.254\.169\.254/,
  /hooks-production: webhook whe_\S+ to 127\.0\.0\.1:\d+/,
  /hooks-production advertises webhook_signing but no identity\.brand_json_url/,
  /guaranteed-publisher keeps idempotency keys in memory/,
);

/**
 * The webhook outbox over the embedded store (webhooks.mdx, Reliability; security.mdx, Webhook callbacks and Webhook
 * URL validation), delivering to a real node:http receiver on 127.0.0.1: signatures verify with @adcp/sdk's own
 * verifier against the JWKS the agent publishes; a key per event, the same on every attempt; retries on 5xx, none
 * after a 4xx; the legacy HMAC only when asked; the production SSRF policy refuses loopback and http; two workers on
 * one state directory deliver each event once. test/real/webhooks.test.ts does the same over PostgreSQL with two
 * agent processes and a kill -9.
 */
const { loadProfile } = await setAt(await webhookSet());
type Options = NonNullable<Parameters<typeof loadProfile>[1]>;
type Agent = Awaited<ReturnType<typeof loadProfile>>;
/** Quick retries: the schedule's shape is tested on its own below. */
const FAST = { pollIntervalMs: 50, initialBackoffMs: 40, maxBackoffMs: 200 };
const sandbox = async (stateDir = tempDir(), options: Options = {}): Promise<Agent> => {
  const agent = await loadProfile('hooks-sandbox' as never, { store: { stateDir }, webhooks: FAST, ...options });
  await agent.ready();
  return agent;
};

const nonceOf = (r: Received): string => /nonce="([^"]+)"/.exec(String(r.headers['signature-input']))![1]!;
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The event's record once its outcome is written (the receiver sees a delivery before the worker records it). */
async function outcome(agent: Pick<Agent, 'webhooks'>, eventId: string, timeoutMs = 10_000) {
  for (const end = Date.now() + timeoutMs; ; await settle(20)) {
    const record = await agent.webhooks.delivery(eventId);
    if (record !== undefined && record.state !== 'pending') return record;
    if (Date.now() > end) throw new Error(`event ${eventId} is still ${record?.state ?? 'unknown'} after ${timeoutMs} ms`);
  }
}

let receiver: Receiver;
test.before(async () => {
  receiver = await startReceiver();
});
test.after(async () => {
  await receiver.close();
});

test('a delivered event: the frozen body (idempotency_key, operation_id, timestamp), RFC 9421 signed, verified against the published JWKS', async () => {
  const agent = await sandbox();
  const path = '/hooks/create_media_buy/route_a1';
  const payload = { task_id: 'task_1', task_type: 'create_media_buy', protocol: 'media-buy', status: 'completed', result: { media_buy_id: 'mb_1', context: { correlation_id: 'c-1' } } };
  const queued = await agent.webhooks.enqueue({ url: `${receiver.base}${path}`, operationId: 'op_echo_123', dedupeKey: 'task:task_1:completed', payload });
  assert.ok(queued.enqueued);
  assert.match(queued.idempotencyKey, /^whk_[0-9a-f]{32}$/);
  await receiver.until((all) => all.some((r) => r.path === path));
  const [got] = receiver.received.filter((r) => r.path === path);
  assert.is(got!.method, 'POST');
  assert.is(got!.headers['content-type'], 'application/json');
  assert.match(String(got!.headers['signature-input']), /^sig1=\("@method" "@target-uri" "@authority" "content-type" "content-digest"\);created=\d+;expires=\d+;nonce="[^"]+";keyid="adcp-dev-[0-9a-f]{12}";alg="ed25519";tag="adcp\/webhook-signing\/v1"$/);
  assert.match(await verifySigned(agent, got!), /^adcp-dev-/);
  const body = got!.json;
  assert.is(body.idempotency_key, queued.idempotencyKey);
  assert.is(body.operation_id, 'op_echo_123', 'the buyer\'s operation_id, verbatim');
  assert.match(String(body.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal({ ...body, idempotency_key: undefined, operation_id: undefined, timestamp: undefined }, { ...payload, idempotency_key: undefined, operation_id: undefined, timestamp: undefined });
  const record = await outcome(agent, queued.eventId);
  assert.is(record!.state, 'delivered');
  assert.is(record!.attempts, 1);
  assert.is(record!.lastStatus, 200);
  assert.is(record!.body, got!.body, 'the bytes sent are the bytes frozen at enqueue');
  // The same logical event again (a replayed call): nothing enqueued, the first's ids.
  const again = await agent.webhooks.enqueue({ url: `${receiver.base}${path}`, operationId: 'op_echo_123', dedupeKey: 'task:task_1:completed', payload });
  assert.equal(again, { enqueued: false, eventId: queued.eventId, idempotencyKey: queued.idempotencyKey });
  await settle(300);
  assert.is(receiver.received.filter((r) => r.path === path).length, 1, 'one delivery per logical event');
  await agent.close();
});

test('503, 503, 200: one event, three attempts, the same idempotency_key and body on each, a fresh signature nonce each time', async () => {
  const agent = await sandbox();
  const path = '/hooks/retry';
  receiver.script(path, [503, { status: 503, headers: { 'retry-after': '0' } }, 200]);
  const queued = await agent.webhooks.enqueue({ url: `${receiver.base}${path}`, operationId: 'op_retry', dedupeKey: 'retry:1', payload: { task_id: 't2', task_type: 'create_media_buy', status: 'completed' } });
  await receiver.until((all) => all.filter((r) => r.path === path).length >= 3);
  await settle(300);
  const got = receiver.received.filter((r) => r.path === path);
  assert.equal(got.map((r) => r.status), [503, 503, 200], 'no attempt after the 200');
  assert.equal([...new Set(got.map((r) => r.json.idempotency_key))], [queued.idempotencyKey]);
  assert.equal([...new Set(got.map((r) => r.body))].length, 1, 'byte for byte the same body, timestamp included');
  assert.is(new Set(got.map(nonceOf)).size, 3, 'a fresh nonce per attempt');
  for (const r of got) await verifySigned(agent, r);
  const record = await outcome(agent, queued.eventId);
  assert.equal([record!.state, record!.attempts, record!.lastStatus], ['delivered', 3, 200]);
  await agent.close();
});

test('a 4xx stops at once (400; 401 Signature error="webhook_*"; 409); a 3xx is never followed; 429 and 5xx are retried', async () => {
  const agent = await sandbox();
  const cases: [string, (number | { status: number; headers: Record<string, string> })[], string, number][] = [
    ['/hooks/400', [400], 'failed', 1],
    ['/hooks/401', [{ status: 401, headers: { 'www-authenticate': 'Signature error="webhook_signature_key_unknown"' } }], 'failed', 1],
    ['/hooks/409', [409], 'failed', 1],
    ['/hooks/307', [{ status: 307, headers: { location: 'http://169.254.169.254/' } }], 'failed', 1],
    ['/hooks/429', [429, 500, 204], 'delivered', 3],
  ];
  const ids: string[] = [];
  for (const [path, answers] of cases) {
    receiver.script(path, answers, 500);
    ids.push((await agent.webhooks.enqueue({ url: `${receiver.base}${path}`, dedupeKey: `stop:${path}`, payload: { task_id: path, task_type: 'create_media_buy', status: 'failed' } })).eventId);
  }
  await receiver.until((all) => cases.every(([path, , , n]) => all.filter((r) => r.path === path).length >= n));
  await settle(400);
  for (const [i, [path, , state, attempts]] of cases.entries()) {
    assert.is(receiver.received.filter((r) => r.path === path).length, attempts, path);
    const record = await outcome(agent, ids[i]!);
    assert.equal([record!.state, record!.attempts], [state, attempts], path);
  }
  assert.match(String((await agent.webhooks.delivery(ids[1]!))!.lastError), /webhook_signature_key_unknown/);
  assert.match(String((await agent.webhooks.delivery(ids[3]!))!.lastError), /redirects are not followed/);
  await agent.close();
});

test('legacy authentication only when the buyer asks: HMAC-SHA256 over "<ts>.<body>", or Bearer; no RFC 9421 headers then', async () => {
  const agent = await sandbox();
  const secret = 'buyer-shared-secret-0123456789abcdef';
  const hmac = await agent.webhooks.enqueue({ url: `${receiver.base}/hooks/hmac`, dedupeKey: 'hmac:1', payload: { task_id: 't', task_type: 'create_media_buy', status: 'completed' }, authentication: { schemes: ['HMAC-SHA256'], credentials: secret } });
  await agent.webhooks.enqueue({ url: `${receiver.base}/hooks/bearer`, dedupeKey: 'bearer:1', payload: { task_id: 't', task_type: 'create_media_buy', status: 'completed' }, authentication: { schemes: ['Bearer'], credentials: secret } });
  await receiver.until((all) => all.some((r) => r.path === '/hooks/hmac') && all.some((r) => r.path === '/hooks/bearer'));
  const h = receiver.received.find((r) => r.path === '/hooks/hmac')!;
  const ts = String(h.headers['x-adcp-timestamp']);
  assert.match(ts, /^\d+$/);
  assert.is(h.headers['x-adcp-signature'], `sha256=${createHmac('sha256', secret).update(`${ts}.${h.body}`).digest('hex')}`);
  assert.is(h.headers.signature, undefined, 'one mode, never both');
  assert.is(h.headers['signature-input'], undefined);
  const b = receiver.received.find((r) => r.path === '/hooks/bearer')!;
  assert.is(b.headers.authorization, `Bearer ${secret}`);
  assert.is(b.headers.signature, undefined);
  const record = await outcome(agent, hmac.eventId);
  assert.is(record!.authMode, 'hmac_sha256');
  assert.not.ok(JSON.stringify(record).includes(secret), 'the credentials are never read back');
  // A profile that does not offer the legacy scheme refuses it at enqueue, without echoing the credentials.
  const prod = await loadProfile('hooks-production' as never, { store: 'memory', mode: 'development', webhooks: FAST });
  const e = await prod.webhooks.enqueue({ url: `${receiver.base}/x`, dedupeKey: 'x', payload: {}, authentication: { schemes: ['HMAC-SHA256'], credentials: secret } }).catch((x: Error) => x);
  assert.match((e as Error).message, /is not offered by this agent/);
  assert.not.ok((e as Error).message.includes(secret));
  await prod.close();
  await agent.close();
});

test('the production SSRF policy refuses loopback and http receivers for good, before anything is sent', async () => {
  const key = { ...(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'prod-1' };
  const agent = await loadProfile('hooks-production' as never, { store: { stateDir: tempDir() }, signing: { key: key as never }, webhooks: FAST });
  await agent.ready();
  const before = receiver.received.length;
  const port = new URL(receiver.base).port;
  const urls = [`${receiver.base}/hooks/prod`, `https://127.0.0.1:${port}/hooks/prod`, `https://169.254.169.254/latest/meta-data`];
  const ids = [];
  for (const [i, url] of urls.entries()) ids.push((await agent.webhooks.enqueue({ url, dedupeKey: `ssrf:${i}`, payload: { task_id: 't', task_type: 'create_media_buy', status: 'completed' } })).eventId);
  for (const id of ids) {
    const record = await outcome(agent, id);
    assert.is(record.state, 'failed', record.url);
    assert.is(record.attempts, 1);
    assert.match(String(record.lastError), /refused by the SSRF policy: EADCP_SSRF_BLOCKED/);
  }
  await settle(200);
  assert.is(receiver.received.length, before, 'nothing reached the receiver');
  await agent.close();
});

test('two workers on one state directory deliver every event exactly once', async () => {
  const stateDir = tempDir();
  const [a, b] = [await sandbox(stateDir, { webhooks: { ...FAST, concurrency: 4 } }), await sandbox(stateDir, { webhooks: { ...FAST, concurrency: 4 } })];
  const path = '/hooks/pair';
  const n = 60;
  const keys = new Set<string>();
  for (let i = 0; i < n; i++) keys.add((await (i % 2 === 0 ? a : b).webhooks.enqueue({ url: `${receiver.base}${path}`, dedupeKey: `pair:${i}`, payload: { task_id: `t${i}`, task_type: 'create_media_buy', status: 'completed' } })).idempotencyKey);
  await receiver.until((all) => all.filter((r) => r.path === path).length >= n);
  await settle(500);
  const got = receiver.received.filter((r) => r.path === path).map((r) => String(r.json.idempotency_key));
  assert.is(got.length, n, 'no event twice');
  assert.equal(new Set(got), keys);
  await Promise.all([a.close(), b.close()]);
});

test('a process that only enqueues (deliver: false) leaves its events to one that delivers; the retry horizon is the profile\'s', async () => {
  const stateDir = tempDir();
  const producer = await sandbox(stateDir, { webhooks: { ...FAST, deliver: false } });
  const queued = await producer.webhooks.enqueue({ url: `${receiver.base}/hooks/handoff`, dedupeKey: 'handoff:1', payload: { task_id: 'h', task_type: 'create_media_buy', status: 'completed' } });
  await settle(300);
  assert.not.ok(receiver.received.some((r) => r.path === '/hooks/handoff'), 'nothing delivered by the producer');
  const deliverer = await sandbox(stateDir);
  assert.is((await outcome(deliverer, queued.eventId)).state, 'delivered');
  assert.is(receiver.received.filter((r) => r.path === '/hooks/handoff').length, 1);
  await Promise.all([producer.close(), deliverer.close()]);
  const e = await loadProfile('hooks-sandbox' as never, { store: 'memory', webhooks: { retryHorizonSeconds: 172_800 } }).then(() => undefined, (x: Error) => x);
  assert.match(e!.message, /declares webhook_signing.delivery_retry_horizon_seconds 86400, but the agent is configured with webhooks.retryHorizonSeconds 172800/);
});

test('enqueue inside the caller\'s transaction: rolled back, nothing is delivered; committed, it is', async () => {
  const store = lazyStore({ stateDir: tempDir() }, 'tx-test');
  const keys = signingKeys(store, { profile: 'tx-test', sandbox: true });
  const outbox = webhookOutbox(store, keys, { profile: 'tx-test', sandbox: true, legacyAuth: false, deliver: true, horizonMs: 86_400_000, pollMs: 50, concurrency: 4, timeoutMs: 5000, initialMs: 40, maxMs: 200 });
  await outbox.start();
  const sql = await store.open();
  const url = `${receiver.base}/hooks/tx`;
  const undone = await sql
    .transaction(async (tx) => {
      await outbox.enqueue({ url, dedupeKey: 'tx:rolled-back', payload: { task_id: 'rb', task_type: 'create_media_buy', status: 'completed' } }, tx);
      throw new Error('the state change failed');
    })
    .catch((e: Error) => e.message);
  assert.is(undone, 'the state change failed');
  const kept = await sql.transaction((tx) => outbox.enqueue({ url, dedupeKey: 'tx:committed', payload: { task_id: 'ok', task_type: 'create_media_buy', status: 'completed' } }, tx));
  outbox.wake();
  await receiver.until((all) => all.some((r) => r.path === '/hooks/tx'));
  await settle(200);
  assert.equal(receiver.received.filter((r) => r.path === '/hooks/tx').map((r) => r.json.task_id), ['ok']);
  assert.is((await outcome({ webhooks: outbox }, kept.eventId)).state, 'delivered');
  await outbox.stop();
  await store.close();
});

test('push registration checks: https and public addresses outside a sandbox; INVALID_REQUEST naming the field; legacy auth as offered', async () => {
  const key = { ...(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'prod-2' };
  const prod = await loadProfile('hooks-production' as never, { store: 'memory', signing: { key: key as never } });
  const refused = async (url: unknown, expected: RegExp) => {
    const e = await prod.webhooks.checkPushUrl(url);
    assert.ok(e !== undefined, `refused: ${String(url)}`);
    assert.is(e!.code, 'INVALID_REQUEST');
    assert.is(e!.field, 'push_notification_config.url');
    assert.is(e!.recovery, 'correctable');
    assert.match(e!.message, expected);
  };
  await refused('http://buyer.example/hook', /push_notification_config.url must be an https URL/);
  await refused('https://127.0.0.1/hook', /must not point at a private, loopback/);
  await refused('https://[::1]/hook', /loopback/);
  await refused('https://10.1.2.3/hook', /private/);
  await refused('https://169.254.169.254/latest', /private/);
  await refused('https://[::ffff:127.0.0.1]/hook', /private/);
  await refused('https://metadata.google.internal/x', /cloud metadata/);
  await refused('https://localhost/hook', /loopback/);
  await refused('https://user:pw@buyer.example/hook', /must not carry credentials/);
  await refused('not a url', /is not a URL/);
  await refused(42, /must be a URL/);
  assert.is(await prod.webhooks.checkPushUrl('https://8.8.8.8/hook'), undefined, 'a public address literal');
  await refused('https://203.0.113.10/hook', /special-purpose/); // TEST-NET-3: documentation, never a receiver
  const auth = await prod.webhooks.checkPushConfig({ url: 'https://8.8.8.8/hook', authentication: { schemes: ['HMAC-SHA256'], credentials: 'x'.repeat(40) } });
  assert.equal([auth?.code, auth?.field], ['INVALID_REQUEST', 'push_notification_config.authentication']);
  assert.not.ok(auth!.message.includes('x'.repeat(40)));
  await prod.close();
  const sand = await loadProfile('hooks-sandbox' as never, { store: 'memory' });
  assert.is(await sand.webhooks.checkPushUrl(`${receiver.base}/hook`), undefined, 'a sandbox takes loopback http receivers');
  assert.match((await sand.webhooks.checkPushUrl('http://10.0.0.1/hook'))!.message, /private/);
  assert.is(await sand.webhooks.checkPushConfig({ url: `${receiver.base}/hook`, authentication: { schemes: ['HMAC-SHA256'], credentials: 'y'.repeat(32) } }), undefined);
  assert.match((await sand.webhooks.checkPushConfig({ url: `${receiver.base}/hook`, authentication: { schemes: ['HMAC-SHA256'], credentials: 'short' } }))!.message, /at least 32 characters/);
  await sand.close();
  // An agent that delivers no webhooks refuses a registration it could not honour.
  const plain = await (await committedSet()).loadProfile('guaranteed-publisher', { store: 'memory' });
  assert.match((await plain.webhooks.checkPushUrl('https://buyer.example/hook'))!.message, /does not deliver webhooks/);
  assert.match(await plain.webhooks.enqueue({ url: 'https://buyer.example', dedupeKey: 'x', payload: {} }).then(() => '', (e: Error) => e.message), /delivers no webhooks/);
  await plain.close();
});

test('the retry schedule: 1 s doubling with jitter, Retry-After honoured, retried until a minute before the horizon and never after', () => {
  const b = { horizonMs: 86_400_000, initialMs: 1000, maxMs: 900_000 };
  const retry = { kind: 'retry' as const, status: 503, error: 'HTTP 503' };
  let t = 0;
  const times = [0];
  for (let attempt = 1; ; attempt++) {
    const o = outcomeOf(retry, attempt, t, 0, b, 0.5);
    if (o.state !== 'pending') {
      assert.is(o.state, 'failed');
      assert.match(String(o.error), /retry horizon \(86400 s from the first attempt\) ended/);
      break;
    }
    t = o.next;
    times.push(t);
  }
  assert.equal(times.slice(0, 5), [0, 1000, 3000, 7000, 15000]);
  assert.is(times.at(-1), 86_400_000 - 60_000, 'the last attempt a minute before the horizon');
  assert.ok(times.every((x, i) => i === 0 || x - times[i - 1]! <= 900_000), 'no gap over the longest backoff');
  assert.is(outcomeOf(retry, 1, 0, 0, b, 0).state === 'pending' && (outcomeOf(retry, 1, 0, 0, b, 0) as { next: number }).next, 750, '-25% jitter');
  assert.is((outcomeOf({ ...retry, retryAfterMs: 120_000 }, 1, 0, 0, b, 0.5) as { next: number }).next, 120_000, 'Retry-After when longer');
  assert.equal(outcomeOf({ kind: 'terminal', status: 400, error: 'HTTP 400' }, 1, 0, 0, b), { state: 'failed', status: 400, error: 'HTTP 400' });
  assert.equal(outcomeOf({ kind: 'delivered', status: 204 }, 2, 5, 0, b), { state: 'delivered', status: 204 });
});

test.run();

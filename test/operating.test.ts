import { request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { captureLog } from './helpers/log-capture.js';
import { committedSet, exampleHandlers, type SellerHandlers } from './helpers/generated.js';
import { http, rpc, toolsCall } from './helpers/http.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { tempDir } from './helpers/temp.js';

/**
 * Operating an agent (issue 40 points 1–3 and 5, docs/operating.md) on the embedded store, over the product's HTTP
 * entry and real sockets: the probes, one log line per call with what an operator reads, and the drain of close():
 * readiness off, calls in flight finished, no new connection, the idempotency claim completed (a later instance on
 * the same state replays it). test/operating-process.test.ts drives the same in agent processes (SIGTERM, secrets).
 */
const { loadProfile, apiKeyAuth } = await committedSet();
const KEY = 'sk_operating_test_0001';
const authenticate = apiKeyAuth({ [KEY]: { principal: 'buyer-ops' } });
const auth = { authorization: `Bearer ${KEY}` };
const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function started(options: { delayMs?: number; drainDelayMs?: number; stateDir?: string } = {}) {
  const log = captureLog();
  const stateDir = options.stateDir ?? tempDir();
  const agent = await loadProfile('guaranteed-publisher', { store: { stateDir }, logger: log.logger });
  const base = (await exampleHandlers(agent)) as SellerHandlers;
  const handlers: SellerHandlers = {
    ...base,
    create_media_buy: async (args, ctx) => {
      await sleep(options.delayMs ?? 0);
      return base.create_media_buy(args, ctx);
    },
  };
  const served = await agent.serve(handlers as never, { port: 0, authenticate, handleSignals: false, drainDelayMs: options.drainDelayMs ?? 0 });
  return { served, log, stateDir, base: `http://127.0.0.1:${served.port}` };
}

test('/healthz is live, /readyz ready with the store answering; both public, GET and HEAD only', async () => {
  const { served, base } = await started();
  try {
    const live = await http(`${base}/healthz`);
    assert.is(live.status, 200);
    assert.equal(JSON.parse(live.text), { status: 'ok' });
    const ready = await http(`${base}/readyz`);
    assert.is(ready.status, 200, ready.text);
    assert.equal(JSON.parse(ready.text), { status: 'ready' });
    assert.is(ready.headers['cache-control'], 'no-store');
    assert.is((await http(`${base}/readyz`, { method: 'HEAD' })).status, 200);
    assert.is((await http(`${base}/readyz`, { method: 'POST', body: '{}' })).status, 405);
  } finally {
    await served.close();
  }
});

test('one log line per call: tool, release, principal, outcome or error code, duration, replayed, request id', async () => {
  const { served, log } = await started();
  try {
    const request = createMediaBuyRequest({ account: { account_id: 'acc_1' } });
    const first = await rpc(served.url, toolsCall('create_media_buy', request), { ...auth, traceparent: TRACEPARENT });
    assert.is(first.status, 200, first.text);
    await rpc(served.url, toolsCall('create_media_buy', request), { ...auth, 'x-request-id': 'req-42' });
    const rejected = await rpc(served.url, toolsCall('create_media_buy', { ...request, idempotency_key: 'short' }), auth);
    assert.match(rejected.text, /INVALID_REQUEST/);
    await rpc(served.url, toolsCall('get_adcp_capabilities', {}));
    const calls = log.lines.filter((l) => l.event === 'call');
    assert.is(calls.length, 4, JSON.stringify(calls));
    assert.ok(calls.every((l) => l.level === 'info' && l.msg === 'call'), 'calls and rejections at info');
    const [made, replayed, refused, open] = calls;
    assert.equal(pick(made!), { tool: 'create_media_buy', release: '3.0', principal: 'buyer-ops', outcome: 'pending_creatives', replayed: false, request_id: '4bf92f3577b34da6a3ce929d0e0e4736' });
    assert.equal(pick(replayed!), { tool: 'create_media_buy', release: '3.0', principal: 'buyer-ops', outcome: 'pending_creatives', replayed: true, request_id: 'req-42' });
    assert.equal(refused!.error_code, 'INVALID_REQUEST');
    assert.is(refused!.outcome, 'failed');
    assert.is(open!.principal, null);
    assert.match(String(open!.request_id), /^[0-9a-f-]{36}$/, 'a request id of its own when the caller sent none');
    assert.ok(calls.every((l) => typeof l.duration_ms === 'number' && (l.duration_ms as number) >= 0));
  } finally {
    await served.close();
  }
});

test('the start line names the profile, releases, tools, transports and paths, the store and the authentication', async () => {
  const { served, log, stateDir, base } = await started();
  await served.close();
  const [line] = log.lines.filter((l) => l.event === 'listening');
  assert.ok(line !== undefined);
  assert.is(line.level, 'info');
  assert.equal(
    { profile: line.profile, mode: line.mode, releases: line.releases, mcp: line.mcp, a2a: line.a2a, store: line.store, authentication: line.authentication },
    { profile: 'guaranteed-publisher', mode: 'production', releases: ['3.0'], mcp: `${base}/mcp`, a2a: `${base}/a2a`, store: `SQLite in ${stateDir}`, authentication: 'Bearer' },
  );
  assert.ok((line.tools as number) > 5);
  assert.match(line.msg, new RegExp(`serving MCP at ${base}/mcp and A2A at ${base}/a2a — AdCP 3\\.0, \\d+ tools; store: SQLite in .*; authentication: Bearer$`));
  assert.equal(log.messages('stopped'), ['adcp-codegen: guaranteed-publisher stopped']);
});

test('close() drains: readiness answers draining, the call in flight finishes, then no new connection; its claim was completed', async () => {
  const { served, log, stateDir, base } = await started({ delayMs: 600, drainDelayMs: 300 });
  const request = createMediaBuyRequest({ account: { account_id: 'acc_1' } });
  const inFlight = rpc(served.url, toolsCall('create_media_buy', request), auth);
  await sleep(150);
  const closing = served.close();
  const ready = await http(`${base}/readyz`);
  assert.is(ready.status, 503);
  assert.equal(JSON.parse(ready.text), { status: 'not_ready', reason: 'draining' });
  const answered = await inFlight;
  assert.is(answered.status, 200);
  const body = JSON.parse(answered.text).result.structuredContent;
  assert.match(body.media_buy_id, /^mb_/, answered.text);
  await closing;
  assert.ok(await refused(base), 'no new connection once drained');
  assert.equal(log.messages('drain_deadline'), []);
  assert.match(log.messages('draining')[0]!, /draining: 1 call\(s\) in flight/);

  // The claim was completed by the answer: another instance on the same state replays it, never running it again.
  const again = await started({ stateDir });
  try {
    const replay = JSON.parse((await rpc(again.served.url, toolsCall('create_media_buy', request), auth)).text).result.structuredContent;
    assert.is(replay.media_buy_id, body.media_buy_id);
    assert.is(replay.replayed, true);
  } finally {
    await again.served.close();
  }
});

test('past the drain deadline a call still running is cut, said at warn, and the store released all the same', async () => {
  const log = captureLog();
  const agent = await loadProfile('guaranteed-publisher', { store: { stateDir: tempDir() }, logger: log.logger });
  const base = (await exampleHandlers(agent)) as SellerHandlers;
  const served = await agent.serve({ ...base, create_media_buy: () => new Promise(() => undefined) } as never, { port: 0, authenticate, handleSignals: false, drainTimeoutMs: 200 });
  const hung = rpc(served.url, toolsCall('create_media_buy', createMediaBuyRequest({ account: { account_id: 'acc_1' } })), auth).then(
    (r) => r.status,
    () => 'cut',
  );
  await sleep(100);
  const t0 = performance.now();
  await served.close();
  assert.ok(performance.now() - t0 < 5_000);
  assert.is(await hung, 'cut');
  assert.equal(log.messages('drain_deadline'), ['adcp-codegen: guaranteed-publisher: 1 call(s) still running at the drain deadline were cut']);
});

function pick(line: Record<string, unknown>): Record<string, unknown> {
  const { tool, release, principal, outcome, replayed, request_id } = line;
  return { tool, release, principal, outcome, replayed, request_id };
}

function refused(base: string): Promise<boolean> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, path: '/healthz', agent: false }, () => resolve(false));
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
    req.end();
  });
}

test.run();

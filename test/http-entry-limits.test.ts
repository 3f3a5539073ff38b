import { verifyApiKey } from '@adcp/sdk/server';
import { Agent, createServer, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet, exampleHandlers } from './helpers/generated.js';
import { http, MCP_HEADERS, rpc, toolsCall } from './helpers/http.js';
import { expectWarnings } from './helpers/warnings.js';
import { captureLog } from './helpers/log-capture.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(/guaranteed-publisher is served without authentication/);

/**
 * The entry's limits and agent.serve's server, over real sockets: body size (413), the body deadline (408 to a body
 * sent a byte every 5 s), the server's header and request deadlines, keep-alive, the connection cap, close(), the
 * store's ready() before listening, the no-authenticator warning, and a failure of the entry answered as a short
 * 500 that never reaches the client's eyes as a stack trace.
 */

const { loadProfile } = await committedSet();
const agent = await loadProfile('guaranteed-publisher', { mode: 'production' });
const handlers = await exampleHandlers(agent);
const authenticate = verifyApiKey({ keys: { sk_limits: { principal: 'buyer' } } });

/** A raw TCP connection to the server: what it receives, and when it was closed. */
interface Raw {
  socket: Socket;
  received(): string;
  closed: Promise<number>;
}
function raw(port: number, localAddress?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    let data = '';
    const started = performance.now();
    const socket = connect({ port, host: '127.0.0.1', ...(localAddress !== undefined ? { localAddress } : {}) });
    const closed = new Promise<number>((done) => socket.on('close', () => done(performance.now() - started)));
    socket.on('data', (d: Buffer) => (data += d.toString('utf8')));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}
const requestHead = (length: number, path = '/mcp') =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: ${MCP_HEADERS.accept}\r\nContent-Length: ${length}\r\n\r\n`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a body over limits.bodyBytes is 413 before any pipeline work, declared or streamed, and the connection closes', async () => {
  const served = await agent.serve(handlers, { port: 0, authenticate, limits: { bodyBytes: 10_000 } });
  try {
    const big = JSON.stringify(toolsCall('get_adcp_capabilities', { context: { blob: 'x'.repeat(20_000) } }));
    const declared = await http(served.url, { method: 'POST', headers: { ...MCP_HEADERS }, body: big });
    assert.is(declared.status, 413);
    assert.is(declared.headers.connection, 'close');
    assert.is(JSON.parse(declared.text).error.code, -32000);
    // No Content-Length (chunked): counted as it arrives.
    const streamed = await new Promise<number>((resolve, reject) => {
      const r = request(served.url, { method: 'POST', headers: { ...MCP_HEADERS }, agent: false }, (res) => (res.resume(), resolve(res.statusCode!)));
      r.on('error', reject);
      for (let i = 0; i < 4; i++) r.write(big.slice(i * 6_000, (i + 1) * 6_000));
      r.end(big.slice(24_000));
    });
    assert.is(streamed, 413);
    const small = await rpc(served.url, toolsCall('get_adcp_capabilities'));
    assert.is(small.status, 200);
  } finally {
    await served.close();
  }
});

test('a body sent one byte every 5 s is cut off with 408 within limits.bodyTimeoutMs (the entry on a bare node:http server)', async () => {
  // No server deadline here (requestTimeout 0): the entry's own deadline is what cuts the request off.
  const server = createServer({ requestTimeout: 0 }, agent.httpHandler(handlers, { authenticate, limits: { bodyTimeoutMs: 500 } }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const conn = await raw((server.address() as AddressInfo).port);
    const body = JSON.stringify(toolsCall('get_adcp_capabilities'));
    conn.socket.write(requestHead(body.length) + body[0]);
    const drip = setInterval(() => conn.socket.write('x'), 5_000);
    const closedAfter = await conn.closed;
    clearInterval(drip);
    assert.match(conn.received(), /^HTTP\/1\.1 408 /);
    assert.match(conn.received(), /Request body not received within 500 ms/);
    assert.ok(closedAfter >= 450 && closedAfter < 4_000, `closed after ${closedAfter.toFixed(0)} ms`);
  } finally {
    server.close();
  }
});

test('serve(): headers slower than headersTimeoutMs and a request slower than requestTimeoutMs are cut off by the server', async () => {
  const served = await agent.serve(handlers, { port: 0, authenticate, headersTimeoutMs: 300, requestTimeoutMs: 800, limits: { bodyTimeoutMs: 60_000 } });
  try {
    const headers = await raw(served.port);
    headers.socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const headersClosed = await headers.closed;
    assert.match(headers.received(), /^HTTP\/1\.1 408 /);
    assert.ok(headersClosed < 3_000, `closed after ${headersClosed.toFixed(0)} ms`);
    const slow = await raw(served.port);
    slow.socket.write(requestHead(100) + '{');
    const drip = setInterval(() => slow.socket.write(' '), 200);
    const slowClosed = await slow.closed;
    clearInterval(drip);
    assert.match(slow.received(), /^HTTP\/1\.1 408 /);
    assert.ok(slowClosed >= 700 && slowClosed < 4_000, `closed after ${slowClosed.toFixed(0)} ms`);
  } finally {
    await served.close();
  }
});

test('serve(): keep-alive outlasts proxies (65 s by default) and a kept socket serves again after idling past the header deadline', async () => {
  const byDefault = await agent.serve(handlers, { port: 0, authenticate });
  try {
    const keepAlive = new Agent({ keepAlive: true });
    assert.is((await rpc(byDefault.url, toolsCall('get_adcp_capabilities'), {}, keepAlive)).headers['keep-alive'], 'timeout=65');
    keepAlive.destroy();
  } finally {
    await byDefault.close();
  }
  const served = await agent.serve(handlers, { port: 0, authenticate, keepAliveTimeoutMs: 3_000, headersTimeoutMs: 300, requestTimeoutMs: 1_000 });
  try {
    const conn = await raw(served.port);
    const body = JSON.stringify(toolsCall('get_adcp_capabilities'));
    conn.socket.write(requestHead(body.length) + body);
    await sleep(1_200);
    conn.socket.write(requestHead(body.length) + body);
    await sleep(500);
    assert.is(conn.received().match(/HTTP\/1\.1 200 /g)?.length, 2, conn.received().slice(0, 300));
    conn.socket.destroy();
  } finally {
    await served.close();
  }
});

test('serve(): connections beyond maxConnections are refused at accept', async () => {
  const served = await agent.serve(handlers, { port: 0, authenticate, maxConnections: 2 });
  try {
    const body = JSON.stringify(toolsCall('get_adcp_capabilities'));
    const open = [await raw(served.port), await raw(served.port)];
    for (const c of open) c.socket.write(requestHead(body.length) + body);
    await sleep(300);
    assert.ok(open.every((c) => c.received().startsWith('HTTP/1.1 200 ')));
    const third = await raw(served.port);
    third.socket.write(requestHead(body.length) + body);
    await third.closed;
    assert.is(third.received(), '', 'the third connection is closed without an answer');
    open[0]!.socket.destroy();
    await open[0]!.closed;
    await sleep(50);
    assert.is((await rpc(served.url, toolsCall('get_adcp_capabilities'))).status, 200, 'a freed slot serves again');
    open[1]!.socket.destroy();
  } finally {
    await served.close();
  }
});

test('serve(): one client address holds at most maxConnectionsPerClient connections mid-request (slow headers, a body that never ends); an idle keep-alive one makes room; other clients are served beside it', async () => {
  const served = await agent.serve(handlers, { port: 0, authenticate, maxConnections: 16, maxConnectionsPerClient: 4 });
  const body = JSON.stringify(toolsCall('get_adcp_capabilities'));
  const held: Raw[] = [];
  try {
    // The holder is 127.0.0.2 (Linux routes all of 127.0.0.0/8 to loopback): a client of its own.
    const holder = (): Promise<Raw> => raw(served.port, '127.0.0.2');
    for (let i = 0; i < 2; i++) {
      const slowHeaders = await holder();
      slowHeaders.socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      held.push(slowHeaders);
    }
    const slowBody = await holder();
    slowBody.socket.write(requestHead(body.length) + body.slice(0, 5));
    held.push(slowBody);
    const idle = await holder();
    idle.socket.write(requestHead(body.length) + body);
    held.push(idle);
    await sleep(300);
    assert.match(idle.received(), /^HTTP\/1\.1 200 /, 'answered, then held idle');
    // At its cap, the client's fifth connection closes its idle one and is served.
    const fifth = await holder();
    fifth.socket.write(requestHead(body.length) + body);
    await idle.closed;
    await sleep(300);
    assert.match(fifth.received(), /^HTTP\/1\.1 200 /, 'the idle connection made room');
    held.push(fifth);
    // Now every connection it has is mid-request or idle again: the fifth is idle, so a sixth replaces it; then,
    // with the sixth held mid-request, a seventh is closed at accept without an answer.
    const sixth = await holder();
    sixth.socket.write(requestHead(body.length) + body.slice(0, 5));
    held.push(sixth);
    await fifth.closed;
    const seventh = await holder();
    seventh.socket.write(requestHead(body.length) + body);
    await seventh.closed;
    assert.is(seventh.received(), '', 'past its cap, with nothing idle, a connection of one client is closed without an answer');
    // Another client is served, on as many connections as it likes within the server's cap.
    const answers = await Promise.all(Array.from({ length: 8 }, () => rpc(served.url, toolsCall('get_adcp_capabilities'))));
    assert.equal(answers.map((a) => a.status), Array(8).fill(200));
    held.shift()!.socket.destroy();
    await sleep(50);
    const again = await holder();
    again.socket.write(requestHead(body.length) + body);
    await sleep(300);
    assert.match(again.received(), /^HTTP\/1\.1 200 /, 'a slot freed serves that client again');
    held.push(again);
  } finally {
    for (const c of held) c.socket.destroy();
    await served.close();
  }
});

test('serve(): at its cap, the idle connection a client used least recently makes room, not the one its pool reuses', async () => {
  const served = await agent.serve(handlers, { port: 0, authenticate, maxConnections: 16, maxConnectionsPerClient: 3 });
  const body = JSON.stringify(toolsCall('get_adcp_capabilities'));
  const held: Raw[] = [];
  const answered = async (c: Raw, n: number): Promise<void> => {
    c.socket.write(requestHead(body.length) + body);
    for (let waited = 0; (c.received().match(/HTTP\/1\.1 200 /g) ?? []).length < n && waited < 5_000; waited += 20) await sleep(20);
    assert.is((c.received().match(/HTTP\/1\.1 200 /g) ?? []).length, n);
  };
  try {
    const holder = (): Promise<Raw> => raw(served.port, '127.0.0.3');
    const [oldest, middle, newest] = [await holder(), await holder(), await holder()];
    held.push(oldest!, middle!, newest!);
    await answered(oldest!, 1);
    await answered(middle!, 1);
    await answered(newest!, 1);
    // The oldest connection is reused, as undici's pool reuses its first: the middle one is now idle longest.
    await answered(oldest!, 2);
    const fourth = await holder();
    held.push(fourth);
    await answered(fourth, 1);
    await middle!.closed;
    // The connection its pool reuses still carries its requests.
    await answered(oldest!, 3);
  } finally {
    for (const c of held) c.socket.destroy();
    await served.close();
  }
});

test('the client of an address: IPv4 as itself, IPv4-mapped as its IPv4, IPv6 by its /64', async () => {
  const { clientOf } = await import('../runtime/transports/http/client-caps.js');
  assert.is(clientOf('203.0.113.9'), '203.0.113.9');
  assert.is(clientOf('::ffff:203.0.113.9'), '203.0.113.9');
  assert.is(clientOf('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.is(clientOf('2001:DB8:1:2::9'), '2001:db8:1:2::/64');
  assert.is(clientOf('2001:db8::1'), '2001:db8:0:0::/64');
  assert.is(clientOf('::1'), '0:0:0:0::/64');
  assert.is(clientOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
});

test('close(): idle keep-alive sockets close at once, a busy one right after its answer, and close() resolves then', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const served = await agent.serve(
    { ...handlers, list_creatives: async (args, ctx) => (await gate, handlers.list_creatives(args, ctx)) },
    { port: 0, authenticate },
  );
  const auth = 'Authorization: Bearer sk_limits\r\n';
  const idle = await raw(served.port);
  const body = JSON.stringify(toolsCall('get_adcp_capabilities'));
  idle.socket.write(requestHead(body.length) + body);
  const busy = await raw(served.port);
  const slowBody = JSON.stringify(toolsCall('list_creatives'));
  busy.socket.write(requestHead(slowBody.length).replace('\r\n\r\n', `\r\n${auth}\r\n`) + slowBody);
  await sleep(300);
  const started = performance.now();
  const closing = served.close();
  const idleClosed = await idle.closed;
  assert.ok(idle.received().startsWith('HTTP/1.1 200 '));
  assert.ok(performance.now() - started < 1_000, 'the idle socket closed at once');
  release();
  await busy.closed;
  assert.match(busy.received(), /^HTTP\/1\.1 200 /);
  await closing;
  assert.ok(performance.now() - started < 3_000, `close() took ${(performance.now() - started).toFixed(0)} ms`);
  void idleClosed;
});

test('serve(): a store that is not ready rejects the start in one line, before listening', async () => {
  const broken = await loadProfile('guaranteed-publisher');
  broken.ready = () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.9:5432\n    at TCPConnectWrap.afterConnect')) as never;
  try {
    await broken.serve(await exampleHandlers(broken), { port: 0, authenticate });
    assert.unreachable('serve started');
  } catch (e) {
    assert.is((e as Error).message, "adcp-codegen: serve: the agent's store is not ready: connect ECONNREFUSED 10.0.0.9:5432");
  }
});

test('serve() without an authenticator warns once per agent; with one it does not', async () => {
  const log = captureLog();
  const fresh = await loadProfile('guaranteed-publisher', { logger: log.logger });
  const freshHandlers = await exampleHandlers(fresh);
  const other = captureLog();
  const authenticated = await loadProfile('guaranteed-publisher', { logger: other.logger });
  for (let i = 0; i < 2; i++) await (await fresh.serve(freshHandlers, { port: 0 })).close();
  await (await authenticated.serve(await exampleHandlers(authenticated), { port: 0, authenticate })).close();
  assert.equal(other.messages('no_authentication'), []);
  assert.equal(log.messages('no_authentication'), [
    'adcp-codegen: guaranteed-publisher is served without authentication (no `authenticate`): every call is answered for anyone. AdCP requires credentials on protected operations.',
  ]);
});

test('a failure of the entry itself is a short 500 and a warning, never a stack trace to the client or a crash', async () => {
  const log = captureLog();
  const logged = await loadProfile('guaranteed-publisher', { mode: 'production', logger: log.logger });
  // An authenticator of the agent's own that answers neither null nor a principal: the agent's bug.
  const served = await logged.serve(await exampleHandlers(logged), { port: 0, authenticate: () => ({ who: 'me' }) as never });
  try {
    const r = await rpc(served.url, toolsCall('list_creatives'));
    assert.is(r.status, 500);
    assert.equal(JSON.parse(r.text), { error: 'internal_error', error_description: 'The agent failed to answer (details are in its log).' });
    const failed = log.lines.filter((l) => l.event === 'http_entry_failed');
    assert.ok(failed.some((l) => l.level === 'error' && l.msg.includes('the authenticator returned neither null nor { principal: string }')), log.messages().join('\n'));
    assert.is((await rpc(served.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status, 500);
  } finally {
    await served.close();
  }
});

test.run();

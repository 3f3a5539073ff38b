import { AuthError, verifyApiKey } from '@adcp/sdk/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import express from 'express';
import { createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toolsListFastPath } from '../runtime/transports/http/tools-list-fast.js';
import { committedSet, exampleHandlers, type SellerHandlers } from './helpers/generated.js';
import { http, MCP_HEADERS, rpc, toolsCall } from './helpers/http.js';
import { repoRoot } from './helpers/releases.js';

/**
 * The product's HTTP entry over MCP (agent.serve, agent.httpHandler), on the committed set's guaranteed-publisher
 * profile and a real server on 127.0.0.1: the official MCP client, raw node:http requests for statuses and headers,
 * @adcp/sdk/server's verifyApiKey as the authenticator, Express mounting. A2A: http-entry-a2a.test.ts; limits and
 * serve(): http-entry-limits.test.ts.
 */

const { loadProfile, basicAuth, apiKeyAuth } = await committedSet();
const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
const KEY = 'sk_test_3f9a1c';
const authenticate = verifyApiKey({ keys: { [KEY]: { principal: 'buyer-7' } } });

/** Every context a protected handler saw. */
const seen: Record<string, any>[] = [];
const base = await exampleHandlers(agent);
const handlers: SellerHandlers = { ...base, list_creatives: (args, ctx) => (seen.push(ctx), base.list_creatives(args, ctx)) };
const running = await agent.serve(handlers, { port: 0, authenticate });

const mcpClient = async (headers?: Record<string, string>) => {
  const client = new Client({ name: 'entry-buyer', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(running.url), headers === undefined ? {} : { requestInit: { headers } }));
  return client;
};
type ToolResult = { isError?: boolean; structuredContent?: Record<string, any>; content: { text: string }[] };

test('the official MCP client, without credentials: initialize, tools/list and get_adcp_capabilities answer; a protected tool is refused', async () => {
  const client = await mcpClient();
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.map((t) => t.name), agent.tools());
    const caps = (await client.callTool({ name: 'get_adcp_capabilities', arguments: {} })) as ToolResult;
    assert.not.ok(caps.isError, caps.content[0]!.text);
    assert.equal(caps.structuredContent!.adcp.supported_versions, ['3.0']);
    const before = seen.length;
    try {
      await client.callTool({ name: 'list_creatives', arguments: {} });
      assert.unreachable('a protected tool answered without credentials');
    } catch (e) {
      assert.match(String(e), /401|Unauthorized/i);
    }
    assert.is(seen.length, before, 'the handler never ran');
  } finally {
    await client.close();
  }
});

test('with Authorization: Bearer <key> the protected tool answers, and the handler sees ctx.principal and ctx.auth without the key', async () => {
  const client = await mcpClient({ Authorization: `Bearer ${KEY}` });
  try {
    const r = (await client.callTool({ name: 'list_creatives', arguments: { context: { trace: 'p' } } })) as ToolResult;
    assert.not.ok(r.isError, r.content[0]!.text);
    assert.equal(r.structuredContent!.context, { trace: 'p' });
    const ctx = seen.at(-1)!;
    assert.is(ctx.principal, 'buyer-7');
    assert.is(ctx.auth.principal, 'buyer-7');
    assert.is(ctx.auth.token, undefined, 'ctx.auth never carries the credential');
    assert.not.ok(JSON.stringify(ctx.auth).includes(KEY));
  } finally {
    await client.close();
  }
});

test('raw HTTP: a protected tools/call without credentials is 401 with a Bearer challenge and no error code', async () => {
  const r = await rpc(running.url, toolsCall('list_creatives'));
  assert.is(r.status, 401);
  assert.is(r.headers['www-authenticate'], 'Bearer realm="adcp"');
  assert.is(r.headers['content-type'], 'application/json');
  assert.equal(JSON.parse(r.text), { error: 'unauthorized', error_description: 'Authentication required.' });
});

test('raw HTTP: a wrong key is 401 error="invalid_token", on a protected call and a public one; the key is never echoed', async () => {
  const wrong = 'sk_wrong_a8d1e0';
  for (const message of [toolsCall('list_creatives'), toolsCall('get_adcp_capabilities'), { jsonrpc: '2.0', id: 3, method: 'tools/list' }]) {
    const r = await rpc(running.url, message, { authorization: `Bearer ${wrong}` });
    assert.is(r.status, 401, JSON.stringify(message));
    assert.match(String(r.headers['www-authenticate']), /^Bearer realm="adcp", error="invalid_token", error_description="[^"]+"$/);
    assert.is(JSON.parse(r.text).error, 'invalid_token');
    assert.not.ok(r.text.includes(wrong) || String(r.headers['www-authenticate']).includes(wrong));
  }
});

test('a batch with one protected member is protected; public calls answer without credentials', async () => {
  const batch = await rpc(running.url, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, toolsCall('list_creatives', {}, 2)]);
  assert.is(batch.status, 401);
  const publicBatch = await rpc(running.url, [{ jsonrpc: '2.0', id: 1, method: 'ping' }, toolsCall('get_adcp_capabilities', {}, 2)]);
  assert.is(publicBatch.status, 200, publicBatch.text);
  assert.equal((JSON.parse(publicBatch.text) as { id: number }[]).map((m) => m.id), [1, 2]);
  const initialize = await rpc(running.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  assert.is(initialize.status, 200);
  assert.is(JSON.parse(initialize.text).result.serverInfo.name, 'guaranteed-publisher');
  const notification = await rpc(running.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.is(notification.status, 202);
});

test('decided where the SDK dispatches: without credentials an unknown method, a tool the profile does not serve and a batch member alike are 401; no protected handler runs', async () => {
  const before = seen.length;
  for (const message of [
    { jsonrpc: '2.0', id: 1, method: 'resources/list' },
    { jsonrpc: '2.0', id: 1, method: 'tasks/cancel', params: { taskId: 't' } },
    toolsCall('no_such_tool'),
    [toolsCall('get_adcp_capabilities', {}, 1), toolsCall('list_creatives', {}, 2), toolsCall('list_creatives', {}, 3)],
  ]) {
    const r = await rpc(running.url, message);
    assert.is(r.status, 401, JSON.stringify(message));
    assert.is(r.headers['www-authenticate'], 'Bearer realm="adcp"');
  }
  assert.is(seen.length, before, 'no protected handler ran');
  // With credentials, the same unknown tool is the pipeline's own UNSUPPORTED_FEATURE.
  const keyed = JSON.parse((await rpc(running.url, toolsCall('no_such_tool'), { authorization: `Bearer ${KEY}` })).text);
  assert.is(keyed.result.structuredContent.adcp_error.code, 'UNSUPPORTED_FEATURE');
  // Stateless, a cancellation can only name a request of its own POST: ignored, the request is answered.
  const cancelled = await rpc(running.url, [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }]);
  assert.is(cancelled.status, 200);
  assert.is((JSON.parse(cancelled.text) as { id: number }).id, 1, 'the one request of the batch, answered');
});

test('an authenticator that throws is 401 invalid_token on any call, with its AuthError publicMessage or generic words, never its own message', async () => {
  const secret = 'jwks fetch failed for https://internal.example/keys';
  for (const [thrown, shown] of [
    [new AuthError('Token expired.', { cause: new Error(secret) }), 'Token expired.'],
    [new Error(secret), 'Credentials rejected.'],
  ] as const) {
    const served = await agent.serve(handlers, {
      port: 0,
      authenticate: () => {
        throw thrown;
      },
    });
    try {
      const r = await rpc(served.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
      assert.is(r.status, 401);
      assert.equal(JSON.parse(r.text), { error: 'invalid_token', error_description: shown });
      assert.ok(String(r.headers['www-authenticate']).includes(`error_description="${shown}"`));
      assert.not.ok(r.text.includes(secret));
    } finally {
      await served.close();
    }
  }
});

test('tools/list: the prepared bytes are the SDK path\'s bytes, headers included', async () => {
  const fast = await rpc(running.url, { jsonrpc: '2.0', id: 7, method: 'tools/list' });
  // A batch of one goes through the SDK (Server, transport, JSON.stringify of the response), answered as one message.
  const sdk = await rpc(running.url, [{ jsonrpc: '2.0', id: 7, method: 'tools/list' }]);
  assert.is(fast.status, 200);
  assert.is(sdk.status, 200);
  assert.ok(fast.text === sdk.text, 'byte for byte');
  assert.equal(JSON.parse(fast.text), { result: { tools: JSON.parse(JSON.stringify(agent.endpointToolsList())) }, jsonrpc: '2.0', id: 7 });
  assert.is(fast.headers['content-type'], sdk.headers['content-type']);
  assert.is(fast.headers['content-length'], sdk.headers['content-length']);
  const withId = await rpc(running.url, { jsonrpc: '2.0', id: 'a"b', method: 'tools/list' });
  assert.is(JSON.parse(withId.text).id, 'a"b');
});

test('tools/list: what the SDK transport refuses is refused as it refuses it (the prepared bytes are never sent then)', async () => {
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const cases: [Record<string, string>, unknown, number][] = [
    [{ accept: 'application/json' }, list, 406],
    [{ accept: 'text/event-stream' }, list, 406],
    [{ 'content-type': 'text/plain' }, list, 415],
    [{ 'mcp-protocol-version': '1999-01-01' }, list, 400],
    [{}, { ...list, id: 1.5 }, 400],
    [{}, { ...list, params: 'all' }, 400],
    [{ 'content-type': 'application/json; charset=utf-8', 'mcp-protocol-version': '2025-06-18' }, list, 200],
  ];
  for (const [headers, message, status] of cases) {
    const r = await rpc(running.url, message, headers);
    assert.is(r.status, status, `${JSON.stringify(headers)} ${JSON.stringify(message)}: ${r.text.slice(0, 200)}`);
  }
  // The fast path itself, on a real server of its own: it answers the plain request and declines every refused one.
  let declined = 0;
  const fastPath = toolsListFastPath(createRequireFromRepo(), () => JSON.stringify(agent.endpointToolsList()));
  const raw = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      const answer = fastPath(req, JSON.parse(Buffer.concat(chunks).toString('utf8')), () => true);
      if (answer === undefined || answer === 'refused') return void (declined++, res.writeHead(599).end());
      res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.concat(answer));
    });
  });
  const url = await listen(raw);
  try {
    for (const [headers, message, status] of cases) {
      const r = await rpc(url, message, headers);
      assert.is(r.status, status === 200 ? 200 : 599, JSON.stringify(headers));
    }
    assert.is(declined, cases.length - 1);
  } finally {
    raw.close();
  }
});

test('GET and DELETE on /mcp are 405 with Allow: POST (stateless); other paths 404; no protected-resource metadata unless configured', async () => {
  for (const method of ['GET', 'DELETE']) {
    const r = await http(running.url, { method, headers: { accept: 'text/event-stream' } });
    assert.is(r.status, 405);
    assert.is(r.headers.allow, 'POST');
  }
  assert.is((await http(running.url.replace(/\/mcp$/, '/nowhere'))).status, 404);
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    assert.is((await http(running.url.replace(/\/mcp$/, path))).status, 404);
  }
});

test('protectedResource: RFC 9728 metadata at both well-known paths, and every 401 names it', async () => {
  const served = await agent.serve(handlers, {
    port: 0,
    authenticate,
    protectedResource: { resource: 'https://seller.example/mcp', authorizationServers: ['https://issuer.example'], scopesSupported: ['adcp'] },
  });
  try {
    const root = served.url.replace(/\/mcp$/, '');
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const r = await http(root + path);
      assert.is(r.status, 200);
      assert.equal(JSON.parse(r.text), { resource: 'https://seller.example/mcp', authorization_servers: ['https://issuer.example'], scopes_supported: ['adcp'], bearer_methods_supported: ['header'] });
    }
    const r = await rpc(served.url, toolsCall('list_creatives'));
    assert.is(r.status, 401);
    assert.is(r.headers['www-authenticate'], 'Bearer realm="adcp", resource_metadata="https://seller.example/.well-known/oauth-protected-resource/mcp"');
  } finally {
    await served.close();
  }
});

test('basicAuth (a value export of the generated entry): Basic credentials authenticate; a wrong password is invalid_token; 401s offer Basic', async () => {
  const served = await agent.serve(handlers, { port: 0, authenticate: basicAuth({ alice: { password: 'correct horse', principal: 'buyer-alice' } }) });
  const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
  try {
    const none = await rpc(served.url, toolsCall('list_creatives'));
    assert.is(none.status, 401);
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="adcp", Basic realm="adcp", charset="UTF-8"');
    const ok = await rpc(served.url, toolsCall('list_creatives', { context: { n: 1 } }), basic('alice', 'correct horse'));
    assert.is(ok.status, 200, ok.text);
    assert.not.ok(JSON.parse(ok.text).result.isError);
    assert.is(seen.at(-1)!.principal, 'buyer-alice');
    for (const headers of [basic('alice', 'wrong'), basic('mallory', 'correct horse'), { authorization: 'Basic !!!' }]) {
      const r = await rpc(served.url, toolsCall('list_creatives'), headers);
      assert.is(r.status, 401);
      assert.is(JSON.parse(r.text).error, 'invalid_token');
      assert.not.ok(r.text.includes('correct horse'));
    }
  } finally {
    await served.close();
  }
});

test('apiKeyAuth (a value export of the generated entry): a known Bearer key authenticates as its principal; an unknown one, or a malformed header, is invalid_token', async () => {
  const served = await agent.serve(handlers, { port: 0, authenticate: apiKeyAuth({ sk_live_one: { principal: 'buyer-one' } }) });
  try {
    assert.is((await rpc(served.url, toolsCall('list_creatives'))).status, 401);
    const ok = await rpc(served.url, toolsCall('list_creatives', { context: { n: 2 } }), { authorization: 'Bearer sk_live_one' });
    assert.is(ok.status, 200, ok.text);
    assert.is(seen.at(-1)!.principal, 'buyer-one');
    assert.is(seen.at(-1)!.auth?.token, undefined, 'the key never reaches a handler');
    for (const authorization of ['Bearer sk_live_two', 'Bearer', 'Bearer sk_live_one extra']) {
      const r = await rpc(served.url, toolsCall('list_creatives'), { authorization });
      assert.is(r.status, 401, authorization);
      assert.is(JSON.parse(r.text).error, 'invalid_token');
      assert.not.ok(r.text.includes('sk_live'));
    }
  } finally {
    await served.close();
  }
});

test('Express: app.use(agent.httpHandler(...)) serves /mcp and hands other paths to next(), with express.json() in front or not', async () => {
  for (const parseFirst of [false, true]) {
    const app = express();
    if (parseFirst) app.use(express.json({ limit: '4mb' }));
    app.use(agent.httpHandler(handlers, { authenticate, a2a: false }));
    app.get('/health', (_req, res) => void res.json({ ok: true }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      assert.equal(JSON.parse((await http(`${root}/health`)).text), { ok: true });
      assert.is((await rpc(`${root}/mcp`, toolsCall('list_creatives'))).status, 401);
      const r = await rpc(`${root}/mcp`, toolsCall('list_creatives'), { authorization: `Bearer ${KEY}` });
      assert.is(r.status, 200, r.text);
      assert.is(seen.at(-1)!.principal, 'buyer-7');
      const client = new Client({ name: 'express-buyer', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${root}/mcp`)));
      assert.ok((await client.listTools()).tools.length > 0);
      await client.close();
      // a2a: false leaves A2A's paths to the app.
      assert.is((await http(`${root}/.well-known/agent-card.json`)).status, 404);
    } finally {
      server.close();
    }
  }
});

test('the example seller requires Authorization: Bearer <ADCP_API_KEY> when it has one', async () => {
  const { startSellerAgent } = (await import(pathToFileURL(join(repoRoot, 'examples/seller-agent.js')).href)) as {
    startSellerAgent(o: { apiKey?: string }): Promise<{ url: string; close(): Promise<void> }>;
  };
  const seller = await startSellerAgent({ apiKey: 'example-key' });
  try {
    assert.is((await rpc(seller.url, toolsCall('list_creatives'))).status, 401);
    assert.is((await rpc(seller.url, toolsCall('list_creatives'), { authorization: 'Bearer example-key' })).status, 200);
    assert.is((await rpc(seller.url, toolsCall('get_adcp_capabilities'))).status, 200);
  } finally {
    await seller.close();
  }
});

test('a client that goes away mid-call: the handler\'s ctx.signal aborts; an answered call leaves nothing to abort', async () => {
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  let aborted = 0;
  let answered = 0;
  const slow: SellerHandlers = {
    ...base,
    list_creatives: async (args, ctx) => {
      if ((args as { context?: { slow?: boolean } }).context?.slow !== true) return (answered++, base.list_creatives(args, ctx));
      started();
      const signal = (ctx as { signal?: AbortSignal }).signal!;
      await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      aborted++;
      return base.list_creatives(args, ctx);
    },
  };
  const served = await agent.serve(slow, { port: 0, authenticate });
  try {
    const headers = { ...MCP_HEADERS, authorization: `Bearer ${KEY}` };
    // Answered first: its close comes after its answer, and aborts nothing.
    assert.is((await rpc(served.url, toolsCall('list_creatives', {}), { authorization: `Bearer ${KEY}` })).status, 200);
    const req = request(served.url, { method: 'POST', headers, agent: false });
    req.on('error', () => undefined);
    req.end(JSON.stringify(toolsCall('list_creatives', { context: { slow: true } })));
    await running;
    req.destroy();
    const deadline = Date.now() + 5_000;
    while (aborted === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.is(aborted, 1, "the gone client's handler was aborted");
    assert.is(answered, 1);
  } finally {
    await served.close();
  }
});

test.after(async () => {
  await running.close();
});

test.run();

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`)));
}

/** `require` from this repository, where the MCP SDK is installed (the entry resolves it from the agent's directory). */
function createRequireFromRepo(): (id: string) => unknown {
  return createRequire(join(repoRoot, 'package.json'));
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { cpSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from './helpers/fixture-release.js';
import { setAt } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';
import { typecheck } from './helpers/typecheck.js';
import { twoReleaseSet } from './helpers/two-release-set.js';
import { captureLog } from './helpers/log-capture.js';

/**
 * One handler per tool, written in the newest served release's shape, over the two-release fixture (9.2 and 9.1,
 * whose differences mirror AdCP 3.2's and 3.0's, test/helpers/two-release-set.ts): a buyer pinned to 9.1 gets the
 * request converted up and the answer converted down — renamed fields where 9.1 keeps them, fields 9.1's closed
 * objects do not know stripped, valid in 9.1 (development validates it) — while a per-release handler set is never
 * converted; and a handler set that does not match the profile is refused before a server listens.
 */
const out = await twoReleaseSet();
type Result = { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, any> };
type Handler = (args: any, ctx: any) => unknown;
interface FixtureAgent {
  releases: readonly string[];
  call(tool: string, args: unknown, handler: Handler | Record<string, Handler>, ctx?: Record<string, unknown>): Promise<Result>;
  mcpServerFactory<S>(handlers: Record<string, unknown>, create: () => S): () => S;
}
const entry = (await setAt(out)) as unknown as { loadProfile(name: string, options?: { mode?: 'production' | 'development'; logger?: unknown }): Promise<FixtureAgent> };
const body = (r: Result): Record<string, any> => JSON.parse(r.content[0]!.text) as Record<string, any>;

/** The 9.2-shaped make_thing every test writes once. */
const makeThing = () => ({ thing: { id: 't1', label: 'Thing one' }, thing_status: 'active' });

test("one make_thing handler in 9.2's shape: a 9.2 buyer gets it as written, a 9.1 buyer the thing's state in status, the label its closed thing lacks stripped", async () => {
  const agent = await entry.loadProfile('things-seller', { mode: 'development' });
  const latest = await agent.call('make_thing', { thing: { id: 't1' }, context: { c: 1 } }, makeThing);
  assert.equal(latest.structuredContent, { thing: { id: 't1', label: 'Thing one' }, thing_status: 'active', status: 'completed', adcp_version: '9.2', context: { c: 1 } });
  // Development validates the converted body against 9.1's schema: it passed, or this would be an error.
  const pinned = await agent.call('make_thing', { thing: { id: 't1' }, adcp_version: '9.1', context: { c: 2 } }, makeThing);
  assert.not.ok(pinned.isError, pinned.content[0]!.text);
  assert.equal(pinned.structuredContent, { thing: { id: 't1' }, status: 'active', adcp_version: '9.1', context: { c: 2 } });
  // No thing_status: 9.1's status is the thing's state, so the runtime never fills in the task's `completed`.
  const none = await agent.call('make_thing', { thing: { id: 't1' }, adcp_version: '9.1' }, () => ({ thing: { id: 't1' }, status: 'completed' }));
  assert.equal(none.structuredContent, { thing: { id: 't1' }, adcp_version: '9.1' });
});

test("one get_things handler in 9.2's shape: a 9.1 request arrives converted up (sort → order, no mode), ctx.release says 9.1", async () => {
  const agent = await entry.loadProfile('things-seller', { mode: 'development' });
  const seen: unknown[] = [];
  const handler = (args: Record<string, unknown>, ctx: { release: string }) => {
    seen.push({ release: ctx.release, args });
    return { things: [{ id: 'a', label: 'only in 9.2' }], cache_scope: 'public' };
  };
  const r91 = await agent.call('get_things', { adcp_version: '9.1', sort: 'newest', limit: 2 }, handler);
  assert.not.ok(r91.isError, r91.content[0]!.text);
  assert.equal(r91.structuredContent, { things: [{ id: 'a' }], cache_scope: 'public', status: 'completed', adcp_version: '9.1' });
  const r92 = await agent.call('get_things', { mode: 'brief', order: 'name' }, handler);
  assert.equal(r92.structuredContent!.things, [{ id: 'a', label: 'only in 9.2' }]);
  assert.equal(seen, [
    { release: '9.1', args: { adcp_version: '9.1', limit: 2, order: 'newest' } },
    { release: '9.2', args: { mode: 'brief', order: 'name' } },
  ]);
});

test('per-release handlers are never converted: each sees its own release', async () => {
  const agent = await entry.loadProfile('things-seller', { mode: 'development' });
  const seen: unknown[] = [];
  const perRelease = {
    '9.2': (args: unknown) => (seen.push(args), { things: [], cache_scope: 'public' }),
    '9.1': (args: unknown) => (seen.push(args), { things: [{ id: 'x' }] }),
  };
  await agent.call('get_things', { adcp_version: '9.1', sort: 'name' }, perRelease);
  assert.equal(seen, [{ adcp_version: '9.1', sort: 'name' }]);
  const make = { '9.2': makeThing, '9.1': () => ({ thing: { id: 't' }, status: 'pending' }) };
  const r = await agent.call('make_thing', { thing: { id: 't' }, adcp_version: '9.1' }, make);
  assert.equal(r.structuredContent, { thing: { id: 't' }, status: 'pending', adcp_version: '9.1' });
});

test('the compiled conversion: steps reported, input never mutated, nothing to convert returns the very object, a hostile key stays data', async () => {
  const require = createRequire(import.meta.url);
  const convert = (require(join(out, 'releases/9.1/convert/9.2/index.cjs')) as Record<string, unknown>).make_thing as {
    response(body: unknown, request: unknown): { value: any; applied: unknown[] };
    request(args: unknown): { value: any; applied: unknown[] };
  };
  const input = JSON.parse('{"thing":{"id":"t"},"thing_status":"active","status":"completed","__proto__":{"polluted":true}}') as Record<string, unknown>;
  const before = JSON.stringify(input);
  const r = convert.response(input, {});
  assert.equal(r.applied, [
    { rule: 'task-status-completed', from: '/status', to: '', reason: "9.1 carries the thing's state in status" },
    { rule: 'thing_status-to-status', from: '/thing_status', to: '/status' },
  ]);
  assert.is(JSON.stringify(input), before, 'the input is never mutated');
  assert.is(r.value.status, 'active');
  assert.ok(Object.prototype.hasOwnProperty.call(r.value, '__proto__'), 'a "__proto__" member is copied as data');
  assert.is(Object.getPrototypeOf(r.value), Object.prototype);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  // An async answer keeps its task status: the rename stands aside (`unless`), the value stays where it was.
  const asyncBody = { status: 'submitted', thing_status: 'active' };
  assert.equal(convert.response(asyncBody, {}).applied, []);
  const plain = { thing: { id: 't' } };
  assert.is(convert.response(plain, {}).value, plain, 'nothing to convert: the very same object');
  assert.is(convert.request(plain).value, plain);
});

test("the conversions are typed functions: a 9.2 body in, 9.1's out; a 9.1 request in, 9.2's with its gaps optional", () => {
  const ok = typecheck(
    `import { get_things, make_thing } from GENERATED;
const down = make_thing.response({ thing: { id: 't', label: 'l' }, thing_status: 'active' }, { thing: { id: 't' } });
const status: 'pending' | 'active' | 'completed' | undefined = down.value.status;
const up = get_things.request({ limit: 1, sort: 'name' });
const mode: 'brief' | 'wholesale' | undefined = up.value.mode;
console.log(status, mode, down.applied.map((a) => a.rule), down.refused);
`,
    join(out, 'releases/9.1/convert/9.2/index.cjs'),
  );
  assert.ok(ok.ok, ok.output);
  const gap = typecheck(`import { get_things } from GENERATED;\nconst mode: 'brief' | 'wholesale' = get_things.request({}).value.mode;\nconsole.log(mode);\n`, join(out, 'releases/9.1/convert/9.2/index.cjs'));
  assert.not.ok(gap.ok, 'a 9.1 request may lack the mode 9.2 requires');
});

test('mcpServerFactory: a mismatched handler set is refused before a server listens, naming the missing and the extra tools', async () => {
  const agent = await entry.loadProfile('things-seller');
  const create = () => new McpServer({ name: 'things', version: '1' });
  let created = 0;
  assert.throws(
    () => agent.mcpServerFactory({ get_things: () => ({}), list_things: () => ({}) }, () => (created++, create())),
    /the handlers do not match profile things-seller: write a handler for make_thing; remove the handler of list_things, not a tool profile things-seller serves/,
  );
  assert.is(created, 0, 'no server was made for a set that does not match');
  assert.throws(() => agent.mcpServerFactory({ get_things: () => ({}), make_thing: makeThing }, undefined as never), /needs a function that creates an McpServer/);
});

/** The stateless Streamable HTTP pattern of the README: one McpServer per POST, from the factory. */
async function serve(newServer: () => McpServer): Promise<{ url: string; close(): Promise<void> }> {
  const http: Server = createServer(async (req, res) => {
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}/mcp`, close: () => new Promise<void>((resolve) => (http.close(() => resolve()), http.closeIdleConnections())) };
}

async function client(url: string): Promise<Client> {
  const c = new Client({ name: 'buyer', version: '1' });
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  return c;
}

test('over MCP Streamable HTTP, one server per request from the factory: a 9.1 and a 9.2 buyer each get their release', async () => {
  const agent = await entry.loadProfile('things-seller', { mode: 'development' });
  const newServer = agent.mcpServerFactory({ get_things: () => ({ things: [], cache_scope: 'public' }), make_thing: makeThing }, () => new McpServer({ name: 'things', version: '1' }));
  const server = await serve(newServer);
  const buyer = await client(server.url);
  try {
    const r91 = (await buyer.callTool({ name: 'make_thing', arguments: { thing: { id: 't1' }, adcp_version: '9.1' } })) as Result;
    assert.equal(r91.structuredContent, { thing: { id: 't1' }, status: 'active', adcp_version: '9.1' });
    const r92 = (await buyer.callTool({ name: 'make_thing', arguments: { thing: { id: 't1' } } })) as Result;
    assert.is(r92.structuredContent!.thing_status, 'active');
    assert.is(r92.structuredContent!.status, 'completed');
  } finally {
    await buyer.close();
    await server.close();
  }
});

test('a failure inside a request (a generated file gone) answers an AdCP error with the context; the process goes on', async () => {
  const agentDir = tempDir('adcp-codegen-broken-set-');
  // An agent repository has its MCP SDK installed; the generated runtime resolves it from there.
  symlinkSync(join(repoRoot, 'node_modules'), join(agentDir, 'node_modules'), 'dir');
  const copy = join(agentDir, 'generated');
  cpSync(out, copy, { recursive: true });
  // make_thing's conversion module (content-addressed, beside the pair's index) is gone.
  const pair = join(copy, 'releases/9.1/convert/9.2');
  const module = readdirSync(pair).find((f) => f.startsWith('make_thing.') && f.endsWith('.cjs'));
  assert.type(module, 'string', 'make_thing has a conversion module of its own');
  rmSync(join(pair, module!));
  const agent = (await setAt(copy)) as unknown as typeof entry;
  const log = captureLog();
  const broken = await agent.loadProfile('things-seller', { logger: log.logger });
  const server = await serve(broken.mcpServerFactory({ get_things: () => ({ things: [], cache_scope: 'public' }), make_thing: makeThing }, () => new McpServer({ name: 'things', version: '1' })));
  const buyer = await client(server.url);
  try {
    const r = (await buyer.callTool({ name: 'make_thing', arguments: { thing: { id: 't1' }, adcp_version: '9.1', context: { trace: 'b' } } })) as Result;
    assert.ok(r.isError);
    assert.is(body(r).adcp_error.code, 'CONFIGURATION_ERROR');
    assert.is(body(r).adcp_error.recovery, 'terminal');
    assert.equal(body(r).context, { trace: 'b' });
    assert.not.match(r.content[0]!.text, /make_thing\.cjs|\/tmp\//, 'no path reaches the buyer');
    // The same server answers the next call.
    const ok = (await buyer.callTool({ name: 'make_thing', arguments: { thing: { id: 't1' } } })) as Result;
    assert.not.ok(ok.isError, ok.content[0]!.text);
  } finally {
    await buyer.close();
    await server.close();
  }
  const failed = log.lines.find((l) => l.event === 'conversion_failed');
  assert.ok(failed?.msg.includes('make_thing'), "the failure goes to the agent's log");
  assert.is(failed!.level, 'error');
  assert.is(failed!.tool, 'make_thing');
});

test.run();

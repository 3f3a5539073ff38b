import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet, EXAMPLE_ACCOUNTS, exampleHandlers, type SellerHandlers } from './helpers/generated.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot } from './helpers/releases.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(
  /handler for get_products failed: Error: database down/,
  /guaranteed-publisher is served without authentication/,
);

type Handlers = SellerHandlers;
const example = (await import(pathToFileURL(join(repoRoot, 'examples/seller-agent.js')).href)) as {
  startSellerAgent(o?: { mode?: 'production' | 'development'; seller?: { accounts?: typeof EXAMPLE_ACCOUNTS } }): Promise<{ url: string; close(): Promise<unknown> }>;
};
const { loadProfile } = await committedSet();
/** The example seller's handlers (any agent of the profile will do: they depend on its releases, not its mode). */
const sellerHandlers = async (): Promise<Handlers> => exampleHandlers(await loadProfile('guaranteed-publisher'));

const buy = (extra: Record<string, unknown> = {}): Record<string, unknown> => createMediaBuyRequest({ context: { correlation_id: 'corr-1' }, ...extra });

async function connect(mode: 'production' | 'development', given?: Handlers) {
  const agent = await loadProfile('guaranteed-publisher', { mode });
  const handlers = given ?? (await exampleHandlers(agent));
  const server = new McpServer({ name: 'test-seller', version: '1.0.0' });
  agent.registerMcp(server, handlers);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test-buyer', version: '1.0.0' });
  await client.connect(clientSide);
  return { agent, client, close: () => client.close() };
}

type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, unknown> };
const body = (r: unknown): Record<string, any> => JSON.parse((r as ToolResult).content[0]!.text) as Record<string, any>;

test('tools/list over MCP equals the generated entries, schemas and annotations included', async () => {
  const { agent, client, close } = await connect('production');
  const { tools } = await client.listTools();
  assert.equal(tools.map((t) => t.name), agent.tools());
  assert.equal(JSON.parse(JSON.stringify(tools)), JSON.parse(JSON.stringify(agent.endpointToolsList())));
  // One release served: the endpoint's list is that release's precomputed list.
  assert.equal(agent.endpointToolsList(), agent.toolsList());
  const cmb = tools.find((t) => t.name === 'create_media_buy')!;
  assert.equal(cmb.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
  assert.is(tools.find((t) => t.name === 'get_products')!.annotations!.destructiveHint, false);
  assert.ok(Object.keys((cmb.inputSchema as { properties: object }).properties).includes('packages'));
  // Production default: structural annotations, no outputSchema (the official client would validate errors against it).
  assert.ok(tools.every((t) => t.outputSchema === undefined));
  assert.not.match(JSON.stringify(cmb.inputSchema), /"(title|examples|\$comment)":/);
  assert.is(typeof cmb.inputSchema.description, 'string', 'the root description stays');
  await close();
});

test('a valid call reaches the handler with the parsed value; the result carries context and adcp_version', async () => {
  const handlers = (await sellerHandlers());
  let seen: any;
  const { client, close } = await connect('development', { ...handlers, create_media_buy: (args, ctx) => ((seen = { args, ctx }), handlers.create_media_buy!(args, ctx)) });
  const r = (await client.callTool({ name: 'create_media_buy', arguments: buy() })) as ToolResult;
  assert.not.ok(r.isError);
  assert.is(seen.args.brand.domain, 'acme.example');
  assert.is(seen.ctx.release, '3.0');
  assert.is(r.structuredContent!.adcp_version, '3.0');
  assert.equal(r.structuredContent!.context, { correlation_id: 'corr-1' });
  // 3.0's create_media_buy `status` is the media buy's own state (never filled with the task's `completed`): the
  // seller states it.
  assert.is(r.structuredContent!.status, 'pending_creatives');
  assert.equal(body(r), r.structuredContent);
  await close();
});

test('an invalid call is an AdCP INVALID_REQUEST with field, issues, context, status and adcp_version — never a bare -32602', async () => {
  const { client, close } = await connect('production');
  const r = (await client.callTool({ name: 'create_media_buy', arguments: buy({ packages: [{ product_id: 'homepage_takeover', pricing_option_id: 'cpm_fixed', budget: 1000, pacing: 'fastest' }] }) })) as ToolResult;
  assert.ok(r.isError);
  // The error body as structuredContent (what AdCP's storyboard runner reads) and the same JSON as text.
  assert.equal(r.structuredContent, body(r));
  const b = body(r);
  assert.is(b.adcp_error.code, 'INVALID_REQUEST');
  assert.is(b.adcp_error.recovery, 'correctable');
  assert.is(b.adcp_error.field, 'packages[0].pacing');
  // Production names the published schema that rejected (`schema_id`), never the validator's traversal (`schemaPath`).
  assert.equal(b.adcp_error.issues[0], {
    pointer: '/packages/0/pacing',
    keyword: 'enum',
    message: b.adcp_error.issues[0].message,
    allowedValues: ['even', 'asap', 'front_loaded'],
    schema_id: '/schemas/3.0.6/enums/pacing.json',
  });
  assert.equal(b.adcp_error.details, { tool: 'create_media_buy', issues: b.adcp_error.issues });
  assert.equal(b.context, { correlation_id: 'corr-1' });
  assert.is(b.status, 'failed');
  assert.is(b.adcp_version, '3.0');
  await close();
});

test('deprecated fields arrive translated; the handler sees the current shape and what was applied', async () => {
  const handlers = (await sellerHandlers());
  let seen: any;
  const { client, close } = await connect('production', { ...handlers, create_media_buy: (args, ctx) => ((seen = { args, ctx }), handlers.create_media_buy!(args, ctx)) });
  const { account: _a, ...rest } = buy();
  const r = (await client.callTool({ name: 'create_media_buy', arguments: { ...rest, account_id: 'acc_legacy' } })) as ToolResult;
  assert.not.ok(r.isError, r.content[0]!.text);
  assert.equal(seen.args.account, { account_id: 'acc_legacy' });
  assert.is(seen.args.account_id, undefined);
  assert.equal(seen.ctx.normalized.map((a: { rule: string }) => a.rule), ['account_id-to-account']);
  await close();
});

test('unknown fields at closed objects: stripped in production, INVALID_REQUEST naming them in development', async () => {
  // In 3.0.6 the request root and packages are open; brand (core/brand-ref.json) is closed.
  const args = buy({ brand: { domain: 'acme.example', from_adcp_4: true }, packages: [{ product_id: 'homepage_takeover', pricing_option_id: 'cpm_fixed', budget: 1000, seller_hint: 'kept' }] });
  const handlers = (await sellerHandlers());
  let seen: any;
  const prod = await connect('production', { ...handlers, create_media_buy: (a, ctx) => ((seen = { a, ctx }), handlers.create_media_buy!(a, ctx)) });
  const ok = (await prod.client.callTool({ name: 'create_media_buy', arguments: args })) as ToolResult;
  assert.not.ok(ok.isError, ok.content[0]!.text);
  assert.equal(seen.a.brand, { domain: 'acme.example' });
  assert.is(seen.a.packages[0].seller_hint, 'kept', 'open objects keep unknown fields');
  assert.equal(seen.ctx.stripped, ['/brand/from_adcp_4']);
  await prod.close();

  const dev = await connect('development');
  const r = body(await dev.client.callTool({ name: 'create_media_buy', arguments: args }));
  assert.is(r.adcp_error.code, 'INVALID_REQUEST');
  const issue = r.adcp_error.issues.find((i: { keyword: string }) => i.keyword === 'additionalProperties');
  assert.is(issue.pointer, '/brand/from_adcp_4');
  assert.is(r.adcp_error.issues.length, 1);
  // Alongside any other issue: the validator sees the value without the unknown field, so nothing hides behind it.
  const both = body(await dev.client.callTool({ name: 'create_media_buy', arguments: { ...args, start_time: 42 } }));
  // start_time is a union (`"asap"` or a date-time): the closest arm's issue, then the union's summary.
  assert.equal(both.adcp_error.issues.map((i: { pointer: string; keyword: string }) => `${i.keyword} ${i.pointer}`).sort(), ['additionalProperties /brand/from_adcp_4', 'oneOf /start_time', 'type /start_time'].sort());
  await dev.close();
});

test('release negotiation: a pin inside the served major downshifts; outside it is VERSION_UNSUPPORTED', async () => {
  const { client, close } = await connect('production');
  const down = (await client.callTool({ name: 'get_products', arguments: { brief: 'homepage', buying_mode: 'brief', adcp_version: '3.1' } })) as ToolResult;
  assert.not.ok(down.isError, down.content[0]!.text);
  assert.is(down.structuredContent!.adcp_version, '3.0');
  for (const pin of [{ adcp_version: '4.0' }, { adcp_major_version: 2 }, { adcp_version: '3.0', adcp_major_version: 4 }]) {
    const r = body(await client.callTool({ name: 'get_products', arguments: { brief: 'x', buying_mode: 'brief', ...pin, context: { pin } } }));
    assert.is(r.adcp_error.code, 'VERSION_UNSUPPORTED');
    assert.equal(r.adcp_error.details.supported_versions, ['3.0']);
    assert.equal(r.context, { pin });
  }
  await close();
});

test('handler failures echo context: a thrown error, a returned AdcpError, a thrown AdcpError-shaped body', async () => {
  const runtimeErrors = (await import(pathToFileURL(join(repoRoot, 'generated/runtime/wire/errors.js')).href)) as typeof import('../runtime/wire/errors.js');
  const handlers = (await sellerHandlers());
  const { client, close } = await connect('production', {
    ...handlers,
    get_products: () => {
      throw new Error('database down: secret connection string');
    },
    create_media_buy: () => new runtimeErrors.AdcpError('BUDGET_TOO_LOW', 'budget below the minimum', { recovery: 'correctable', field: 'packages[0].budget' }),
    list_accounts: () => ({ adcp_error: { code: 'ACCOUNT_NOT_FOUND', message: 'no such account' } }),
  });
  const thrown = body(await client.callTool({ name: 'get_products', arguments: { brief: 'x', buying_mode: 'brief', context: { trace: 't1' } } }));
  // The agent's bug, not the buyer's and not transient: a non-retryable code, and nothing of the error itself.
  assert.is(thrown.adcp_error.code, 'CONFIGURATION_ERROR');
  assert.is(thrown.adcp_error.recovery, 'terminal');
  assert.not.match(JSON.stringify(thrown), /secret|database|\.js|\/work\/|file:|\n\s*at /);
  assert.equal(thrown.context, { trace: 't1' });
  const returned = body(await client.callTool({ name: 'create_media_buy', arguments: buy() }));
  assert.equal(returned.adcp_error, { code: 'BUDGET_TOO_LOW', message: 'budget below the minimum', recovery: 'correctable', field: 'packages[0].budget' });
  assert.equal(returned.context, { correlation_id: 'corr-1' });
  const shaped = body(await client.callTool({ name: 'list_accounts', arguments: { context: { trace: 't3' } } }));
  assert.is(shaped.adcp_error.code, 'ACCOUNT_NOT_FOUND');
  assert.equal(shaped.context, { trace: 't3' });
  await close();
});

test('unknown tools and tools outside the profile: an AdCP UNSUPPORTED_FEATURE with the caller\'s context, not a JSON-RPC error', async () => {
  const { client, close } = await connect('production');
  for (const name of ['no_such_tool', 'get_signals', '__proto__']) {
    const r = (await client.callTool({ name, arguments: { context: { probe: name } } })) as ToolResult;
    assert.ok(r.isError, name);
    assert.equal(r.structuredContent, body(r));
    assert.equal(body(r).adcp_error, { code: 'UNSUPPORTED_FEATURE', message: body(r).adcp_error.message, recovery: 'correctable', details: { tool: name } });
    assert.match(body(r).adcp_error.message, `Tool ${name} is not served`);
    assert.equal(body(r).context, { probe: name });
    assert.is(body(r).adcp_version, '3.0');
  }
  await close();
});

test('get_adcp_capabilities is served from the profile; registration names missing and extra handlers', async () => {
  const { agent, client, close } = await connect('production');
  const caps = (await client.callTool({ name: 'get_adcp_capabilities', arguments: {} })) as ToolResult;
  assert.equal(caps.structuredContent!.supported_protocols, ['media_buy']);
  assert.equal((caps.structuredContent!.media_buy as Record<string, unknown>).supported_delivery_types, ['guaranteed']);
  // AdCP 3.2 negotiation: the release-precision versions served, and the release that answered.
  assert.equal((caps.structuredContent!.adcp as Record<string, unknown>).supported_versions, agent.releases);
  assert.is(caps.structuredContent!.adcp_version, '3.0');
  await close();
  const { get_products: _drop, ...missing } = (await sellerHandlers());
  assert.throws(() => agent.registerMcp(new McpServer({ name: 's', version: '1' }), missing as Handlers), /write a handler for get_products/);
  const extra: Record<string, unknown> = { ...(await sellerHandlers()), get_signals: () => ({}) };
  assert.throws(() => agent.registerMcp(new McpServer({ name: 's', version: '1' }), extra as Parameters<typeof agent.registerMcp>[1]), /remove the handler of get_signals, not a tool profile/);
});

test('parse once: the handler and the authorization hook see the same parsed value, never the caller object', async () => {
  const { loadProfile: load } = await committedSet();
  const seenByAuth: unknown[] = [];
  const agent = await load('guaranteed-publisher', { mode: 'production', authorize: (_tool, value) => void seenByAuth.push(value) });
  const callerArgs = { ...buy(), brand_manifest: 'https://www.Acme.example/brand.json', brand: undefined, seller_hint: { x: 1 } };
  delete (callerArgs as Record<string, unknown>).brand;
  const before = JSON.stringify(callerArgs);
  let seenByHandler: any;
  const r = await agent.call('create_media_buy', callerArgs, (args) => {
    seenByHandler = args;
    return { media_buy_id: 'mb', packages: [] };
  });
  assert.not.ok(r.isError, r.content[0]!.text);
  assert.is(seenByAuth[0], seenByHandler);
  assert.equal(seenByHandler.brand, { domain: 'www.acme.example' });
  assert.is(seenByHandler.brand_manifest, undefined);
  assert.equal(seenByHandler.seller_hint, { x: 1 });
  assert.is.not(seenByHandler.seller_hint, callerArgs.seller_hint, 'a private copy, not the caller object');
  assert.is(JSON.stringify(callerArgs), before, 'the caller object is untouched');
  assert.is.not(seenByHandler, callerArgs);
  // An authorization hook that rejects answers with its AdcpError, context echoed.
  const { AdcpError } = (await import(pathToFileURL(join(repoRoot, 'generated/runtime/wire/errors.js')).href)) as typeof import('../runtime/wire/errors.js');
  const denied = await load('guaranteed-publisher', { authorize: () => { throw new AdcpError('PERMISSION_DENIED', 'not your account'); } });
  const d = body(await denied.call('create_media_buy', buy(), () => ({})));
  assert.is(d.adcp_error.code, 'PERMISSION_DENIED');
  assert.equal(d.context, { correlation_id: 'corr-1' });
});

test('hostile payloads through agent.call: deep nesting, huge arrays, cycles, prototype keys — clean INVALID_REQUEST', async () => {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'production' });
  const handler = () => ({ media_buy_id: 'mb', packages: [] });
  let deep: Record<string, unknown> = {};
  const root = deep;
  for (let i = 0; i < 100_000; i++) deep = (deep.next = {}) as Record<string, unknown>;
  const deepArgs = buy({ brand: { domain: 'acme.example' }, ext: root });
  let b = body(await agent.call('create_media_buy', deepArgs, handler));
  assert.is(b.adcp_error.code, 'INVALID_REQUEST');
  assert.is(b.adcp_error.issues[0].keyword, 'maxDepth');
  assert.equal(b.context, { correlation_id: 'corr-1' });

  b = body(await agent.call('create_media_buy', buy({ packages: new Array(1_000_000).fill(7) }), handler));
  assert.is(b.adcp_error.code, 'INVALID_REQUEST');
  assert.ok(b.adcp_error.issues.length < 100, 'a bounded issue list');

  const cyclic: Record<string, unknown> = buy();
  cyclic.ext = { self: cyclic };
  b = body(await agent.call('create_media_buy', cyclic, handler));
  assert.is(b.adcp_error.code, 'INVALID_REQUEST');
  assert.match(b.adcp_error.issues[0].message, /not a JSON value/);

  const hostile = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}') as Record<string, unknown>;
  const r = await agent.call('create_media_buy', { ...buy(), ...hostile, brand: JSON.parse('{"domain": "acme.example", "__proto__": {"polluted": true}}') }, handler);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  assert.is(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  assert.ok(r.isError === true || r.isError === undefined);
  for (const args of [null, 42, 'create', [buy()]]) {
    const e = body(await agent.call('create_media_buy', args, handler));
    assert.is(e.adcp_error.code, 'INVALID_REQUEST', JSON.stringify(args).slice(0, 20));
  }
});

test('1,000 interleaved calls with different payloads each get their own result', async () => {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
  const handlers = (await sellerHandlers());
  const calls = Array.from({ length: 1000 }, async (_, i) => {
    const valid = i % 3 !== 0;
    const args = valid ? buy({ context: { n: i } }) : buy({ context: { n: i }, start_time: i });
    const r = await agent.call('create_media_buy', args, async (a, ctx) => {
      await new Promise((res) => setTimeout(res, (i * 7) % 5));
      return handlers.create_media_buy!(a, ctx) as Record<string, unknown>;
    });
    const b = body(r);
    assert.equal(b.context, { n: i });
    assert.is(r.isError === true, !valid, `call ${i}`);
    if (!valid) assert.is(b.adcp_error.issues[0].pointer, '/start_time');
  });
  await Promise.all(calls);
});

test('the example seller answers unknown media buys alike and refuses a date that is no calendar day (what adcp fuzz checks)', async () => {
  const { client, close } = await connect('production');
  const delivery = async (args: Record<string, unknown>) => (await client.callTool({ name: 'get_media_buy_delivery', arguments: args })) as ToolResult;
  const window = { start_date: '2026-11-01', end_date: '2026-11-30' };
  const a = await delivery({ media_buy_ids: ['8a6f2a0e-0000-4000-8000-000000000001'], ...window });
  const b = await delivery({ media_buy_ids: ['8a6f2a0e-0000-4000-8000-000000000002'], ...window });
  assert.not.ok(a.isError, a.content[0]!.text);
  assert.is(a.content[0]!.text, b.content[0]!.text, 'two unknown ids: byte-identical answers');
  assert.equal(body(a).reporting_period, { start: '2026-11-01T00:00:00Z', end: '2026-11-30T23:59:59Z' });
  // 0000-00-00 matches the schema's pattern (\d{4}-\d{2}-\d{2}) but is no date: an error, not an invalid date-time.
  const bad = body(await delivery({ end_date: '0000-00-00' }));
  assert.is(bad.adcp_error.code, 'INVALID_REQUEST');
  assert.is(bad.adcp_error.field, 'end_date');
  await close();
});

test('the example agent over Streamable HTTP: tools/list, a valid call, an invalid call', async () => {
  const running = await example.startSellerAgent({ mode: 'development', seller: { accounts: EXAMPLE_ACCOUNTS } });
  const client = new Client({ name: 'http-buyer', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'create_media_buy'));
  const ok = (await client.callTool({ name: 'create_media_buy', arguments: buy() })) as ToolResult;
  assert.not.ok(ok.isError, ok.content[0]!.text);
  assert.match(String(ok.structuredContent!.media_buy_id), /^mb_/);
  const bad = body(await client.callTool({ name: 'get_products', arguments: { brief: 'x', context: { k: 1 } } }));
  assert.is(bad.adcp_error.code, 'INVALID_REQUEST');
  assert.is(bad.adcp_error.field, 'buying_mode');
  assert.equal(bad.context, { k: 1 });
  await client.close();
  await running.close();
});

test.run();

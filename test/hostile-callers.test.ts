import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet, exampleHandlers, type SellerHandlers } from './helpers/generated.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { sdkReleaseDir } from './helpers/releases.js';
import { serveAgent } from './helpers/serve.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(/guaranteed-publisher is served without authentication/, /handler for get_products failed: Error: after tampering/);

/**
 * A hostile buyer, over the real transport: the official MCP client over Streamable HTTP to the committed set's
 * guaranteed-publisher profile (AdCP 3.0.6). Arguments that are not an object, a handler that changes the context
 * it was given, and a request with 100,000 unknown fields in a closed object — each as it was done, each answered
 * as an AdCP error of bounded size that echoes only what the caller sent.
 */

const { loadProfile } = await committedSet();
type Agent = Awaited<ReturnType<typeof loadProfile<'guaranteed-publisher'>>>;
type Body = Record<string, any>;

async function connect(agent: Agent, handlers: Partial<SellerHandlers> = {}) {
  const served = await serveAgent(agent, { ...(await exampleHandlers(agent)), ...handlers });
  const client = new Client({ name: 'hostile-buyer', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  return {
    client,
    /** tools/call as sent on the wire: Client.callTool would type-check the arguments before sending. */
    call: async (params: Record<string, unknown>) => (await client.request({ method: 'tools/call', params }, CallToolResultSchema)) as { isError?: boolean; content: { text: string }[]; structuredContent?: Body },
    close: async () => {
      await client.close();
      await served.close();
    },
  };
}

// The release's own error schema: every rejection's adcp_error must stay valid under it.
const errorSchema = JSON.parse(readFileSync(join(sdkReleaseDir(), 'core/error.json'), 'utf8')) as Record<string, unknown>;
const validError = new Ajv({ strict: false }).compile(errorSchema);

function assertRejection(body: Body, code: string): void {
  assert.is(body.status, 'failed');
  assert.is(body.adcp_error.code, code);
  assert.ok(validError(body.adcp_error), JSON.stringify(validError.errors));
}

for (const mode of ['production', 'development'] as const) {
  test(`${mode}: arguments that are null, an array, a number, a string or a boolean are INVALID_REQUEST, not a JSON-RPC dump`, async () => {
    const agent = await loadProfile('guaranteed-publisher', { mode });
    const { call, close } = await connect(agent);
    try {
      for (const [args, kind] of [[null, 'null'], [[], 'an array'], [[{ context: { c: 1 } }], 'an array'], [42, 'a number'], ['{"context":{}}', 'a string'], [true, 'a boolean'], [false, 'a boolean']] as const) {
        const r = await call({ name: 'get_products', arguments: args });
        assert.is(r.isError, true, JSON.stringify(args));
        const body = r.structuredContent!;
        assert.equal(JSON.parse(r.content[0]!.text), body);
        assertRejection(body, 'INVALID_REQUEST');
        assert.equal(body.adcp_error.issues, [{ pointer: '', keyword: 'type', message: `must be an object (the tool's arguments), not ${kind}` }]);
        assert.is(body.adcp_error.recovery, 'correctable');
        assert.is(body.context, undefined, 'nothing readable to echo');
        assert.is(body.adcp_version, agent.releases[0]);
      }
      // No arguments at all is an empty object, as MCP makes them optional: validated like any other request.
      const none = (await call({ name: 'get_products' })).structuredContent!;
      assert.is(none.adcp_error.field, 'buying_mode');
      // A tools/call naming no tool is not a tool call: a JSON-RPC error, short and without zod's dump.
      const err = await call({ arguments: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.instance(err, McpError);
      assert.is((err as McpError).code, -32602);
      assert.match((err as McpError).message, /tools\/call: params\.name must be the tool name \(a string\)$/);
      assert.not.match((err as McpError).message, /invalid_type|expected|"path"/);
    } finally {
      await close();
    }
  });
}

test('the echoed context is what the caller sent: a handler or authorize hook that changes it, or returns its own, changes nothing', async () => {
  const sent = { correlation_id: 'corr-1', nested: { trace: ['a'] } };
  const tamper = (args: Record<string, any>): void => {
    args.context.correlation_id = 'changed by the agent';
    args.context.nested.trace.push('injected');
    args.context.extra = 'added';
  };
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development', authorize: (_tool, value) => tamper(value as Record<string, any>) });
  const handlers = await exampleHandlers(agent);
  const { call, close } = await connect(agent, {
    create_media_buy: async (args, ctx) => {
      tamper(args as Record<string, any>);
      const result = await handlers.create_media_buy!(args, ctx);
      return { ...result, context: { correlation_id: 'returned by the handler' } } as never;
    },
    get_products: (args) => {
      tamper(args as Record<string, any>);
      throw new Error('after tampering');
    },
    list_accounts: (args) => {
      tamper(args as Record<string, any>);
      return { accounts: 'not an array' } as never;
    },
  });
  const previous = process.emitWarning;
  process.emitWarning = () => undefined; // the runtime logs the handler failures this test causes
  try {
    const ok = await call({ name: 'create_media_buy', arguments: createMediaBuyRequest({ context: sent }) });
    assert.not.ok(ok.isError, ok.content[0]!.text);
    assert.equal(ok.structuredContent!.context, sent);
    const thrown = (await call({ name: 'get_products', arguments: { brief: 'x', buying_mode: 'brief', context: sent } })).structuredContent!;
    assertRejection(thrown, 'CONFIGURATION_ERROR');
    assert.equal(thrown.context, sent);
    const invalid = (await call({ name: 'list_accounts', arguments: { context: sent } })).structuredContent!;
    assertRejection(invalid, 'CONFIGURATION_ERROR');
    assert.equal(invalid.context, sent);
  } finally {
    process.emitWarning = previous;
    await close();
  }
});

/** create_media_buy with `n` unknown fields in `brand` (core/brand-ref.json is closed in 3.0.6). */
function flooded(n: number, name = (i: number) => `unknown_${i}`): Record<string, unknown> {
  const brand: Record<string, unknown> = { domain: 'acme.example' };
  for (let i = 0; i < n; i++) brand[name(i)] = i;
  return createMediaBuyRequest({ brand, context: { correlation_id: 'flood' } });
}

test('development: 100,000 unknown fields in a closed object are 50 issues and a count, in a reply of bounded size', async () => {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
  const { call, close } = await connect(agent);
  try {
    const args = flooded(100_000);
    const r = await call({ name: 'create_media_buy', arguments: args });
    const body = r.structuredContent!;
    assertRejection(body, 'INVALID_REQUEST');
    const error = body.adcp_error;
    assert.is(error.issues.length, 50);
    assert.equal(error.issues[0], { pointer: '/brand/unknown_0', keyword: 'additionalProperties', additionalProperty: 'unknown_0', message: error.issues[0].message });
    assert.is(error.details.issues_omitted, 100_000 - 50);
    assert.is(error.details.issues.length, 50, 'the mirror for pre-3.1 readers is the same bounded list');
    assert.match(error.message, /\(and 99997 more issues; issues lists the first 50\)$/);
    assert.equal(body.context, { correlation_id: 'flood' });
    // The payload's errors[] carries the error once more, its issue lists left to adcp_error.
    assert.equal(body.errors, [{ code: 'INVALID_REQUEST', message: error.message, recovery: error.recovery, field: error.field, details: { tool: 'create_media_buy', issues_omitted: 100_000 - 50 } }]);
    // Before: 76 MB (every field an issue, listed twice). The whole CallToolResult, text copy included:
    const reply = Buffer.byteLength(JSON.stringify(r));
    assert.ok(reply < 64 * 1024, `reply is ${reply} bytes`);
  } finally {
    await close();
  }
});

test('production: the same request is served, the unknown fields stripped and listed for the handler', async () => {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'production' });
  const handlers = await exampleHandlers(agent);
  let seen: { brand: unknown; stripped: number } | undefined;
  const { call, close } = await connect(agent, { create_media_buy: (args, ctx) => ((seen = { brand: args.brand, stripped: ctx.stripped.length }), handlers.create_media_buy!(args, ctx)) });
  try {
    const r = await call({ name: 'create_media_buy', arguments: flooded(100_000) });
    assert.not.ok(r.isError, r.content[0]!.text.slice(0, 500));
    assert.equal(seen, { brand: { domain: 'acme.example' }, stripped: 100_000 });
  } finally {
    await close();
  }
});

test('text taken from the payload is clipped: a 100 KB field name, a 100 KB tool name', async () => {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
  const { call, close } = await connect(agent);
  try {
    const long = 'k'.repeat(100_000);
    const r = await call({ name: 'create_media_buy', arguments: flooded(3, (i) => `${long}${i}`) });
    const error = r.structuredContent!.adcp_error;
    assertRejection(r.structuredContent!, 'INVALID_REQUEST');
    assert.is(error.issues.length, 3);
    for (const issue of error.issues) {
      assert.is(issue.pointer, '/brand', 'the deepest ancestor that fits: still a pointer into the payload');
      assert.is(issue.truncated, true);
      assert.ok(issue.additionalProperty.length <= 1024 && issue.additionalProperty.endsWith('…'));
      assert.ok(issue.message.length <= 1024);
    }
    const size = Buffer.byteLength(JSON.stringify(r));
    assert.ok(size < 64 * 1024, `reply is ${size} bytes for a 300 KB request`);
    const tool = await call({ name: `no_such_${long}`, arguments: { context: { c: 1 } } });
    const unknown = tool.structuredContent!;
    assertRejection(unknown, 'UNSUPPORTED_FEATURE');
    assert.ok(unknown.adcp_error.details.tool.length <= 1024);
    assert.equal(unknown.context, { c: 1 });
    const toolSize = Buffer.byteLength(JSON.stringify(tool));
    assert.ok(toolSize < 16 * 1024, `reply is ${toolSize} bytes`);
  } finally {
    await close();
  }
});

test('agent.call itself (any transport, A2A included): non-object arguments are INVALID_REQUEST in both modes', async () => {
  for (const mode of ['production', 'development'] as const) {
    const agent = await loadProfile('guaranteed-publisher', { mode });
    for (const args of [null, undefined, 7, 'x', [1], true]) {
      const r = await agent.call('get_products', args, () => ({ products: [] }));
      assert.is(r.isError, true);
      assert.is((r.structuredContent as Body).adcp_error.issues[0].keyword, 'type');
    }
  }
});

test.run();

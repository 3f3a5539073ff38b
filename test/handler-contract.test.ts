import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setAt } from './helpers/generated.js';
import { twoReleaseSet } from './helpers/two-release-set.js';
import { captureLog } from './helpers/log-capture.js';

/**
 * The handler contract at run time, as the generated types state it (test/types.test.ts): per-release handlers are
 * dispatched on the release that answers, the envelope is the runtime's, a handler's bug is the agent's
 * non-retryable error and never leaks, and registration refuses exactly what the types refuse.
 */
const out = await twoReleaseSet();
// The two-release set shares the committed set's surface; its handlers are typed by the fixture's own tools.
const entry = (await setAt(out)) as unknown as {
  loadProfile(name: string, options?: { mode?: 'production' | 'development'; logger?: unknown }): Promise<FixtureAgent>;
  AdcpError: new (code: string, message: string, extra?: Record<string, unknown>) => Error;
};
type Handler = (args: any, ctx: any) => unknown;
interface FixtureAgent {
  releases: readonly string[];
  call(tool: string, args: unknown, handler: Handler | Record<string, Handler>, ctx?: Record<string, unknown>): Promise<{ isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, unknown> }>;
  registerMcp(server: unknown, handlers: Record<string, unknown>): void;
}
const body = (r: { content: { text: string }[] }): Record<string, any> => JSON.parse(r.content[0]!.text) as Record<string, any>;

const perRelease = {
  '9.2': (args: { mode: string }, ctx: { release: string }) => ({ things: [{ id: `${args.mode}@${ctx.release}` }], cache_scope: 'public' }),
  '9.1': (_args: unknown, ctx: { release: string }) => ({ things: [{ id: `plain@${ctx.release}` }] }),
};

test('per-release handlers: the release that answers picks the handler; MCP serves them through the official client', async () => {
  const agent = await entry.loadProfile('things-seller', { mode: 'development' });
  assert.equal(agent.releases, ['9.2', '9.1']);
  let r = await agent.call('get_things', { mode: 'brief' }, perRelease);
  assert.equal(r.structuredContent, { things: [{ id: 'brief@9.2' }], cache_scope: 'public', status: 'completed', adcp_version: '9.2' });
  r = await agent.call('get_things', { adcp_version: '9.1' }, perRelease);
  assert.equal(r.structuredContent, { things: [{ id: 'plain@9.1' }], status: 'completed', adcp_version: '9.1' });

  const server = new McpServer({ name: 'things', version: '1' });
  agent.registerMcp(server, { get_things: perRelease, make_thing: (args: { thing: unknown }) => ({ thing: args.thing }) });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'buyer', version: '1' });
  await client.connect(b);
  const pinned = (await client.callTool({ name: 'get_things', arguments: { adcp_version: '9.1', context: { trace: 'x' } } })) as { structuredContent: Record<string, unknown> };
  assert.equal(pinned.structuredContent, { things: [{ id: 'plain@9.1' }], status: 'completed', adcp_version: '9.1', context: { trace: 'x' } });
  const latest = (await client.callTool({ name: 'get_things', arguments: { mode: 'wholesale' } })) as { structuredContent: Record<string, unknown> };
  assert.is(latest.structuredContent.adcp_version, '9.2');
  assert.equal(latest.structuredContent.things, [{ id: 'wholesale@9.2' }]);
  await client.close();
});

test('the envelope is the runtime\'s: adcp_version and context are never the handler\'s, status only an AdCP task status', async () => {
  const agent = await entry.loadProfile('things-seller', { mode: 'production' });
  const forged = () => ({ things: [], cache_scope: 'public', adcp_version: '1.0', adcp_major_version: 1, context: { forged: true } });
  let r = await agent.call('get_things', { mode: 'brief', context: { mine: 1 } }, forged);
  assert.equal(r.structuredContent, { things: [], cache_scope: 'public', status: 'completed', adcp_version: '9.2', context: { mine: 1 } });
  r = await agent.call('get_things', { mode: 'brief' }, forged);
  assert.equal(r.structuredContent, { things: [], cache_scope: 'public', status: 'completed', adcp_version: '9.2' }, 'no context sent, none answered');
  // A typed rejection arm states its status.
  r = await agent.call('get_things', { mode: 'wholesale' }, () => ({ status: 'rejected', reason: 'no feed' }));
  assert.not.ok(r.isError);
  assert.equal(r.structuredContent, { status: 'rejected', reason: 'no feed', adcp_version: '9.2' });
  // A status AdCP does not define is the agent's bug, in production too: never sent as if it were a result.
  r = await agent.call('get_things', { mode: 'brief', context: { c: 2 } }, () => ({ things: [], cache_scope: 'public', status: 'bogus' }));
  assert.ok(r.isError);
  const e = body(r);
  assert.is(e.adcp_error.code, 'CONFIGURATION_ERROR');
  assert.is(e.adcp_error.recovery, 'terminal');
  assert.match(e.adcp_error.message, /^get_things: the handler set status "bogus", which is neither an AdCP task status \(.*\) nor one the AdCP 9\.2 response defines$/);
  assert.equal(e.context, { c: 2 });
  assert.is(e.adcp_version, '9.2');
  // A status the release's response schema defines for the task (9.1's make_thing: the thing's state, as 3.0's
  // create_media_buy) is the handler's to state; one it does not define is refused there too.
  const thing = { thing: { id: 't' }, adcp_version: '9.1' };
  r = await agent.call('make_thing', thing, () => ({ thing: { id: 't' }, status: 'active' }));
  assert.equal(r.structuredContent, { thing: { id: 't' }, status: 'active', adcp_version: '9.1' });
  r = await agent.call('make_thing', thing, () => ({ thing: { id: 't' }, status: 'bogus' }));
  assert.is(body(r).adcp_error.code, 'CONFIGURATION_ERROR');
  r = await agent.call('make_thing', { thing: { id: 't' } }, () => ({ thing: { id: 't' }, status: 'active' }));
  assert.is(body(r).adcp_error.code, 'CONFIGURATION_ERROR', '9.2 defines no such status');
});

test('an invalid response in development: a non-retryable agent error naming the tool and the pointer', async () => {
  const agent = await entry.loadProfile('things-seller', { mode: 'development' });
  const r = await agent.call('get_things', { mode: 'brief', context: { t: 1 } }, () => ({ things: [{ id: 7 }], cache_scope: 'public' }));
  assert.ok(r.isError);
  const e = body(r);
  assert.is(e.adcp_error.code, 'CONFIGURATION_ERROR');
  assert.is(e.adcp_error.recovery, 'terminal');
  assert.match(e.adcp_error.message, /^get_things: the agent's response does not match the AdCP 9\.2 response schema: \/things\/0\/id must be string$/);
  // Development names the rejecting schema and where in it (error-handling.mdx's validator-internals fields).
  assert.equal(e.adcp_error.details.response_issues[0], {
    pointer: '/things/0/id',
    keyword: 'type',
    message: 'must be string',
    schema_id: '/schemas/9.2.0/core/thing.json',
    schemaPath: '#/properties/id/type',
  });
  assert.equal(e.context, { t: 1 });
  // The body 9.1 accepts is not a 9.2 body: 9.2 requires cache_scope.
  const missing = body(await agent.call('get_things', { mode: 'brief' }, () => ({ things: [] })));
  assert.is(missing.adcp_error.code, 'CONFIGURATION_ERROR');
  assert.match(missing.adcp_error.message, /cache_scope/);
  // Production sends what the handler returned, with the runtime's envelope: the caller still gets a well-formed result.
  const log = captureLog();
  const prod = await entry.loadProfile('things-seller', { mode: 'production', logger: log.logger });
  const sent = await prod.call('get_things', { mode: 'brief' }, () => ({ things: [] }));
  assert.not.ok(sent.isError);
  assert.equal(sent.structuredContent, { things: [], status: 'completed', adcp_version: '9.2' });
  // ... and, once it is sent, logs it at error with its issues, for the operator.
  await new Promise((resolve) => setImmediate(resolve));
  const invalid = log.lines.find((l) => l.event === 'response_invalid');
  assert.is(invalid?.level, 'error');
  assert.equal([invalid!.tool, invalid!.release, invalid!.sent], ['get_things', '9.2', true]);
  assert.is((invalid!.issues as { pointer: string }[])[0]!.pointer, '/cache_scope');
});

test('a handler that throws: a non-retryable AdCP error with no stack, path or message of its own; AdcpError from the entry is honoured', async () => {
  const log = captureLog();
  const agent = await entry.loadProfile('things-seller', { mode: 'production', logger: log.logger });
  const r = await agent.call('get_things', { mode: 'brief', context: { t: 2 } }, () => {
    throw new TypeError(`Cannot read properties of undefined (reading 'rows') at ${import.meta.url}`);
  });
  const e = body(r);
  assert.is(e.adcp_error.code, 'CONFIGURATION_ERROR');
  assert.is(e.adcp_error.recovery, 'terminal');
  assert.equal(e.context, { t: 2 });
  const text = r.content[0]!.text;
  assert.not.match(text, /rows|file:|\.js|\/tmp\/|\/work\/|\n\s*at |TypeError/);
  const failed = log.lines.find((l) => l.event === 'handler_failed');
  assert.ok(failed?.msg.includes("reading 'rows'"), "the error itself goes to the agent's log, at error, naming the tool");
  assert.equal([failed!.level, failed!.tool], ['error', 'get_things']);

  const returned = body(await agent.call('get_things', { mode: 'brief' }, () => new entry.AdcpError('UNSUPPORTED_FEATURE', 'no things today', { recovery: 'correctable' })));
  assert.equal(returned.adcp_error, { code: 'UNSUPPORTED_FEATURE', message: 'no things today', recovery: 'correctable' });
  // A fatal failure populates both of AdCP's layers (L3/error-handling.mdx): the envelope's adcp_error and the
  // payload's errors[], which a reader of the payload checks (errors[0].field).
  const field = body(await agent.call('get_things', { mode: 'brief' }, () => new entry.AdcpError('INVALID_REQUEST', 'no', { field: 'refine[1]' })));
  assert.equal(field.errors, [field.adcp_error]);
  assert.is(field.errors[0].field, 'refine[1]');
});

test('a handler answers with a value, a promise or a thenable: the same answer; a thenable whose then throws is the handler\'s fault', async () => {
  const log = captureLog();
  const agent = await entry.loadProfile('things-seller', { mode: 'production', logger: log.logger });
  const things = { things: [{ id: 'a' }] };
  const at = (r: { structuredContent?: Record<string, unknown> }): unknown => r.structuredContent?.things;
  assert.equal(at(await agent.call('get_things', { mode: 'brief' }, () => things)), things.things, 'a value, at once');
  assert.equal(at(await agent.call('get_things', { mode: 'brief' }, async () => things)), things.things, 'a promise');
  // Another promise library's thenable: read as a promise is (the timeout race's, before).
  const thenable = { then: (resolve: (v: unknown) => void) => setTimeout(() => resolve(things), 5) };
  assert.equal(at(await agent.call('get_things', { mode: 'brief' }, () => thenable)), things.things, 'a thenable');
  const rejecting = { then: (_: unknown, reject: (e: unknown) => void) => reject(new entry.AdcpError('UNSUPPORTED_FEATURE', 'not today')) };
  assert.is(body(await agent.call('get_things', { mode: 'brief' }, () => rejecting)).adcp_error.code, 'UNSUPPORTED_FEATURE', 'a thenable rejecting with an AdcpError');
  const throwing = {
    get then(): never {
      throw new Error('a getter that throws');
    },
  };
  assert.is(body(await agent.call('get_things', { mode: 'brief' }, () => throwing)).adcp_error.code, 'CONFIGURATION_ERROR', 'a then getter that throws');
  const thenThrows = {
    then(): never {
      throw new Error('then itself throws');
    },
  };
  assert.is(body(await agent.call('get_things', { mode: 'brief' }, () => thenThrows)).adcp_error.code, 'CONFIGURATION_ERROR', 'a then that throws');
  assert.is(log.lines.filter((l) => l.event === 'handler_failed').length, 2, 'both in the log, at error');
});

test('registration refuses what the types refuse: a missing tool or release, a tool or release not served', async () => {
  const agent = await entry.loadProfile('things-seller');
  const make_thing = (args: { thing: unknown }) => ({ thing: args.thing });
  const server = () => new McpServer({ name: 's', version: '1' });
  const refused = (handlers: Record<string, unknown>): string => {
    try {
      agent.registerMcp(server(), handlers);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('the handler set was accepted');
  };
  const missing = /the handlers do not match profile things-seller: write a handler for (.*?)( \(to serve|;)/;
  assert.is(missing.exec(refused({ get_things: perRelease }))?.[1], 'make_thing');
  assert.is(missing.exec(refused({ get_things: perRelease, make_thing: undefined }))?.[1], 'make_thing');
  assert.is(missing.exec(refused({ get_things: { '9.2': perRelease['9.2'] }, make_thing }))?.[1], 'get_things (AdCP 9.1)');
  assert.match(refused({ get_things: { ...perRelease, '9.0': perRelease['9.1'] }, make_thing }), /remove the AdCP 9\.0 handler of get_things, a release that does not serve it/);
  assert.match(refused({ get_things: perRelease, make_thing, get_signals: make_thing }), /remove the handler of get_signals, not a tool profile things-seller serves \(/);
  // A misspelt tool: the closest of the profile's tools.
  assert.match(refused({ get_things: perRelease, make_thing, get_thigns: make_thing }), /remove the handler of get_thigns, not a tool profile things-seller serves; did you mean get_things\? \(/);
  // Both at once, in one message: the set is wrong in two ways, and the team fixes it in one go.
  assert.match(refused({ get_things: perRelease, get_signals: make_thing }), /write a handler for make_thing; remove the handler of get_signals, not a tool profile things-seller serves \(to serve another tool, add it to the profile's tools and regenerate\)$/);
  // agent.call with a per-release set lacking the release that answers: the agent's error, not a crash.
  const lacking = body(await agent.call('get_things', { mode: 'brief' }, { '9.1': perRelease['9.1'] }));
  assert.is(lacking.adcp_error.code, 'CONFIGURATION_ERROR');
  assert.match(lacking.adcp_error.message, /no handler for AdCP 9\.2/);
  // get_adcp_capabilities alone may be left to the profile.
  agent.registerMcp(server(), { get_things: perRelease, make_thing });
});

test.run();

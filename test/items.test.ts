import type { AgentCard, Message, Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import express from 'express';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { batchSet } from './helpers/batch-set.js';
import { setAt } from './helpers/generated.js';
import { v03Card } from './helpers/a2a-card.js';
import { serveAgent } from './helpers/serve.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(/batch-seller is served without authentication/);

/**
 * Per-item outcomes of batch tools (issue 19 point 2, runtime/items.ts) over MCP Streamable HTTP with the official
 * client, on the batch fixture (test/helpers/batch-set.ts): an item that fails its own schema is answered as its
 * failed row, in request order among the handler's rows for the valid items; the handler never sees it; a defect
 * outside the items rejects the whole call; development validates the merged body.
 */
const out = await batchSet();
const { loadProfile } = (await setAt(out)) as unknown as {
  loadProfile(name: string, o: { mode: 'production' | 'development' }): Promise<{
    registerMcp(server: unknown, handlers: unknown): void;
    a2aExecutor(handlers: unknown): never;
    a2aSkills(): AgentCard['skills'];
  }>;
};

type Seen = { args: Record<string, any>; ctx: Record<string, any> }[];
type Row = Record<string, any>;

async function connect(mode: 'production' | 'development', answer: (args: Record<string, any>) => unknown = rowsFor) {
  const agent = await loadProfile('batch-seller', { mode });
  const seen: Seen = [];
  const handler = (args: Record<string, any>, ctx: Record<string, any>) => {
    seen.push({ args, ctx });
    return answer(args);
  };
  const served = await serveAgent(agent, { sync_things: handler, sync_widgets: handler, sync_gadgets: handler });
  const client = new Client({ name: 'batch-buyer', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, any>; content: { text: string }[] };
    assert.equal(r.structuredContent, JSON.parse(r.content[0]!.text));
    return r;
  };
  return { call, seen, close: async () => (await client.close(), await served.close()) };
}

/** The handler's rows: one per item received, in order. */
function rowsFor(args: Record<string, any>): unknown {
  if (Array.isArray(args.things)) return { things: args.things.map((t: Row) => ({ thing_id: t.thing_id, brand: t.brand, action: 'created' })) };
  if (Array.isArray(args.widgets)) return { widgets: args.widgets.map((w: Row) => ({ widget_id: w.widget_id, status: 'synced' })) };
  return { gadgets: (args.gadgets ?? []).map((g: Row, i: number) => ({ request_index: i, gadget_id: g.gadget_id, status: 'ok' })) };
}

const thing = (n: number, extra: Record<string, unknown> = {}) => ({ thing_id: `t${n}`, brand: { domain: `b${n}.example` }, kind: 'a', ...extra });
const things = (...items: unknown[]) => ({ idempotency_key: 'key-0000-0001', things: items, context: { trace: 'x' } });

test('the derivation: a module per batch tool with rows that can fail, none for rows the request cannot build', () => {
  const profile = JSON.parse(readFileSync(join(out, 'profiles/batch-seller.json'), 'utf8').replace(/^[^{]*/, '')) as { profile: { releases: { itemOutcomes: string[] }[] } };
  assert.equal(profile.profile.releases[0]!.itemOutcomes, ['sync_things', 'sync_widgets']);
  const module = (tool: string) => createRequire(import.meta.url)(join(out, `releases/9.3/items/${tool}.cjs`)) as Record<string, any>;
  const things = module('sync_things');
  assert.equal([things.gate, things.body], [null, {}]);
  const p = things.pairings[0];
  assert.equal([p.request, p.response, p.identity, p.outcome, p.maxItems], ['things', 'things', ['thing_id', 'brand'], { action: 'failed' }, 5]);
  assert.is(typeof p.validateItem, 'function');
  assert.is(p.validateItem({ thing_id: 'x', brand: { domain: 'a.example' } }), true);
  assert.is(p.validateRow({ thing_id: 'x', brand: { domain: 'a.example' }, action: 'failed' }), true);
  assert.equal(module('sync_widgets').gate, { property: 'validation_mode', value: 'lenient' });
});

test('an item failing its own schema is its failed row; the handler sees only the valid items, and the rows merge in request order', async () => {
  for (const mode of ['production', 'development'] as const) {
    const { call, seen, close } = await connect(mode);
    const bad = thing(2, { kind: 'c', notification_configs: [{ event_types: ['scheduled'] }] });
    const r = await call('sync_things', things(thing(1), bad, thing(3)));
    assert.not.ok(r.isError, r.content[0]!.text);
    const rows = r.structuredContent!.things as Row[];
    assert.equal(rows.map((x) => [x.thing_id, x.action]), [['t1', 'created'], ['t2', 'failed'], ['t3', 'created']]);
    // The failed row: the identifying fields the row requires, copied; the outcome; errors[0] about the item itself.
    assert.equal(Object.keys(rows[1]!), ['thing_id', 'brand', 'action', 'errors']);
    assert.equal(rows[1]!.brand, { domain: 'b2.example' });
    const error = rows[1]!.errors[0];
    assert.is(error.code, 'INVALID_REQUEST');
    assert.is(error.recovery, 'correctable');
    assert.is(error.field, 'kind', 'relative to the item');
    assert.equal(error.issues.map((i: { pointer: string }) => i.pointer), ['/kind', '/notification_configs/0/event_types/0']);
    assert.is(error.details, undefined, 'issues carry the detail');
    assert.equal(r.structuredContent!.context, { trace: 'x' });
    assert.is(r.structuredContent!.status, 'completed');
    // The handler ran once, on the valid items, told where each sits in the request.
    assert.is(seen.length, 1);
    assert.equal(seen[0]!.args.things.map((t: Row) => t.thing_id), ['t1', 't3']);
    assert.equal(seen[0]!.ctx.requestIndex, { things: [0, 2] });
    await close();
  }
});

test('the notification-config case: one item, invalid: the runtime answers its row without calling the handler', async () => {
  const { call, seen, close } = await connect('development');
  const r = await call('sync_things', things(thing(1, { notification_configs: [{ event_types: ['scheduled'] }] })));
  assert.not.ok(r.isError, r.content[0]!.text);
  const row = (r.structuredContent!.things as Row[])[0]!;
  assert.is(row.action, 'failed');
  assert.is(row.errors[0].field, 'notification_configs[0].event_types[0]');
  assert.is(seen.length, 0, 'the handler never sees an invalid item');
  await close();
});

test('a defect outside the items, or an item whose row cannot be built, rejects the whole call', async () => {
  const { call, seen, close } = await connect('production');
  // The request's own field is wrong: rejected as a whole, naming both defects.
  let r = await call('sync_things', { ...things(thing(1), thing(2, { kind: 'c' })), idempotency_key: 'short' });
  assert.ok(r.isError);
  assert.equal(r.structuredContent!.adcp_error.issues.map((i: { pointer: string }) => i.pointer), ['/idempotency_key', '/things/1/kind']);
  // The row requires the item's brand, which is itself the defect: no valid row can be built.
  r = await call('sync_things', things(thing(1), thing(2, { brand: { domain: 'Not A Domain' } })));
  assert.ok(r.isError);
  assert.is(r.structuredContent!.adcp_error.field, 'things[1].brand.domain');
  // An array inside an item past its bound (as sync_governance's governance_agents, maxItems 1): the request's shape,
  // refused whole, never that item's failed row.
  r = await call('sync_things', things(thing(1), thing(2, { agents: ['https://one.example', 'https://two.example'] })));
  assert.ok(r.isError);
  assert.is(r.structuredContent!.adcp_error.code, 'INVALID_REQUEST');
  assert.is(r.structuredContent!.adcp_error.field, 'things[1].agents');
  // More items than the request array admits: a defect of the call.
  r = await call('sync_things', things(...[1, 2, 3, 4, 5, 6].map((n) => thing(n, n === 2 ? { kind: 'c' } : {}))));
  assert.ok(r.isError);
  // Rows needing a field the request does not carry (request_index): no per-item outcomes for this tool.
  r = await call('sync_gadgets', { gadgets: [{ gadget_id: 'g1' }, { gadget_id: 'g2', size: 'big' }] });
  assert.ok(r.isError);
  assert.is(r.structuredContent!.adcp_error.field, 'gadgets[1].size');
  assert.is(seen.length, 0);
  await close();
});

test('validation_mode: strict (the default) fails the entire call, lenient answers the invalid widget as its row', async () => {
  const { call, seen, close } = await connect('development');
  const widgets = [{ widget_id: 'w1' }, { widget_id: 'w2', size: 0 }];
  for (const mode of [undefined, 'strict']) {
    const r = await call('sync_widgets', { widgets, ...(mode === undefined ? {} : { validation_mode: mode }) });
    assert.ok(r.isError, `validation_mode ${mode}`);
    assert.is(r.structuredContent!.adcp_error.field, 'widgets[1].size');
  }
  const r = await call('sync_widgets', { widgets, validation_mode: 'lenient' });
  assert.not.ok(r.isError, r.content[0]!.text);
  assert.equal((r.structuredContent!.widgets as Row[]).map((w) => [w.widget_id, w.status]), [['w1', 'synced'], ['w2', 'failed']]);
  assert.is((r.structuredContent!.widgets as Row[])[1]!.errors[0].field, 'size');
  assert.equal(seen.map((s) => s.args.widgets.length), [1]);
  await close();
});

test('unknown fields per item: stripped in production (the item stays valid), a failed row in development', async () => {
  const extra = { ...thing(2), brand: { domain: 'b2.example', color: 'red' } };
  const prod = await connect('production');
  let r = await prod.call('sync_things', things(thing(1), extra));
  assert.equal((r.structuredContent!.things as Row[]).map((x) => x.action), ['created', 'created']);
  assert.equal(prod.seen[0]!.args.things[1].brand, { domain: 'b2.example' });
  await prod.close();
  const dev = await connect('development');
  r = await dev.call('sync_things', things(thing(1), extra));
  assert.not.ok(r.isError, r.content[0]!.text);
  const row = (r.structuredContent!.things as Row[])[1]!;
  assert.equal([row.action, row.errors[0].field, row.errors[0].issues[0].keyword], ['failed', 'brand.color', 'additionalProperties']);
  // The failed row copies the item as the handler would have seen it: without the unknown field.
  assert.equal(row.brand, { domain: 'b2.example' });
  await dev.close();
});

test('a failed row is bounded like a rejection: at most 50 issues, the rest counted', async () => {
  const { call, close } = await connect('development');
  const brand: Record<string, unknown> = { domain: 'b2.example' };
  for (let i = 0; i < 200; i++) brand[`unknown_${i}`] = i;
  const r = await call('sync_things', things(thing(1), { ...thing(2), brand }));
  assert.not.ok(r.isError, r.content[0]!.text);
  const error = (r.structuredContent!.things as Row[])[1]!.errors[0];
  assert.is(error.issues.length, 50);
  assert.equal(error.details, { issues_omitted: 150 });
  await close();
});

test('the merge contract: extra rows after the items received; fewer rows; an answer without rows stands', async () => {
  // Extra rows (a seller-managed entry) follow the rows for the items received.
  let { call, close } = await connect('development', (args) => ({ things: [...args.things.map((t: Row) => ({ thing_id: t.thing_id, brand: t.brand, action: 'updated' })), { thing_id: 'managed', brand: { domain: 'seller.example' }, action: 'unchanged' }] }));
  let r = await call('sync_things', things(thing(1, { kind: 'c' }), thing(2)));
  assert.equal((r.structuredContent!.things as Row[]).map((x) => [x.thing_id, x.action]), [['t1', 'failed'], ['t2', 'updated'], ['managed', 'unchanged']]);
  await close();
  // Fewer rows than items received: the failed rows keep their positions as far as the handler's rows go.
  ({ call, close } = await connect('development', () => ({ things: [{ thing_id: 't1', brand: { domain: 'b1.example' }, action: 'created' }] })));
  r = await call('sync_things', things(thing(1), thing(2), thing(3, { kind: 'c' })));
  assert.equal((r.structuredContent!.things as Row[]).map((x) => [x.thing_id, x.action]), [['t1', 'created'], ['t3', 'failed']]);
  await close();
  // An operation-level answer (the errors arm): the operation's outcome stands for every item.
  ({ call, close } = await connect('development', () => ({ errors: [{ code: 'SERVICE_UNAVAILABLE', message: 'down' }] })));
  r = await call('sync_things', things(thing(1), thing(2, { kind: 'c' })));
  assert.not.ok(r.isError, r.content[0]!.text);
  assert.equal(r.structuredContent!.errors, [{ code: 'SERVICE_UNAVAILABLE', message: 'down' }]);
  assert.is(r.structuredContent!.things, undefined);
  await close();
});

test('schema_id: a vendor copy of the schemas is not AdCP\'s published one, so production leaves it (and discriminator) out', async () => {
  const prod = await connect('production');
  const dev = await connect('development');
  const bad = { ...things(thing(1)), idempotency_key: 'short' };
  const p = (await prod.call('sync_things', bad)).structuredContent!.adcp_error.issues[0];
  const d = (await dev.call('sync_things', bad)).structuredContent!.adcp_error.issues[0];
  assert.equal(Object.keys(p).sort(), ['keyword', 'message', 'pointer']);
  assert.is(d.schema_id, 'https://vendor.example/adcp/schemas/9.3.0/media-buy/sync-things-request.json');
  assert.is(d.schemaPath, '#/properties/idempotency_key/minLength');
  await prod.close();
  await dev.close();
});

test('over A2A too (the same call pipeline): the failed row and the handler\'s rows in one artifact', async () => {
  const agent = await loadProfile('batch-seller', { mode: 'development' });
  const seen: Record<string, any>[] = [];
  const handler = (args: Record<string, any>) => (seen.push(args), rowsFor(args));
  const app = express();
  const http = await new Promise<import('node:http').Server>((resolve) => {
    const h = app.listen(0, '127.0.0.1', () => resolve(h));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const card = v03Card(base, 'batch seller', 'batch fixture over A2A 0.3', agent.a2aSkills());
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), agent.a2aExecutor({ sync_things: handler, sync_widgets: handler, sync_gadgets: handler }));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  try {
    const client = await new ClientFactory().createFromUrl(base);
    const message = { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'data', data: { skill: 'sync_things', input: things(thing(1, { kind: 'c' }), thing(2)) } }] } as Message;
    const task = (await client.sendMessage({ message })) as Task;
    assert.is(task.status.state, 'completed');
    const data = task.artifacts![0]!.parts.find((p) => p.kind === 'data') as { data: Record<string, any> };
    assert.equal((data.data.things as Row[]).map((x) => [x.thing_id, x.action]), [['t1', 'failed'], ['t2', 'created']]);
    assert.equal(seen.map((a) => a.things.length), [1]);
  } finally {
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }
});

test.run();

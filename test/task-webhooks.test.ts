import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setAt } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';
import { assertSchema, verifySigned } from './helpers/verify-webhook.js';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.js';
import { PAYLOAD_SCHEMAS, webhookSet } from './helpers/webhook-set.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(
  /hooks-sandbox: a webhook to 127\.0\.0\.1:\d+ uses the buyer's legacy HMAC-SHA256/,
  /hooks-sandbox keeps idempotency keys in memory/,
  /hooks-plain: task task_\S+ registered a webhook, but/,
);

/**
 * Async tasks' webhooks (L3/webhooks.mdx; L3/async-operations.mdx), end to end on the fixture set (helpers/webhook-set.ts)
 * over the embedded store, to a real node:http receiver: a task whose request registered a push_notification_config
 * delivers exactly one signed terminal webhook when it settles — later, from anywhere — enqueued in the transaction
 * that settles it; a replay of the submitting call adds none; a failed task delivers its failure. The push-config call
 * stage refuses what the agent would never deliver to; a task in a release whose push config declares operation_id
 * (AdCP 3.2) needs one, in one that does not (3.0.6) it does not.
 */
const { loadProfile } = await setAt(await webhookSet());
type Agent = Awaited<ReturnType<typeof loadProfile>>;
type Body = Record<string, any>;
const FAST = { pollIntervalMs: 50, initialBackoffMs: 40, maxBackoffMs: 200 };
const body = (r: { structuredContent?: Body }): Body => r.structuredContent!;
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A handler that makes the call an async task and answers `submitted`. */
const submitting = async (_args: Body, ctx: { task(): Promise<{ submitted(m?: string): Body }> }) => (await ctx.task()).submitted('queued for review');

let receiver: Receiver;
test.before(async () => {
  receiver = await startReceiver();
});
test.after(async () => {
  await receiver.close();
});

const sandbox = async (stateDir = tempDir()): Promise<Agent> => {
  const agent = await loadProfile('hooks-sandbox' as never, { store: { stateDir }, webhooks: FAST });
  await agent.ready();
  return agent;
};

test('completed later: exactly one signed webhook, the 3.2 payload (operation_id, token, notification_id, result with context); a replay adds none', async () => {
  const agent = await sandbox();
  const path = `/tasks/${randomUUID()}`;
  const request = {
    thing: { id: 't1' },
    idempotency_key: randomUUID(),
    context: { correlation_id: 'async-hook-1' },
    push_notification_config: { url: `${receiver.base}${path}`, operation_id: 'op_make_thing_1', token: 'tok_0123456789abcdef' },
  };
  const first = await agent.call('make_thing', request, submitting, { principal: 'buyer-a' });
  assert.not.ok(first.isError, JSON.stringify(body(first)));
  assert.is(body(first).status, 'submitted');
  const taskId = String(body(first).task_id);
  const replay = await agent.call('make_thing', request, submitting, { principal: 'buyer-a' });
  assert.is(body(replay).replayed, true);
  assert.is(body(replay).task_id, taskId);
  await settle(150);
  assert.is(receiver.received.filter((r) => r.path === path).length, 0, 'no webhook before the task settles (no `working` one)');

  assert.ok(await agent.task(taskId).complete({ thing: { id: 't1' } }));
  await receiver.until((all) => all.some((r) => r.path === path));
  // The submitting call replayed again, the task settled again: still one.
  await agent.call('make_thing', request, submitting, { principal: 'buyer-a' });
  assert.not.ok(await agent.task(taskId).complete({ thing: { id: 't2' } }));
  await settle(400);
  const got = receiver.received.filter((r) => r.path === path);
  assert.is(got.length, 1, 'one webhook per operation');
  const hook = got[0]!.json;
  assertSchema(PAYLOAD_SCHEMAS.mcpWebhookPayload, hook, 'core/mcp-webhook-payload.json');
  assert.match(await verifySigned(agent, got[0]!), /^adcp-dev-/);
  assert.equal(
    { ...hook, idempotency_key: undefined, timestamp: undefined },
    {
      idempotency_key: undefined,
      timestamp: undefined,
      operation_id: 'op_make_thing_1',
      notification_id: `${taskId}.terminal`,
      task_id: taskId,
      task_type: 'make_thing',
      protocol: 'media-buy',
      status: 'completed',
      token: 'tok_0123456789abcdef',
      // The result as the call would have answered it: its envelope, the request's context echoed.
      result: { thing: { id: 't1' }, context: { correlation_id: 'async-hook-1' }, status: 'completed', adcp_version: '9.1' },
    },
  );
  await agent.close();
});

test('failed: the webhook carries the failure as the response\'s error arm, with the context; legacy HMAC only because the buyer asked', async () => {
  const agent = await sandbox();
  const path = `/tasks/${randomUUID()}`;
  const secret = 'buyer-hmac-secret-0123456789abcdefghij';
  const r = await agent.call(
    'make_thing',
    { thing: { id: 't9' }, context: { correlation_id: 'async-fail' }, push_notification_config: { url: `${receiver.base}${path}`, operation_id: 'op_fail', authentication: { schemes: ['HMAC-SHA256'], credentials: secret } } },
    submitting,
  );
  const taskId = String(body(r).task_id);
  assert.ok(await agent.task(taskId).fail({ code: 'PRODUCT_UNAVAILABLE', message: 'sold out', recovery: 'terminal' }));
  await receiver.until((all) => all.some((x) => x.path === path));
  const got = receiver.received.find((x) => x.path === path)!;
  assertSchema(PAYLOAD_SCHEMAS.mcpWebhookPayload, got.json, 'core/mcp-webhook-payload.json');
  assert.is(got.json.status, 'failed');
  assert.is(got.json.message, 'sold out');
  assert.equal(got.json.result, { errors: [{ code: 'PRODUCT_UNAVAILABLE', message: 'sold out', recovery: 'terminal' }], context: { correlation_id: 'async-fail' } });
  assert.match(String(got.headers['x-adcp-signature']), /^sha256=[0-9a-f]{64}$/);
  assert.is(got.headers.signature, undefined, 'one mode, never both');
  await agent.close();
});

test('the push-config stage: loopback and http refused in production, INVALID_REQUEST naming the field, before any handler; a sandbox takes its loopback receiver; a call without one is untouched', async () => {
  const key = { ...(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'prod-tasks' };
  const prod = await loadProfile('hooks-production' as never, { store: 'memory', signing: { key: key as never } });
  let ran = 0;
  const counting = async (args: Body, ctx: Body) => (ran++, submitting(args, ctx as never));
  const refused = async (url: string, message: RegExp) => {
    const r = await prod.call('make_thing', { thing: { id: 'x' }, context: { n: 1 }, push_notification_config: { url, operation_id: 'op_x' } }, counting);
    assert.ok(r.isError, url);
    assert.equal([body(r).adcp_error.code, body(r).adcp_error.field], ['INVALID_REQUEST', 'push_notification_config.url']);
    assert.match(body(r).adcp_error.message, message);
    assert.equal(body(r).context, { n: 1 }, 'the context echoed');
  };
  await refused(`${receiver.base}/hook`, /must be an https URL/);
  await refused(`https://127.0.0.1:${new URL(receiver.base).port}/hook`, /loopback/);
  await refused('https://10.0.0.7/hook', /private/);
  await refused('https://localhost/hook', /loopback/);
  assert.is(ran, 0, 'no handler ran');
  assert.not.ok((await prod.call('make_thing', { thing: { id: 'x' } }, () => ({ thing: { id: 'x' } }))).isError);
  await prod.close();
  const sand = await loadProfile('hooks-sandbox' as never, { store: 'memory' });
  const ok = await sand.call('make_thing', { thing: { id: 'x' }, push_notification_config: { url: `${receiver.base}/hook`, operation_id: 'op_x' } }, counting);
  assert.not.ok(ok.isError, JSON.stringify(body(ok)));
  assert.is(ran, 1);
  await sand.close();
});

test('a channel the agent cannot honour (no webhooks, a host that does not resolve, a legacy scheme not offered): an answer given in the call is sent; ctx.task() refuses it', async () => {
  const key = { ...(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'prod-tasks-2' };
  const prod = await loadProfile('hooks-production' as never, { store: 'memory', signing: { key: key as never } });
  const plain = await loadProfile('hooks-plain' as never, { store: 'memory' });
  const sync = () => ({ thing: { id: 'x' } });
  const cases: [Agent, Body, string, RegExp][] = [
    [plain, { url: 'https://8.8.8.8/hook', operation_id: 'op_x' }, 'push_notification_config', /does not deliver webhooks/],
    [prod, { url: 'https://no-such-host.invalid/hook', operation_id: 'op_x' }, 'push_notification_config.url', /names a host that does not resolve/],
    [prod, { url: 'https://8.8.8.8/hook', operation_id: 'op_x', authentication: { schemes: ['Bearer'], credentials: 'b'.repeat(40) } }, 'push_notification_config.authentication', /is not offered by this agent/],
  ];
  for (const [agent, push, field, message] of cases) {
    const args = { thing: { id: 'x' }, context: { n: 4 }, push_notification_config: push };
    assert.not.ok((await agent.call('make_thing', args, sync)).isError, `${field}: answered in the call`);
    const r = await agent.call('make_thing', args, submitting);
    assert.ok(r.isError, field);
    assert.equal([body(r).adcp_error.code, body(r).adcp_error.field], ['INVALID_REQUEST', field]);
    assert.match(body(r).adcp_error.message, message);
    assert.not.ok(JSON.stringify(body(r)).includes('b'.repeat(40)), 'credentials never echoed');
    assert.equal(body(r).context, { n: 4 });
  }
  await prod.close();
  await plain.close();
});

test('operation_id: a 3.2-style push config without one makes ctx.task() refuse (INVALID_REQUEST); a synchronous answer needs none; a 3.0-style one needs none either', async () => {
  const agent = await sandbox();
  const path = `/tasks/${randomUUID()}`;
  const push = { url: `${receiver.base}${path}` };
  const refused = await agent.call('make_thing', { thing: { id: 'x' }, context: { n: 2 }, push_notification_config: push }, submitting);
  assert.ok(refused.isError);
  assert.equal([body(refused).adcp_error.code, body(refused).adcp_error.field], ['INVALID_REQUEST', 'push_notification_config.operation_id']);
  assert.equal(body(refused).context, { n: 2 });
  const sync = await agent.call('make_thing', { thing: { id: 'x' }, push_notification_config: push }, () => ({ thing: { id: 'x' } }));
  assert.not.ok(sync.isError, 'an answer given in the call sends no webhook and needs no operation_id');
  // get_things registers with 3.0.6's push config, which has no operation_id: the task goes on, its webhook without one.
  const legacy = await agent.call('get_things', { context: { n: 3 }, push_notification_config: push }, submitting);
  assert.not.ok(legacy.isError, JSON.stringify(body(legacy)));
  await agent.task(String(body(legacy).task_id)).complete({ things: [] });
  await receiver.until((all) => all.some((r) => r.path === path));
  const hook = receiver.received.find((r) => r.path === path)!.json;
  assert.is(hook.operation_id, undefined);
  assert.is(hook.task_type, 'get_things');
  assert.equal(hook.result, { things: [], context: { n: 3 }, status: 'completed', adcp_version: '9.1' });
  await agent.close();
});

test('a task whose push config was registered where webhooks were on, settled by an agent that delivers none: settled, not lost', async () => {
  const stateDir = tempDir();
  const on = await sandbox(stateDir);
  const r = await on.call('make_thing', { thing: { id: 'x' }, push_notification_config: { url: `${receiver.base}/never`, operation_id: 'op_off' } }, submitting);
  const taskId = String(body(r).task_id);
  await on.close();
  const off = await loadProfile('hooks-plain' as never, { store: { stateDir } });
  assert.ok(await off.task(taskId).complete({ thing: { id: 'x' } }), 'the state change is recorded');
  assert.not.ok(await off.task(taskId).complete({ thing: { id: 'y' } }), 'and it is terminal');
  await off.close();
  // Read back as get_task_status does, from the store.
  const { tasksService } = (await import(pathToFileURL(join(repoRoot, 'dist/runtime/services/tasks/service.js')).href)) as { tasksService(s: unknown, o: unknown): { read(id: string, p: string): Promise<Body | undefined> } };
  const { lazyStore } = (await import(pathToFileURL(join(repoRoot, 'dist/runtime/stores/open.js')).href)) as { lazyStore(o: unknown, p: string): { close(): Promise<void> } };
  const store = lazyStore({ stateDir }, 'hooks-plain');
  const task = await tasksService(store, { resultFor: (_t: unknown, x: Body) => x }).read(taskId, '');
  assert.is(task?.status, 'completed');
  await store.close();
  await settle(200);
  assert.is(receiver.received.filter((x) => x.path === '/never').length, 0);
});

test.run();

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet } from './helpers/generated.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(/get_task_status: the store failed: PostgreSQL at 127\.0\.0\.1:9/, /list_creatives: the store failed: PostgreSQL at 127\.0\.0\.1:9/);

/**
 * Async tasks in the runtime (L3/async-operations.mdx): a handler answers `submitted` through `ctx.task()`, the task
 * lives in the agent's store (the embedded one here, a state directory really opened), ends by `complete` or `fail`
 * from anywhere (`agent.task(id)`), and its reads (get_task_status, list_tasks: AdCP 3.1+, tested over 3.2 in
 * test/real/tasks.test.ts) answer only its owner. On the committed set (AdCP 3.0.6).
 */
const { loadProfile } = await committedSet();
type Body = Record<string, unknown>;
const body = (r: { structuredContent?: Body }): Body => r.structuredContent!;

/** The runtime's task reads, as the built-in get_task_status and list_tasks run them. */
const { taskReaders } = (await import(pathToFileURL(join(repoRoot, 'dist/runtime/services/tasks/reads.js')).href)) as {
  taskReaders(tasks: unknown): Record<'get_task_status' | 'list_tasks', (args: Body, ctx: Body) => Promise<Body>>;
};

test('a handler answers submitted with ctx.task(); a retry of its key replays the same task_id; the task completes later, once', async () => {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development', store: { stateDir: tempDir() } });
  const made: string[] = [];
  const handler = async (_args: Body, ctx: { task(): Promise<{ taskId: string; submitted(m?: string): Body }> }) => {
    const task = await ctx.task();
    made.push(task.taskId);
    return task.submitted('waiting for IO approval');
  };
  const request = createMediaBuyRequest({ context: { correlation_id: 'async-1' } });
  const first = await agent.call('create_media_buy', request, handler, { principal: 'buyer-a' });
  assert.not.ok(first.isError, JSON.stringify(body(first)));
  assert.is(body(first).status, 'submitted');
  assert.match(String(body(first).task_id), /^task_/);
  assert.equal(body(first).context, { correlation_id: 'async-1' });
  const retry = await agent.call('create_media_buy', request, handler, { principal: 'buyer-a' });
  assert.is(body(retry).task_id, body(first).task_id, 'the first submitted answer is the key\'s canonical one');
  assert.is(body(retry).replayed, true);
  assert.is(made.length, 1);
  const task = agent.task(String(body(first).task_id));
  assert.ok(await task.complete({ media_buy_id: 'mb_async', packages: [], status: 'pending_creatives' }));
  assert.not.ok(await task.complete({ media_buy_id: 'mb_other', packages: [] }), 'a terminal task never changes again');
  assert.not.ok(await task.fail({ code: 'CONFLICT', message: 'late' }));
  await agent.close();
});

test('the task reads: the owner sees status, result and history; another principal or account finds nothing; list filters and pages', async () => {
  const stateDir = tempDir();
  const agent = await loadProfile('guaranteed-publisher', { store: { stateDir } });
  const submitted = async (principal: string, account: Body) => {
    const r = await agent.call('create_media_buy', createMediaBuyRequest({ account }), async (_a: Body, ctx: { task(): Promise<{ submitted(): Body }> }) => (await ctx.task()).submitted(), { principal });
    return String(body(r).task_id);
  };
  const a1 = await submitted('buyer-a', { account_id: 'acc_1' });
  const a2 = await submitted('buyer-a', { account_id: 'acc_2' });
  await submitted('buyer-b', { account_id: 'acc_1' });
  await agent.task(a1).complete({ media_buy_id: 'mb_1', packages: [] });
  await agent.task(a2).fail({ code: 'PRODUCT_UNAVAILABLE', message: 'sold out' });

  // The reads over the same state directory, as a second instance would serve them.
  const { tasksService } = (await import(pathToFileURL(join(repoRoot, 'dist/runtime/services/tasks/service.js')).href)) as { tasksService(s: unknown, o: unknown): unknown };
  const { lazyStore } = (await import(pathToFileURL(join(repoRoot, 'dist/runtime/stores/open.js')).href)) as { lazyStore(o: unknown, p: string): unknown };
  const read = taskReaders(tasksService(lazyStore({ stateDir }, 'guaranteed-publisher'), { resultFor: (_t: unknown, r: Body) => r }));
  const a = { principal: 'buyer-a' };
  const status = await read.get_task_status({ task_id: a1, include_result: true, include_history: true }, a);
  assert.is(status.status, 'completed');
  assert.is(status.task_type, 'create_media_buy');
  assert.is(status.protocol, 'media-buy');
  // Kept as the 3.0 buyer's call would have been answered, in its release's envelope.
  assert.equal(status.result, { media_buy_id: 'mb_1', packages: [], adcp_version: '3.0' });
  assert.is((status.history as Body[]).length, 2);
  assert.ok(typeof status.completed_at === 'string');
  const failed = await read.get_task_status({ task_id: a2 }, a);
  assert.equal(failed.error, { code: 'PRODUCT_UNAVAILABLE', message: 'sold out' });
  const notFound = async (args: Body, ctx: Body) => read.get_task_status(args, ctx).then(() => 'found', (e: { code?: string }) => e.code);
  assert.is(await notFound({ task_id: a1 }, { principal: 'buyer-b' }), 'REFERENCE_NOT_FOUND', 'another principal');
  assert.is(await notFound({ task_id: a1, account: { account_id: 'acc_2' } }, a), 'REFERENCE_NOT_FOUND', 'another account');
  assert.is(await notFound({ task_id: `task_${randomUUID()}` }, a), 'REFERENCE_NOT_FOUND', 'never existed');
  const listed = await read.list_tasks({ filters: { statuses: ['completed', 'failed'] }, pagination: { max_results: 1 } }, a);
  assert.equal((listed.query_summary as Body).total_matching, 2);
  assert.is((listed.tasks as Body[]).length, 1);
  assert.is((listed.pagination as Body).has_more, true);
  const next = await read.list_tasks({ filters: { statuses: ['completed', 'failed'] }, pagination: { max_results: 1, cursor: (listed.pagination as Body).cursor } }, a);
  assert.is((next.pagination as Body).has_more, false);
  assert.is(((await read.list_tasks({ account: { account_id: 'acc_1' } }, a)).tasks as Body[]).length, 1);
  assert.is(((await read.list_tasks({}, { principal: 'buyer-b' })).tasks as Body[]).length, 1);
  await agent.close();
});

test('development mode refuses a task result its release\'s response schema refuses, and the task stays open', async () => {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development', store: { stateDir: tempDir() } });
  const r = await agent.call('create_media_buy', createMediaBuyRequest(), async (_a: Body, ctx: { task(): Promise<{ submitted(): Body }> }) => (await ctx.task()).submitted());
  const task = agent.task(String(body(r).task_id));
  const e = await task.complete({ media_buy_id: 7 } as Body).then(() => undefined, (x: Error) => x);
  assert.match(String(e?.message), /does not match the AdCP 3\.0 response schema/);
  assert.ok(await task.complete({ media_buy_id: 'mb_ok', packages: [] }));
  await agent.close();
});

test('the store out of reach is SERVICE_UNAVAILABLE (transient, retry_after), never CONFIGURATION_ERROR: a task read, and ctx.task() in a handler', async () => {
  const { taskReaders: readers } = await import(pathToFileURL(join(repoRoot, 'dist/runtime/services/tasks/reads.js')).href);
  const { tasksService } = await import(pathToFileURL(join(repoRoot, 'dist/runtime/services/tasks/service.js')).href);
  const { lazyStore } = await import(pathToFileURL(join(repoRoot, 'dist/runtime/stores/open.js')).href);
  const { thrownBody } = await import(pathToFileURL(join(repoRoot, 'dist/runtime/wire/response.js')).href);
  const { WARNINGS } = await import(pathToFileURL(join(repoRoot, 'dist/runtime/ops/log.js')).href);
  // Port 9 (discard) on loopback: nothing answers, the connection is refused at once.
  const gone = lazyStore({ url: 'postgres://u:secret@127.0.0.1:9/none' }, 'gone');
  const read = readers(tasksService(gone, { resultFor: (_t: unknown, r: unknown) => r, effects: { onSettle: async () => undefined } }));
  const thrown = await read.get_task_status({ task_id: 'task_1' }, { principal: 'p' }).then(() => undefined, (e: unknown) => e);
  const asRead = thrownBody('get_task_status', thrown, WARNINGS);
  assert.equal({ code: asRead.code, recovery: asRead.recovery, retry_after: asRead.retry_after }, { code: 'SERVICE_UNAVAILABLE', recovery: 'transient', retry_after: 1 });
  assert.not.match(JSON.stringify(asRead), /secret/);
  const agent = await loadProfile('guaranteed-publisher', { store: { url: 'postgres://u:secret@127.0.0.1:9/none' } });
  const r = await agent.call('list_creatives', {}, async (_a: Body, ctx: { task(): Promise<{ submitted(): Body }> }) => (await ctx.task()).submitted());
  const error = body(r).adcp_error as Body;
  assert.equal({ code: error.code, recovery: error.recovery }, { code: 'SERVICE_UNAVAILABLE', recovery: 'transient' });
  await agent.close();
  await gone.close();
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boundedTaskStore } from '../runtime/transports/http/task-store.js';

/**
 * The HTTP entry's A2A task store (transports/http/task-store.ts) on its own: at most maxTasks per principal, each at
 * most ttlMs after its last save, that principal's oldest first out; a task belongs to the principal that saved it; copies in and out; A2A 1.0's
 * list. http-entry-a2a.test.ts checks the same bound over the wire.
 */

const as = (userName: string) => ({ user: { isAuthenticated: true, userName } });
const anonymous = { user: { isAuthenticated: false, userName: '' } };
const task = (id: string, extra: Record<string, unknown> = {}) => ({ id, contextId: 'ctx', status: { state: 3, timestamp: `2026-01-01T00:00:0${id.slice(-1)}Z` }, artifacts: [{ a: 1 }], ...extra });

test('at most maxTasks: the least recently saved goes first', async () => {
  const store = boundedTaskStore({ maxTasks: 2 });
  await store.save(task('t1'), as('p'));
  await store.save(task('t2'), as('p'));
  await store.save(task('t1', { touched: true }), as('p')); // t1 saved again: t2 is now the oldest
  await store.save(task('t3'), as('p'));
  assert.is(store.size, 2);
  assert.is(await store.load('t2', as('p')), undefined);
  assert.is((await store.load('t1', as('p')))!.touched, true);
  assert.ok(await store.load('t3', as('p')));
});

test("the bound is per principal: one caller's tasks never evict another's", async () => {
  const store = boundedTaskStore({ maxTasks: 2 });
  await store.save(task('k1'), as('keyed'));
  for (let i = 0; i < 50; i++) await store.save(task(`f${i}`), as('flood'));
  assert.ok(await store.load('k1', as('keyed')), "the keyed caller's task survives the flood");
  assert.is(store.size, 3);
  assert.is(await store.load('f0', as('flood')), undefined, "the flood loses its own oldest");
});

test('each task at most ttlMs after its last save', async () => {
  let now = 0;
  const store = boundedTaskStore({ ttlMs: 1_000, now: () => now });
  await store.save(task('t1'), as('p'));
  now = 600;
  await store.save(task('t2'), as('p'));
  now = 1_000;
  assert.is(await store.load('t1', as('p')), undefined);
  assert.ok(await store.load('t2', as('p')));
  now = 1_600;
  assert.is(await store.load('t2', as('p')), undefined);
  assert.is(store.size, 0);
});

test("a task is its principal's: another principal, or an anonymous caller, does not find it", async () => {
  const store = boundedTaskStore();
  await store.save(task('t1'), as('buyer-a'));
  assert.ok(await store.load('t1', as('buyer-a')));
  assert.is(await store.load('t1', as('buyer-b')), undefined);
  assert.is(await store.load('t1', anonymous), undefined);
  assert.is(await store.load('t1', undefined), undefined);
});

test('copies in and out: a change to a saved or loaded task changes nothing stored', async () => {
  const store = boundedTaskStore();
  const t = task('t1');
  await store.save(t, as('p'));
  (t.artifacts as unknown[]).push('after');
  const loaded = (await store.load('t1', as('p')))!;
  (loaded.artifacts as unknown[]).push('mine');
  assert.equal((await store.load('t1', as('p')))!.artifacts, [{ a: 1 }]);
});

test('list (A2A 1.0): the caller\'s tasks, newest status first, paged, artifacts only when asked', async () => {
  const store = boundedTaskStore();
  for (const id of ['t1', 't2', 't3']) await store.save(task(id), as('p'));
  await store.save(task('t9'), as('other'));
  const first = await store.list!({ pageSize: 2 }, as('p'));
  assert.equal(first.tasks.map((t) => t.id), ['t3', 't2']);
  assert.is(first.totalSize, 3);
  assert.equal(first.tasks[0]!.artifacts, []);
  const second = await store.list!({ pageSize: 2, pageToken: first.nextPageToken, includeArtifacts: true }, as('p'));
  assert.equal(second.tasks.map((t) => t.id), ['t1']);
  assert.equal(second.tasks[0]!.artifacts, [{ a: 1 }]);
  assert.is(second.nextPageToken, '');
});

test('options are checked', () => {
  assert.throws(() => boundedTaskStore({ maxTasks: 0 }), /maxTasks must be a positive integer/);
  assert.throws(() => boundedTaskStore({ ttlMs: 1.5 }), /taskTtlMs must be a positive integer/);
});

test.run();

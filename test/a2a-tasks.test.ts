import { verifyApiKey } from '@adcp/sdk/server';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setAt } from './helpers/generated.js';
import { a2aSend, rpc } from './helpers/http.js';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';
import { webhookSet } from './helpers/webhook-set.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(/an A2A Task of more than a2a.maxTaskBytes \(10000 bytes\) even without its history is not kept/);

/**
 * The HTTP entry's A2A Tasks in the agent's own store (services/tasks/a2a-tasks.ts): an AdCP task an A2A call made is
 * answered at once (a completed A2A Task whose DataPart says `submitted`, as AdCP's A2A profile has it), and once it
 * settles — later, from anywhere — tasks/get over A2A shows its end (status, and its answer as the artifact); Tasks
 * outlive the agent (a new one on the same state directory finds them), stay their principal's, and stay bounded.
 */
const { loadProfile } = await setAt(await webhookSet());
type Body = Record<string, any>;
const KEYS = { sk_a2a_tasks_a: 'buyer-a', sk_a2a_tasks_b: 'buyer-b' };
const authenticate = verifyApiKey({ keys: Object.fromEntries(Object.entries(KEYS).map(([key, principal]) => [key, { principal }])) });
const A = { authorization: 'Bearer sk_a2a_tasks_a' };
const B = { authorization: 'Bearer sk_a2a_tasks_b' };
const handlers = {
  get_things: () => ({ things: [] }),
  make_thing: async (_args: Body, ctx: { task(): Promise<{ submitted(m?: string): Body }> }) => (await ctx.task()).submitted('awaiting approval'),
  comply_test_controller: () => ({}),
};
const serve = async (stateDir: string, a2a: Record<string, unknown> = {}) => {
  const agent = await loadProfile('hooks-sandbox' as never, { store: { stateDir } });
  const served = await agent.serve(handlers as never, { port: 0, authenticate, a2a });
  return { agent, served, url: served.url.replace(/\/mcp$/, '/a2a') };
};
const send = async (url: string, skill: string, input: Body, headers = A, id = 1): Promise<Body> => JSON.parse((await rpc(url, a2aSend(skill, input, id), headers)).text);
const get = async (url: string, taskId: string, headers = A): Promise<Body> => JSON.parse((await rpc(url, { jsonrpc: '2.0', id: 7, method: 'tasks/get', params: { id: taskId } }, headers)).text);
const dataOf = (task: Body): Body => task.artifacts[0].parts[0].data;

test('message/send answers submitted (a completed A2A Task); after the AdCP task completes, tasks/get over A2A shows the result; a failure shows as failed', async () => {
  const stateDir = tempDir();
  const { agent, served, url } = await serve(stateDir);
  try {
    const sent = (await send(url, 'make_thing', { thing: { id: 'a1' }, context: { correlation_id: 'a2a-async' } })).result;
    assert.is(sent.status.state, 'completed', 'AdCP\'s A2A profile: the invocation completed; the AdCP status is in the DataPart');
    assert.is(dataOf(sent).status, 'submitted');
    const adcpTask = String(dataOf(sent).task_id);
    assert.is(dataOf((await get(url, sent.id)).result).status, 'submitted', 'before it settles');
    assert.ok(await agent.task(adcpTask).complete({ thing: { id: 'a1' } }));
    const done = (await get(url, sent.id)).result;
    assert.is(done.status.state, 'completed');
    // The result as a call would have answered it: enveloped (status, adcp_version), the request's context echoed.
    assert.equal(dataOf(done), { thing: { id: 'a1' }, context: { correlation_id: 'a2a-async' }, status: 'completed', adcp_version: '9.1' });
    assert.equal([done.kind, done.id, done.contextId], ['task', sent.id, sent.contextId], 'the SDK\'s Task, its end written over it');
    assert.is((await get(url, sent.id, B)).error.code, -32001, 'another principal finds nothing');

    const other = (await send(url, 'make_thing', { thing: { id: 'a2' } }, A, 2)).result;
    assert.ok(await agent.task(String(dataOf(other).task_id)).fail({ code: 'PRODUCT_UNAVAILABLE', message: 'sold out' }));
    const failed = (await get(url, other.id)).result;
    assert.is(failed.status.state, 'failed');
    assert.equal(dataOf(failed).adcp_error, { code: 'PRODUCT_UNAVAILABLE', message: 'sold out' });
    assert.is(failed.artifacts[0].parts[1].text, 'PRODUCT_UNAVAILABLE: sold out');
  } finally {
    await served.close();
  }
});

test('@a2a-js/sdk 1.x (A2A 1.0): the settled task\'s end on its Task in the 1.0 shape (TASK_STATE_COMPLETED / FAILED, a data part)', async () => {
  const stateDir = tempDir();
  const { agent, served, url } = await serve(stateDir, { package: '@a2a-js/sdk-v1' });
  const v1 = { ...A, 'a2a-version': '1.0' };
  const sendV1 = async (input: Body, id: number): Promise<Body> =>
    JSON.parse((await rpc(url, { jsonrpc: '2.0', id, method: 'SendMessage', params: { message: { messageId: `m-v1-${id}`, role: 'ROLE_USER', parts: [{ data: { skill: 'make_thing', input } }] } } }, v1)).text).result.task;
  const getV1 = async (id: string): Promise<Body> => JSON.parse((await rpc(url, { jsonrpc: '2.0', id: 9, method: 'GetTask', params: { id } }, v1)).text).result;
  try {
    const sent = await sendV1({ thing: { id: 'v1' }, context: { via: 'a2a-1.0' } }, 1);
    assert.is(sent.status.state, 'TASK_STATE_COMPLETED');
    const adcpTask = String(sent.artifacts[0].parts[0].data.task_id);
    assert.ok(await agent.task(adcpTask).complete({ thing: { id: 'v1' } }));
    const done = await getV1(sent.id);
    assert.is(done.status.state, 'TASK_STATE_COMPLETED');
    assert.equal(done.artifacts[0].parts[0].data, { thing: { id: 'v1' }, context: { via: 'a2a-1.0' }, status: 'completed', adcp_version: '9.1' });
    const other = await sendV1({ thing: { id: 'v1b' } }, 2);
    assert.ok(await agent.task(String(other.artifacts[0].parts[0].data.task_id)).fail({ code: 'PRODUCT_UNAVAILABLE', message: 'sold out' }));
    const failed = await getV1(other.id);
    assert.is(failed.status.state, 'TASK_STATE_FAILED');
    assert.equal(failed.artifacts[0].parts[0].data.adcp_error, { code: 'PRODUCT_UNAVAILABLE', message: 'sold out' });
  } finally {
    await served.close();
  }
});

test('Tasks are durable: a new agent on the same state directory answers tasks/get, and shows a task settled meanwhile by another', async () => {
  const stateDir = tempDir();
  const first = await serve(stateDir);
  const sync = (await send(first.url, 'get_things', {})).result;
  const sent = (await send(first.url, 'make_thing', { thing: { id: 'd1' } }, A, 2)).result;
  await first.served.close();
  // Settled by an agent serving no A2A at all (a worker), then read over A2A by yet another.
  const worker = await loadProfile('hooks-sandbox' as never, { store: { stateDir } });
  assert.ok(await worker.task(String(dataOf(sent).task_id)).complete({ thing: { id: 'd1' } }));
  await worker.close();
  const second = await serve(stateDir);
  try {
    assert.equal(dataOf((await get(second.url, sync.id)).result), dataOf(sync));
    assert.equal(dataOf((await get(second.url, sent.id)).result), { thing: { id: 'd1' }, status: 'completed', adcp_version: '9.1' });
  } finally {
    await second.served.close();
  }
});

test("the store stays bounded per principal: with maxTasks 5, thirty Tasks leave a caller its newest five, another caller's untouched; an anonymous caller's are not kept", async () => {
  const stateDir = tempDir();
  const { served, url } = await serve(stateDir, { maxTasks: 5 });
  const ids: string[] = [];
  try {
    const keptB = String((await send(url, 'get_things', {}, B, 100)).result.id);
    for (let i = 0; i < 30; i++) ids.push(String((await send(url, 'get_things', {}, A, i)).result.id));
    // Anonymous discovery answers, and leaves nothing behind.
    for (let i = 0; i < 10; i++) assert.is((await send(url, 'get_adcp_capabilities', {}, {} as typeof A, 200 + i)).result.status.state, 'completed');
    const { durableA2AStore } = (await import(pathToFileURL(join(repoRoot, 'dist/runtime/services/tasks/a2a-tasks.js')).href)) as {
      durableA2AStore(s: unknown, o: unknown): { count(principal?: string): Promise<number> };
    };
    const { lazyStore } = (await import(pathToFileURL(join(repoRoot, 'dist/runtime/stores/open.js')).href)) as { lazyStore(o: unknown, p: string): { close(): Promise<void> } };
    const store = lazyStore({ stateDir }, 'hooks-sandbox');
    const view = durableA2AStore(store, { maxTasks: 5 });
    assert.equal([await view.count('buyer-a'), await view.count('buyer-b'), await view.count('')], [5, 1, 0]);
    await store.close();
    assert.is((await get(url, ids[0]!)).error.code, -32001);
    for (const id of ids.slice(-5)) assert.is((await get(url, id)).result.id, id);
    assert.is((await get(url, keptB, B)).result.id, keptB, "buyer-b's Task outlived buyer-a's thirty");
  } finally {
    await served.close();
  }
});

test('maxTaskBytes bounds a principal in bytes too: its oldest go first; a Task larger than the budget is kept without its history, or not at all', async () => {
  const { durableA2AStore } = (await import(pathToFileURL(join(repoRoot, 'dist/runtime/services/tasks/a2a-tasks.js')).href)) as {
    durableA2AStore(s: unknown, o: unknown): { save(t: Body, c: unknown): Promise<void>; load(id: string, c: unknown): Promise<Body | undefined>; count(p?: string): Promise<number> };
  };
  const { lazyStore } = (await import(pathToFileURL(join(repoRoot, 'dist/runtime/stores/open.js')).href)) as { lazyStore(o: unknown, p: string): { close(): Promise<void> } };
  const store = lazyStore({ stateDir: tempDir() }, 'bytes');
  const view = durableA2AStore(store, { maxTasks: 100, maxTaskBytes: 10_000 });
  const as = (userName: string) => ({ user: { isAuthenticated: true, userName } });
  const task = (id: string, history: unknown[] = []) => ({ id, contextId: 'c', status: { state: 'completed' }, artifacts: [{ parts: [{ kind: 'data', data: { x: 'y'.repeat(2_000) } }] }], history });
  await view.save(task('other'), as('other'));
  for (let i = 0; i < 10; i++) await view.save(task(`t${i}`), as('p'));
  // ~2.1 KB each: four fit in 10,000 bytes.
  assert.is(await view.count('p'), 4);
  assert.ok(await view.load('t9', as('p')));
  assert.is(await view.load('t5', as('p')), undefined);
  assert.ok(await view.load('other', as('other')), "another principal's Task stays");
  await view.save(task('big', [{ parts: [{ kind: 'text', text: 'z'.repeat(20_000) }] }]), as('p'));
  assert.equal((await view.load('big', as('p')))!.history, [], 'kept without the history that did not fit');
  await view.save({ ...task('huge'), artifacts: [{ parts: [{ kind: 'text', text: 'z'.repeat(20_000) }] }] }, as('p'));
  assert.is(await view.load('huge', as('p')), undefined, 'too large even without its history: not kept');
  await store.close();
});

test.run();

import type { Message as V03Message, Task as V03Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { Message as V1Message, type Task as V1Task } from '@a2a-js/sdk-v1';
import { ClientFactory as V1ClientFactory } from '@a2a-js/sdk-v1/client';
import { verifyApiKey } from '@adcp/sdk/server';
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boundedTaskStore } from '../runtime/transports/http/task-store.js';
import { committedSet, exampleHandlers, type SellerHandlers } from './helpers/generated.js';
import { a2aSend, http, rpc } from './helpers/http.js';

/**
 * A2A on the product's HTTP entry (agent.serve): the agent card, JSON-RPC at /a2a through @a2a-js/sdk's own request
 * handler, authentication before the executor, the principal in the handler's ctx, SSE for message/stream, and the
 * task store (the agent's own by default, test/a2a-tasks.test.ts; the bounded in-memory one as an override); on
 * 0.3.x (this repository's @a2a-js/sdk) with its client, and on 1.x (`@a2a-js/sdk-v1`) with its client and a 0.3
 * client through its compatibility layer.
 */

const { loadProfile } = await committedSet();
const agent = await loadProfile('guaranteed-publisher', { mode: 'production' });
const KEYS = { sk_a2a_one: 'buyer-7', sk_a2a_two: 'buyer-8' } as const;
const authenticate = verifyApiKey({ keys: Object.fromEntries(Object.entries(KEYS).map(([key, principal]) => [key, { principal }])) });
const seen: Record<string, any>[] = [];
const base = await exampleHandlers(agent);
const handlers: SellerHandlers = { ...base, list_creatives: (args, ctx) => (seen.push(ctx), base.list_creatives(args, ctx)) };
const running = await agent.serve(handlers, { port: 0, authenticate });
const root = running.url.replace(/\/mcp$/, '');

/** The 0.3 client, sending `Authorization: Bearer <key>` when given one. */
async function client03(at: string, key?: string) {
  const fetchImpl: typeof fetch = (input, init) => fetch(input, key === undefined ? init : { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${key}` } });
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] }));
  return factory.createFromUrl(at);
}
const message03 = (skill: string, input: Record<string, unknown> = {}): V03Message => ({ kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'data', data: { skill, input } }] });
const dataOf = (task: V03Task): Record<string, any> => (task.artifacts![0]!.parts[0] as { data: Record<string, any> }).data;

test('the agent card is public: JSON-RPC at /a2a, a skill per tool, streaming, the Bearer scheme named', async () => {
  const r = await http(`${root}/.well-known/agent-card.json`);
  assert.is(r.status, 200);
  const card = JSON.parse(r.text);
  assert.is(card.url, `${root}/a2a`);
  assert.is(card.protocolVersion, '0.3.0');
  assert.equal(card.skills.map((s: { id: string }) => s.id), agent.tools());
  assert.is(card.capabilities.streaming, true);
  assert.equal(card.securitySchemes, { bearer: { type: 'http', scheme: 'bearer' } });
  assert.equal(card.security, [{ bearer: [] }]);
  assert.is((await http(`${root}/.well-known/agent-card.json`, { method: 'POST' })).status, 405);
  assert.is((await http(`${root}/a2a`)).status, 405);
});

test('0.3 client without credentials: get_adcp_capabilities completes; a protected skill is 401 with the challenge, the executor untouched', async () => {
  const client = await client03(root);
  const task = (await client.sendMessage({ message: message03('get_adcp_capabilities') })) as V03Task;
  assert.is(task.status.state, 'completed');
  assert.equal(dataOf(task).adcp.supported_versions, ['3.0']);
  const before = seen.length;
  try {
    await client.sendMessage({ message: message03('list_creatives') });
    assert.unreachable('a protected skill answered without credentials');
  } catch (e) {
    assert.match(String(e), /401/);
  }
  const raw = await rpc(`${root}/a2a`, a2aSend('list_creatives'));
  assert.is(raw.status, 401);
  assert.is(raw.headers['www-authenticate'], 'Bearer realm="adcp"');
  // The base URL A2A clients are given answers JSON-RPC too (AdCP's grader probes it there): protected the same.
  const atRoot = await rpc(`${root}/`, a2aSend('list_creatives'));
  assert.is(atRoot.status, 401);
  assert.is(atRoot.headers['www-authenticate'], 'Bearer realm="adcp"');
  const wrong = await rpc(`${root}/a2a`, a2aSend('list_creatives'), { authorization: 'Bearer sk_nobody' });
  assert.is(wrong.status, 401);
  assert.match(String(wrong.headers['www-authenticate']), /error="invalid_token"/);
  // Everything but a public skill's message/send is protected: tasks/get too.
  assert.is((await rpc(`${root}/a2a`, { jsonrpc: '2.0', id: 9, method: 'tasks/get', params: { id: task.id } })).status, 401);
  // A request the SDK runs no method for (AdCP's grader probes the A2A base URL with a raw MCP initialize; a method it
  // does not serve; params it refuses) is protected as well; with a key it is the SDK's own JSON-RPC error.
  for (const message of [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } },
    { jsonrpc: '2.0', id: 2, method: 'no/such' },
    { jsonrpc: '2.0', id: 3, method: 'message/send', params: 'not an object' },
  ]) {
    const anonymous = await rpc(`${root}/`, message);
    assert.is(anonymous.status, 401, JSON.stringify(message));
    assert.is(anonymous.headers['www-authenticate'], 'Bearer realm="adcp"');
    const keyed = await rpc(`${root}/`, message, { authorization: 'Bearer sk_a2a_one' });
    assert.ok(keyed.status === 200 && JSON.parse(keyed.text).error !== undefined, keyed.text);
  }
  // And so is a message of a public skill naming a Task (continuing it, or referencing one): caller-scoped state.
  for (const naming of [{ taskId: task.id }, { referenceTaskIds: [task.id] }]) {
    const send = a2aSend('get_adcp_capabilities');
    const continuing = await rpc(`${root}/a2a`, { ...send, params: { message: { ...send.params.message, ...naming } } });
    assert.is(continuing.status, 401, JSON.stringify(naming));
    assert.is(continuing.headers['www-authenticate'], 'Bearer realm="adcp"');
  }
  assert.is(seen.length, before, 'no handler ran');
});

test('one reading: parts the 0.3 SDK reads as no DataPart (a 1.0 `content`, a kind-less `data`, a text part carrying data) are INVALID_REQUEST, never a protected skill run without credentials', async () => {
  const before = seen.length;
  const protectedData = { skill: 'list_creatives', input: {} };
  const shapes = [
    // The probe: the public skill in 0.3's form beside a protected one in 1.0's.
    [{ kind: 'data', data: { skill: 'get_adcp_capabilities', input: {} } }, { content: { $case: 'data', value: protectedData } }],
    [{ data: { skill: 'get_adcp_capabilities', input: {} } }, { content: { $case: 'data', value: protectedData } }],
    [{ data: protectedData }],
    [{ kind: 'text', text: 'hi', data: protectedData }],
    [{ kind: 'file', file: { uri: 'https://x.example/a' }, content: { $case: 'data', value: protectedData } }],
    [{ kind: 'data', data: protectedData, content: { $case: 'data', value: protectedData } }],
  ];
  for (const [path, method] of [['/a2a', 'message/send'], ['/', 'message/stream']] as const) {
    for (const [i, parts] of shapes.entries()) {
      const r = await rpc(`${root}${path}`, { jsonrpc: '2.0', id: i, method, params: { message: { kind: 'message', messageId: `m-${i}`, role: 'user', parts } } });
      assert.is(r.status, 200, `${method} ${i}: ${r.text}`);
      const body = JSON.parse(method === 'message/stream' ? r.text.slice('data: '.length) : r.text);
      const data = body.result.artifacts[0].parts[0].data;
      assert.is(data.adcp_error.code, 'INVALID_REQUEST', `${method} ${i}: ${r.text}`);
      assert.match(data.adcp_error.message, /^A2A: part \d is not an A2A 0\.3 part/);
    }
  }
  // Two DataParts of 0.3's own form: several DataParts, whatever skills they name.
  const two = await rpc(`${root}/a2a`, { jsonrpc: '2.0', id: 9, method: 'message/send', params: { message: { kind: 'message', messageId: 'm-two', role: 'user', parts: [{ kind: 'data', data: { skill: 'get_adcp_capabilities' } }, { kind: 'data', data: protectedData }] } } });
  assert.match(JSON.parse(two.text).result.artifacts[0].parts[0].data.adcp_error.message, /several DataParts/);
  assert.is(seen.length, before, 'no handler ran');
});

test('0.3 client with a key: the protected skill completes and its handler sees ctx.principal, ctx.auth without the key', async () => {
  const client = await client03(root, 'sk_a2a_one');
  const task = (await client.sendMessage({ message: message03('list_creatives', { context: { via: 'a2a' } }) })) as V03Task;
  assert.is(task.status.state, 'completed', JSON.stringify(task));
  assert.equal(dataOf(task).context, { via: 'a2a' });
  const ctx = seen.at(-1)!;
  assert.is(ctx.principal, 'buyer-7');
  assert.is(ctx.auth.principal, 'buyer-7');
  assert.not.ok(JSON.stringify(ctx.auth).includes('sk_a2a_one'));
  // The task is the principal's: its own tasks/get finds it, another principal's does not.
  assert.is(((await client.getTask({ id: task.id })) as V03Task).id, task.id);
  const other = await rpc(`${root}/a2a`, { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: task.id } }, { authorization: 'Bearer sk_a2a_two' });
  assert.is(JSON.parse(other.text).error.code, -32001);
});

test('message/stream answers over SSE with the final task', async () => {
  const client = await client03(root, 'sk_a2a_one');
  const events: unknown[] = [];
  for await (const event of client.sendMessageStream({ message: message03('list_creatives') })) events.push(event);
  assert.is(events.length, 1);
  const task = events[0] as V03Task;
  assert.is(task.kind, 'task');
  assert.is(task.status.state, 'completed');
  const raw = await rpc(`${root}/a2a`, { ...a2aSend('get_adcp_capabilities'), method: 'message/stream' });
  assert.is(raw.status, 200);
  assert.is(raw.headers['content-type'], 'text/event-stream');
  assert.match(raw.text, /^data: \{"jsonrpc":"2.0","id":1,"result":\{"kind":"task"/);
});

test('the in-memory task store (a2a.taskStore) is bounded: 3,000 message/send with a large context keep the newest maxTasks; an evicted task is task-not-found', async () => {
  const maxTasks = 100;
  const served = await agent.serve(handlers, { port: 0, authenticate, a2a: { taskStore: boundedTaskStore({ maxTasks }) } });
  const url = served.url.replace(/\/mcp$/, '/a2a');
  const keepAlive = new HttpAgent({ keepAlive: true, maxSockets: 8 });
  const auth = { authorization: 'Bearer sk_a2a_one' };
  // 16 KB of context per message: the buyer's message stays in its task's history (and the bounded store's copy).
  const context = { blob: 'x'.repeat(16 * 1024) };
  try {
    await rpc(url, a2aSend('get_adcp_capabilities', {}, -1), auth, keepAlive);
    const heapBefore = heapAfterGc();
    const ids: string[] = [];
    for (let start = 0; start < 3_000; start += 8) {
      const batch = await Promise.all(Array.from({ length: 8 }, (_, k) => rpc(url, a2aSend('get_adcp_capabilities', { context }, start + k), auth, keepAlive)));
      for (const r of batch) ids.push(JSON.parse(r.text).result.id as string);
    }
    assert.is(new Set(ids).size, 3_000);
    // What 3,000 tasks would hold: more than 3,000 × 16 KB; what 100 hold: under 2 MB, and a little of everything else.
    const grown = heapAfterGc() - heapBefore;
    assert.ok(grown < 20e6, `the heap grew ${(grown / 1e6).toFixed(1)} MB over 3,000 tasks of 16 KB`);
    // Which of the 3,000 the store still holds (sends ran 8 at a time: the newest 100 by save, within the last batch's spread).
    const found: number[] = [];
    for (let start = 0; start < ids.length; start += 50) {
      const answers = await Promise.all(ids.slice(start, start + 50).map((id, k) => rpc(url, { jsonrpc: '2.0', id: k, method: 'tasks/get', params: { id } }, auth, keepAlive)));
      answers.forEach((r, k) => {
        const body = JSON.parse(r.text);
        if (body.result !== undefined) found.push(start + k);
        else assert.is(body.error.code, -32001, r.text);
      });
    }
    assert.is(found.length, maxTasks, 'the store holds exactly maxTasks');
    assert.ok(found.every((i) => i >= 3_000 - maxTasks - 8), `only the newest are kept: ${found.slice(0, 5).join(', ')} …`);
    const evicted = JSON.parse((await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: ids[0] } }, auth)).text);
    assert.is(evicted.error.code, -32001);
    assert.match(evicted.error.message, /Task not found/);
  } finally {
    keepAlive.destroy();
    await served.close();
  }
});

test('@a2a-js/sdk 1.x: its own client over A2A 1.0, a 0.3 client through its compatibility layer, authentication on both', async () => {
  const served = await agent.serve(handlers, { port: 0, authenticate, a2a: { package: '@a2a-js/sdk-v1' } });
  const at = served.url.replace(/\/mcp$/, '');
  try {
    const legacyCard = JSON.parse((await http(`${at}/.well-known/agent-card.json`)).text);
    assert.is(legacyCard.protocolVersion, '0.3.0');
    const v1Card = JSON.parse((await http(`${at}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } })).text);
    assert.equal(v1Card.supportedInterfaces.map((i: { protocolVersion: string }) => i.protocolVersion), ['1.0', '0.3']);
    const v1 = await new V1ClientFactory().createFromUrl(at);
    const message = V1Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill: 'get_adcp_capabilities', input: {} } }] });
    const task = (await v1.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined })) as V1Task;
    assert.ok(task.artifacts[0]!.parts[0]!.content?.$case === 'data');
    // A 1.0 SendMessage of a protected skill without credentials: 401 before the SDK sees it.
    const protectedV1 = { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { skill: 'list_creatives', input: {} } }] } } };
    assert.is((await rpc(`${at}/a2a`, protectedV1, { 'a2a-version': '1.0' })).status, 401);
    const ok = JSON.parse((await rpc(`${at}/a2a`, protectedV1, { 'a2a-version': '1.0', authorization: 'Bearer sk_a2a_two' })).text);
    assert.ok(ok.result !== undefined, JSON.stringify(ok));
    assert.is(seen.at(-1)!.principal, 'buyer-8');
    const legacy = await client03(at, 'sk_a2a_one');
    const legacyTask = (await legacy.sendMessage({ message: message03('list_creatives') })) as V03Task;
    assert.is(legacyTask.status.state, 'completed');
    assert.is(seen.at(-1)!.principal, 'buyer-7');
  } finally {
    await served.close();
  }
});

/** The heap in use after a full collection (V8's gc, exposed for this process: node runs the tests without --expose-gc). */
function heapAfterGc(): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

test.after(async () => {
  await running.close();
});

test.run();

import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { subscribers } from '../../runtime/services/notifications/subscribers.js';
import { lazyStore } from '../../runtime/stores/open.js';
import { createDatabase, startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { sharedReleaseDir } from '../helpers/releases.js';
import { tempDir } from '../helpers/temp.js';
import { assertSchema } from '../helpers/verify-webhook.js';
import { agentProcess as spawnAgent, type AgentProcess } from '../helpers/agent-process.js';
import { startReceiver, type Received, type Receiver } from '../helpers/webhook-receiver.js';
import { PAYLOAD_SCHEMAS, webhookSet } from '../helpers/webhook-set.js';

/**
 * The services built on the outbox over a real PostgreSQL (test/helpers/postgres.ts) shared by two agent processes, as
 * deployed: a task made on one instance and settled on the other — twice over, concurrently — delivers one terminal
 * webhook, and a replay of its call on the other instance adds none; an A2A Task shows its AdCP task's end, settled by
 * another instance, to a new agent; two instances starting together on a new
 * capabilities_version deliver one capabilities.changed per subscriber (checked against AdCP 3.2.0-beta.5's own
 * core/capabilities-changed-webhook.json), and a restart on the same version none.
 */
const release32 = sharedReleaseDir();
if (release32 === undefined) throw new Error('../shared/adcp/3.2.0-beta.5 is required for the real-release suite');

const setDir = await webhookSet();
const FAST = { pollIntervalMs: 50, initialBackoffMs: 50, maxBackoffMs: 200 };
let pg: PostgresServer;
let receiver: Receiver;
const children = new Set<ChildProcess>();
test.before(async () => {
  [pg, receiver] = await Promise.all([startPostgres({ name: 'task_notifications' }), startReceiver()]);
});
test.after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await receiver.close();
  await pg.stop();
});
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An agent process of `profile` over `url`, with a configured public URL, taking commands on stdin (one JSON per line). */
const script = join(tempDir(), 'agent.mjs');
writeFileSync(
  script,
  [
    `import { createInterface } from 'node:readline';`,
    `const { loadProfile } = await import(${JSON.stringify(pathToFileURL(join(setDir, 'index.js')).href)});`,
    `const [profile, url] = process.argv.slice(2);`,
    `const agent = await loadProfile(profile, { mode: 'development', store: { url }, webhooks: ${JSON.stringify(FAST)}, publicUrl: 'https://seller.example' });`,
    `await agent.ready();`,
    `process.stdout.write(JSON.stringify({ ready: process.pid }) + '\\n');`,
    `const submitting = async (_a, ctx) => (await ctx.task()).submitted();`,
    `for await (const line of createInterface({ input: process.stdin })) {`,
    `  const c = JSON.parse(line);`,
    `  const result = c.call ? (await agent.call(c.call.tool, c.call.args, submitting, { principal: 'buyer-a' })).structuredContent`,
    `    : c.complete ? await agent.task(c.complete).complete({ thing: { id: 'done' } })`,
    `    : await agent.capabilities().adcp.capability_changes?.capabilities_version;`,
    `  process.stdout.write(JSON.stringify({ id: c.id, result }) + '\\n');`,
    `}`,
  ].join('\n'),
);

const agentProcess = (profile: string, url: string): Promise<AgentProcess> => spawnAgent(script, [profile, url], children);

test('a task made on one instance, settled on both at once: one terminal webhook; a replay of its call on the other adds none', async () => {
  const url = await createDatabase(pg, 'tasks');
  const [a, b] = await Promise.all([agentProcess('hooks-sandbox', url), agentProcess('hooks-sandbox', url)]);
  const path = `/real/task/${randomUUID()}`;
  const args = { thing: { id: 'pg1' }, idempotency_key: randomUUID(), context: { correlation_id: 'pg-task' }, push_notification_config: { url: `${receiver.base}${path}`, operation_id: 'op_pg_task' } };
  const submitted = await a.send({ call: { tool: 'make_thing', args } });
  assert.is(submitted.status, 'submitted');
  const replayed = await b.send({ call: { tool: 'make_thing', args } });
  assert.equal([replayed.task_id, replayed.replayed], [submitted.task_id, true], 'the other instance replays it');
  const settled = await Promise.all([a.send({ complete: submitted.task_id }), b.send({ complete: submitted.task_id })]);
  assert.equal(settled.sort(), [false, true], 'one settle wins');
  await receiver.until((all) => all.some((r) => r.path === path), 15_000);
  await b.send({ call: { tool: 'make_thing', args } });
  await settle(1000);
  const got = receiver.received.filter((r) => r.path === path);
  assert.is(got.length, 1);
  assertSchema(PAYLOAD_SCHEMAS.mcpWebhookPayload, got[0]!.json, 'core/mcp-webhook-payload.json');
  assert.equal([got[0]!.json.operation_id, got[0]!.json.task_id, got[0]!.json.status], ['op_pg_task', submitted.task_id, 'completed']);
  // The result as the call would have answered it: enveloped, the request's context echoed.
  assert.equal(got[0]!.json.result, { thing: { id: 'done' }, context: { correlation_id: 'pg-task' }, status: 'completed', adcp_version: '9.1' });
  a.child.kill('SIGKILL');
  b.child.kill('SIGKILL');
});

test('A2A over PostgreSQL: a Task answered submitted by one instance shows the AdCP task\'s result once the other settles it; a new agent reads it', async () => {
  const url = await createDatabase(pg, 'a2a');
  const { loadProfile } = (await import(pathToFileURL(join(setDir, 'index.js')).href)) as { loadProfile(n: string, o: unknown): Promise<any> };
  const handlers = { get_things: () => ({ things: [] }), make_thing: async (_a: unknown, ctx: any) => (await ctx.task()).submitted(), comply_test_controller: () => ({}) };
  const serveOn = async () => {
    const agent = await loadProfile('hooks-sandbox', { store: { url } });
    const served = await agent.serve(handlers, { port: 0 });
    return { served, a2a: served.url.replace(/\/mcp$/, '/a2a') };
  };
  const rpcJson = async (at: string, message: unknown): Promise<any> =>
    (await (await fetch(at, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(message) })).json()) as any;
  const first = await serveOn();
  const sent = (await rpcJson(first.a2a, { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'data', data: { skill: 'make_thing', input: { thing: { id: 'pg-a2a' }, context: { n: 1 } } } }] } } })).result;
  assert.is(sent.artifacts[0].parts[0].data.status, 'submitted');
  const other = await agentProcess('hooks-sandbox', url);
  assert.is(await other.send({ complete: sent.artifacts[0].parts[0].data.task_id }), true);
  other.child.kill('SIGKILL');
  await first.served.close();
  const second = await serveOn();
  const read = (await rpcJson(second.a2a, { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: sent.id } })).result;
  assert.is(read.status.state, 'completed');
  assert.equal(read.artifacts[0].parts[0].data, { thing: { id: 'done' }, context: { n: 1 }, status: 'completed', adcp_version: '9.1' });
  await second.served.close();
});

test('two instances starting together on a new capabilities_version: one capabilities.changed per subscriber (3.2\'s schema); none on the first start, none on a restart', async () => {
  const url = await createDatabase(pg, 'caps');
  const first = await agentProcess('hooks-notify', url);
  first.child.kill('SIGKILL');
  const store = lazyStore({ url }, 'hooks-notify');
  const subs = subscribers(store);
  const sub = (id: string) => ({ subscriber_id: id, url: `${receiver.base}/real/caps/${id}`, event_types: ['capabilities.changed'], active: true });
  await subs.replace('buyer-a', [sub('a1'), sub('a2')]);
  await subs.replace('buyer-b', [sub('b1'), { ...sub('b2'), active: false }]);
  await store.close();
  const fired = (id: string): Received[] => receiver.received.filter((r) => r.path === `/real/caps/${id}`);
  await settle(500);
  assert.is(fired('a1').length, 0, 'the first start announced nothing');

  const pair = await Promise.all([agentProcess('hooks-notify-next', url), agentProcess('hooks-notify-next', url)]);
  const version = await pair[0].send({ version: true });
  await receiver.until(() => ['a1', 'a2', 'b1'].every((id) => fired(id).length > 0), 15_000);
  await settle(1000);
  const schema = JSON.parse(readFileSync(join(release32, 'core/capabilities-changed-webhook.json'), 'utf8')) as { properties: Record<string, unknown>; $id?: string };
  delete schema.properties.ext;
  delete schema.$id;
  for (const id of ['a1', 'a2', 'b1']) {
    assert.is(fired(id).length, 1, id);
    const body = fired(id)[0]!.json;
    assertSchema(schema, body, 'AdCP 3.2.0-beta.5 core/capabilities-changed-webhook.json');
    assert.equal([body.subscriber_id, body.agent_url, body.capabilities_version, body.reason], [id, 'https://seller.example/mcp', version, 'deployment_changed']);
  }
  assert.is(fired('b2').length, 0, 'an inactive subscriber');
  for (const p of pair) p.child.kill('SIGKILL');
  const again = await agentProcess('hooks-notify-next', url);
  await settle(1000);
  assert.is(fired('a1').length, 1, 'a restart on the same version announces nothing');
  again.child.kill('SIGKILL');
});

test.run();

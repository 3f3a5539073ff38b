import type { Message as V03Message, Task as V03Task } from '@a2a-js/sdk';
import { ClientFactory as V03ClientFactory } from '@a2a-js/sdk/client';
import * as v03Server from '@a2a-js/sdk/server';
import * as v03Express from '@a2a-js/sdk/server/express';
import { Message as V1Message, TaskState, type AgentCard as V1AgentCard, type Part as V1Part, type Task as V1Task } from '@a2a-js/sdk-v1';
import { ClientFactory as V1ClientFactory } from '@a2a-js/sdk-v1/client';
import * as v1Server from '@a2a-js/sdk-v1/server';
import * as v1Express from '@a2a-js/sdk-v1/server/express';
import { AgentClient } from '@adcp/sdk';
import express from 'express';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { a2aSkills, createA2AExecutor, type A2AExecutor, type A2AExecutorOptions } from '../runtime/transports/a2a.js';
import type { ToolHandler } from '../runtime/agent.js';
import { committedSet, exampleHandlers } from './helpers/generated.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { v03Card } from './helpers/a2a-card.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(/handler for list_creatives failed: Error: database password hunter2/);

/**
 * AdCP over A2A through the real @a2a-js/sdk servers and clients over HTTP on 127.0.0.1, on both supported majors:
 * 1.x (A2A 1.0, the SDK's own 1.x client) and 0.3.x (A2A 0.3), and AdCP's own client (@adcp/sdk, A2A 0.3) against
 * the 1.x server through its v0.3 compatibility layer. The executor is this checkout's runtime/a2a.ts around an agent
 * of the committed generated set, so the test does not depend on a regenerated set.
 */
const { loadProfile } = await committedSet();
const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });

const faultMessage = 'database password hunter2 at /srv/seller/db.js:12';
const handlers: Record<string, ToolHandler<any, any, any>> = {
  ...(await exampleHandlers(agent)),
  // A handler with a bug: its message, stack and file paths must stay on the server.
  list_creatives: () => {
    throw new Error(faultMessage);
  },
};

/** A task as either major's client returns it, read into one shape. */
interface Answer {
  state: string;
  body: Record<string, any>;
  text?: string;
}

interface Served {
  base: string;
  send(parts: unknown[]): Promise<Answer>;
  close(): Promise<void>;
}

function listen(app: express.Express): Promise<{ http: Server; base: string }> {
  return new Promise((resolve) => {
    const http = app.listen(0, '127.0.0.1', () => resolve({ http, base: `http://127.0.0.1:${(http.address() as AddressInfo).port}` }));
  });
}

const close = (http: Server) => () => new Promise<void>((resolve) => http.close(() => resolve()));

/** The 1.x server as its README documents it (Express, JSON-RPC), with the v0.3 compatibility layer on. */
async function serveV1(options?: A2AExecutorOptions): Promise<Served> {
  const app = express();
  const { http, base } = await listen(app);
  const card: V1AgentCard = {
    name: 'example seller',
    description: 'AdCP seller over A2A 1.0',
    supportedInterfaces: [
      { url: `${base}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${base}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: a2aSkills(agent),
    signatures: [],
  };
  // The point of the 1.x support: this type-checks against the 1.x AgentExecutor.
  const executor: A2AExecutor = createA2AExecutor(agent, handlers, options);
  const requestHandler = new v1Server.DefaultRequestHandler(card, new v1Server.InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', v1Express.agentCardHandler({ agentCardProvider: requestHandler, legacyCompat: { enabled: true } }));
  app.use('/a2a', v1Express.jsonRpcHandler({ requestHandler, userBuilder: v1Express.UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  const client = await new V1ClientFactory().createFromUrl(base);
  return {
    base,
    close: close(http),
    async send(parts) {
      const message = V1Message.fromJSON({ messageId: randomUUID(), role: 'ROLE_USER', parts });
      const result = await client.sendMessage({ tenant: '', message, configuration: undefined, metadata: undefined });
      assert.ok('status' in result, 'the answer is a Task');
      const task = result as V1Task;
      const parts1 = task.artifacts[0]?.parts ?? [];
      const data = parts1.find((p: V1Part) => p.content?.$case === 'data')?.content;
      const text = parts1.find((p: V1Part) => p.content?.$case === 'text')?.content;
      assert.ok(data?.$case === 'data', 'the artifact carries a DataPart');
      return {
        state: ({ [TaskState.TASK_STATE_COMPLETED]: 'completed', [TaskState.TASK_STATE_FAILED]: 'failed' } as Record<number, string>)[task.status!.state] ?? String(task.status!.state),
        body: data.value as Record<string, any>,
        ...(text?.$case === 'text' ? { text: text.value } : {}),
      };
    },
  };
}

/** The 0.3.x server, Express and JSON-RPC as that major documents it. */
async function serveV03(options?: A2AExecutorOptions): Promise<Served> {
  const app = express();
  const { http, base } = await listen(app);
  const card = v03Card(base, 'example seller', 'AdCP seller over A2A 0.3', a2aSkills(agent));
  const requestHandler = new v03Server.DefaultRequestHandler(card, new v03Server.InMemoryTaskStore(), createA2AExecutor(agent, handlers, options));
  app.use('/.well-known/agent-card.json', v03Express.agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a', v03Express.jsonRpcHandler({ requestHandler, userBuilder: v03Express.UserBuilder.noAuthentication }));
  const client = await new V03ClientFactory().createFromUrl(base);
  return {
    base,
    close: close(http),
    async send(parts) {
      const message = { kind: 'message', messageId: randomUUID(), role: 'user', parts } as V03Message;
      const task = (await client.sendMessage({ message })) as V03Task;
      assert.is(task.kind, 'task');
      const parts03 = task.artifacts?.[0]?.parts ?? [];
      const data = parts03.find((p) => p.kind === 'data');
      const text = parts03.find((p) => p.kind === 'text');
      assert.ok(data?.kind === 'data', 'the artifact carries a DataPart');
      return { state: task.status.state, body: data.data as Record<string, any>, ...(text?.kind === 'text' ? { text: text.text } : {}) };
    },
  };
}

/** A message part in each major's wire form. */
const parts = {
  '1.x': { data: (data: unknown) => ({ data }), text: (text: string) => ({ text }) },
  '0.3.x': { data: (data: unknown) => ({ kind: 'data', data }), text: (text: string) => ({ kind: 'text', text }) },
} as const;

for (const [major, serve] of [
  ['1.x', serveV1],
  ['0.3.x', serveV03],
] as const) {
  const part = parts[major];
  let served: Served;

  test(`${major}: a valid skill call completes with the AdCP response as a DataPart artifact`, async () => {
    served = await serve();
    const { state, body, text } = await served.send([
      part.data({ skill: 'create_media_buy', input: createMediaBuyRequest({ idempotency_key: randomUUID(), context: { via: major } }) }),
    ]);
    assert.is(state, 'completed');
    assert.match(body.media_buy_id, /^mb_/);
    // 3.0's create_media_buy `status` is the media buy's own state (the runtime never fills in the task's
    // `completed` there): the seller states it, a buy without creatives yet.
    assert.is(body.status, 'pending_creatives');
    assert.is(body.adcp_version, '3.0');
    assert.equal(body.context, { via: major });
    assert.is(text, undefined);
  });

  test(`${major}: invalid input fails the task with the INVALID_REQUEST MCP gives, context echoed; legacy \`parameters\` works`, async () => {
    const args = { buying_mode: 'nope', brief: 'x', context: { via: major } };
    const { state, body, text } = await served.send([part.data({ skill: 'get_products', parameters: args })]);
    const direct = JSON.parse((await agent.call('get_products', args, handlers.get_products!)).content[0]!.text) as Record<string, unknown>;
    assert.is(state, 'failed');
    assert.equal(body, direct);
    assert.is(body.adcp_error.code, 'INVALID_REQUEST');
    assert.is(body.adcp_error.field, 'buying_mode');
    assert.equal(body.context, { via: major });
    assert.is(body.status, 'failed');
    assert.is(text, `INVALID_REQUEST: ${body.adcp_error.message}`);
  });

  test(`${major}: an unknown skill fails with UNSUPPORTED_FEATURE naming only the skill, context echoed`, async () => {
    const { state, body } = await served.send([part.data({ skill: 'get_signals', input: { context: { via: major } } })]);
    assert.is(state, 'failed');
    assert.equal(body.adcp_error, { code: 'UNSUPPORTED_FEATURE', message: body.adcp_error.message, recovery: 'correctable', details: { tool: 'get_signals' } });
    assert.equal(body.context, { via: major });
    assert.is(body.adcp_version, '3.0');
  });

  test(`${major}: messages that are not one DataPart { skill, input } fail with INVALID_REQUEST`, async () => {
    const cases: [unknown[], RegExp, unknown][] = [
      [[part.text('get_products please')], /no DataPart/, undefined],
      [[part.data({ skill: 'get_products', input: {} }), part.data({ skill: 'get_products', input: {} })], /several DataParts/, undefined],
      [[part.data(['get_products'])], /must be an object/, undefined],
      [[part.data({ tool: 'get_products', input: { context: { via: major } } })], /non-empty string "skill"/, { via: major }],
      [[part.data({ skill: 'get_products', input: 'brief=x' })], /"input" \(or legacy "parameters"\) must be an object/, undefined],
      [[part.data({ skill: 'get_products', input: [{ context: 1 }] })], /must be an object/, undefined],
      // As over MCP: null is not "no arguments", and neither is a number or a boolean.
      [[part.data({ skill: 'get_products', input: null })], /"input" \(or legacy "parameters"\) must be an object/, undefined],
      [[part.data({ skill: 'get_products', input: 42 })], /"input" \(or legacy "parameters"\) must be an object/, undefined],
      [[part.data({ skill: 'get_products', parameters: false })], /"input" \(or legacy "parameters"\) must be an object/, undefined],
    ];
    for (const [message, pattern, context] of cases) {
      const { state, body } = await served.send(message);
      assert.is(state, 'failed');
      assert.is(body.adcp_error.code, 'INVALID_REQUEST');
      assert.is(body.adcp_error.recovery, 'correctable');
      assert.match(body.adcp_error.message, pattern);
      assert.equal(body.context, context);
      assert.is(body.status, 'failed');
    }
  });

  test(`${major}: a throwing handler fails the task with MCP's error and nothing of the fault`, async () => {
    const args = { context: { via: major } };
    const { state, body } = await served.send([part.data({ skill: 'list_creatives', input: args })]);
    const direct = JSON.parse((await agent.call('list_creatives', args, handlers.list_creatives!)).content[0]!.text) as Record<string, unknown>;
    assert.is(state, 'failed');
    assert.equal(body, direct);
    assert.type(body.adcp_error.code, 'string');
    assert.equal(body.context, { via: major });
    const wire = JSON.stringify(body);
    for (const secret of ['hunter2', '/srv/', 'db.js', '    at ']) assert.not.ok(wire.includes(secret), `the body leaks ${secret}`);
  });

  test(`${major}: rejectedTaskState "completed" keeps the rejection artifact on a completed Task`, async () => {
    await served.close();
    served = await serve({ rejectedTaskState: 'completed' });
    const { state, body } = await served.send([part.data({ skill: 'get_products', input: { buying_mode: 'nope', context: { via: major } } })]);
    assert.is(state, 'completed');
    assert.is(body.status, 'failed');
    assert.is(body.adcp_error.code, 'INVALID_REQUEST');
    await served.close();
  });
}

test("AdCP's own client reads A2A rejections of the 1.x server (0.3 compat layer): code, field, context", async () => {
  const served = await serveV1({ rejectedTaskState: 'completed' });
  try {
    const client = new AgentClient({ id: 'seller', name: 'seller', agent_uri: served.base, protocol: 'a2a' });
    const rejected = await client.executeTask('get_products', { buying_mode: 'nope', brief: 'x', context: { correlation_id: 'c-1' } });
    assert.is(rejected.success, false);
    assert.is(rejected.adcpError?.code, 'INVALID_REQUEST');
    assert.is(rejected.adcpError?.field, 'buying_mode');
    assert.is(rejected.correlationId, 'c-1');
    const ok = await client.executeTask('get_products', { buying_mode: 'brief', brief: 'x', context: { correlation_id: 'c-2' } });
    assert.is(ok.success, true);
  } finally {
    await served.close();
  }
});

test('the agent card lists the profile tools as skills, assignable to either major', () => {
  assert.equal(
    a2aSkills(agent).map((s) => s.id),
    agent.tools(),
  );
});

test('rejectedTaskState accepts only the two A2A states', () => {
  assert.throws(() => createA2AExecutor(agent, handlers, { rejectedTaskState: 'rejected' as 'failed' }), /failed" or "completed/);
});

test.run();

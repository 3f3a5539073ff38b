import type { AgentCard, Message, Task } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { DefaultRequestHandler, InMemoryTaskStore, JsonRpcTransportHandler } from '@a2a-js/sdk/server';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet, type SellerHandlers } from './helpers/generated.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot } from './helpers/releases.js';

/**
 * AdCP over A2A through the real @a2a-js/sdk server and client over HTTP: the generated pipeline behind a skill
 * dispatch, answering exactly as it does over MCP.
 */
const example = (await import(pathToFileURL(join(repoRoot, 'examples/seller-agent.js')).href)) as { createSellerHandlers(): SellerHandlers };
const { loadProfile } = await committedSet();
const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });

let http: Server;
let base = '';

test.before(async () => {
  http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  const card: AgentCard = {
    name: 'example seller',
    description: 'AdCP seller over A2A',
    url: `${base}/a2a`,
    version: '1.0.0',
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: agent.a2aSkills(),
  };
  const jsonRpc = new JsonRpcTransportHandler(new DefaultRequestHandler(card, new InMemoryTaskStore(), agent.a2aExecutor(example.createSellerHandlers())));
  http.on('request', async (req, res) => {
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
      return;
    }
    let text = '';
    for await (const chunk of req) text += String(chunk);
    const answer = await jsonRpc.handle(JSON.parse(text));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
});

test.after(() => new Promise<void>((resolve) => http.close(() => resolve())));

async function send(data: unknown): Promise<{ state: string; body: Record<string, any> }> {
  const client = await new ClientFactory().createFromUrl(base);
  const message: Message = { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'data', data: data as Record<string, unknown> }] };
  const result = (await client.sendMessage({ message })) as Task;
  assert.is(result.kind, 'task');
  const part = result.artifacts?.[0]?.parts[0];
  assert.is(part?.kind, 'data');
  return { state: result.status.state, body: (part as { data: Record<string, any> }).data };
}

test('the agent card lists the profile tools as skills', () => {
  assert.equal(agent.a2aSkills().map((s) => s.id), agent.tools());
});

test('a valid skill call completes with the AdCP response as a DataPart artifact', async () => {
  const { state, body } = await send({
    skill: 'create_media_buy',
    input: createMediaBuyRequest({ idempotency_key: 'c0ffee00-0000-4000-8000-0000000000a2', context: { via: 'a2a' } }),
  });
  assert.is(state, 'completed');
  assert.match(body.media_buy_id, /^mb_/);
  assert.is(body.adcp_version, '3.0');
  assert.equal(body.context, { via: 'a2a' });
});

test('invalid input fails the task with the same INVALID_REQUEST as MCP; the legacy `parameters` alias works', async () => {
  const { state, body } = await send({ skill: 'get_products', parameters: { brief: 'x', context: { via: 'a2a' } } });
  assert.is(state, 'failed');
  assert.is(body.adcp_error.code, 'INVALID_REQUEST');
  assert.is(body.adcp_error.field, 'buying_mode');
  assert.equal(body.context, { via: 'a2a' });
  assert.is(body.status, 'failed');
});

test('unknown skills and malformed messages fail without revealing anything else', async () => {
  const unknown = await send({ skill: 'get_signals', input: {} });
  assert.is(unknown.state, 'failed');
  assert.is(unknown.body.adcp_error.message, 'Tool get_signals not found');
  const malformed = await send({ tool: 'get_products' });
  assert.is(malformed.state, 'failed');
  assert.is(malformed.body.adcp_error.code, 'INVALID_REQUEST');
});

test.run();

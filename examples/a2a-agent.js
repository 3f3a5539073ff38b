// @ts-check
/**
 * The reference seller (examples/seller/) over A2A with @a2a-js/sdk's Express transport: JSON-RPC at /a2a and the
 * agent card at /.well-known/agent-card.json, on localhost. It serves the profile `ADCP_PROFILE` (default
 * `guaranteed-publisher`) of the generated set `ADCP_GENERATED` (default the committed generated/; see
 * generated-set.js). The handler set is checked against the profile when the executor is made, before listening.
 *
 * Works on either supported @a2a-js/sdk major. On 1.x (A2A 1.0) it also opts into the SDK's v0.3 compatibility
 * layer, because AdCP's own client (@adcp/sdk, `npx adcp … --protocol a2a`) still speaks A2A 0.3.
 *
 *   node examples/a2a-agent.js                      # http://127.0.0.1:3001, production mode
 *   PORT=4001 ADCP_MODE=development node examples/a2a-agent.js
 *   A2A_SDK=@a2a-js/sdk-v1 node examples/a2a-agent.js   # in this repository: 1.x is installed under that alias
 *   A2A_REJECTED_STATE=completed node examples/a2a-agent.js   # rejections on completed Tasks (docs/a2a.md)
 *   ADCP_GENERATED=/tmp/reference-seller ADCP_PROFILE=guaranteed-publisher-sandbox node examples/a2a-agent.js
 */
import { pathToFileURL } from 'node:url';
import express from 'express';
import { generatedDir, loadGenerated, profileName } from './generated-set.js';
import { createSellerHandlers } from './seller-agent.js';
import { KEEP_ALIVE_MS } from './serve-mcp.js';
import { signingFromEnv } from './signing-test-kit.js';

/**
 * Starts the agent; resolves to its base URL, the SDK major serving it and a close function.
 * @param {{ port?: number, host?: string, mode?: 'production' | 'development', sdk?: string, rejectedTaskState?: 'failed' | 'completed', profile?: string, generated?: string, signing?: import('../generated/index.js').SigningOptions }} [options]
 *   `sdk`: the module name @a2a-js/sdk is installed under (default `@a2a-js/sdk`). `rejectedTaskState`: the A2A
 *   state of an AdCP rejection (default `failed`, AdCP's mapping; see agent.a2aExecutor). `profile`, `generated`:
 *   the profile and the generated set (default ADCP_PROFILE and ADCP_GENERATED). `signing`: whose signed requests the
 *   agent accepts (default: the runner contract ADCP_SIGNING_TEST_KIT names, if any; see seller-agent.js).
 */
export async function startA2AAgent(options = {}) {
  const sdk = options.sdk ?? '@a2a-js/sdk';
  const server = await import(`${sdk}/server`);
  const { agentCardHandler, jsonRpcHandler, UserBuilder } = await import(`${sdk}/server/express`);
  // 1.x exports getSupportedVersions (A2A 1.0 version negotiation); 0.3 has no such thing.
  const major = typeof server.getSupportedVersions === 'function' ? 1 : 0;

  const { loadProfile } = await loadGenerated(options.generated ?? generatedDir);
  const agent = await loadProfile(/** @type {any} */ (options.profile ?? profileName), { mode: options.mode ?? 'production', signing: options.signing ?? signingFromEnv() });
  // Made (and the handler set checked) before the server listens.
  const executor = agent.a2aExecutor(createSellerHandlers(agent), { rejectedTaskState: options.rejectedTaskState });
  const host = options.host ?? '127.0.0.1';
  const app = express();
  // A JSON-RPC POST answer is not a cacheable representation; Express's default ETag would only make two identical
  // AdCP errors differ by header (AdCP's uniform-error invariant compares them).
  app.set('etag', false);
  const http = await new Promise((resolve) => {
    const s = app.listen(options.port ?? 0, host, () => resolve(s));
    // As serve-mcp.js: AdCP clients reuse the socket seconds later (the grader validates each answer first), and
    // Node's 5 s default closes it under them ("fetch failed" on the next call).
    s.keepAliveTimeout = KEEP_ALIVE_MS;
    s.headersTimeout = KEEP_ALIVE_MS + 1_000;
  });
  const address = /** @type {import('node:net').AddressInfo} */ (/** @type {import('node:http').Server} */ (http).address());
  const base = `http://${host}:${address.port}`;

  const common = {
    name: 'reference seller',
    description: `AdCP reference seller (${agent.name}) over A2A`,
    version: '1.0.0',
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: agent.a2aSkills(),
  };
  const card =
    major === 1
      ? {
          ...common,
          // A2A 1.0 interface plus its 0.3 mirror, which the compat layer serves to 0.3 clients.
          supportedInterfaces: [
            { url: `${base}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
            { url: `${base}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
          ],
          provider: undefined,
          capabilities: { streaming: false, pushNotifications: false, extensions: [] },
          securitySchemes: {},
          securityRequirements: [],
          signatures: [],
        }
      : {
          ...common,
          url: `${base}/a2a`,
          protocolVersion: '0.3.0',
          preferredTransport: 'JSONRPC',
          capabilities: { streaming: false, pushNotifications: false },
        };

  const requestHandler = new server.DefaultRequestHandler(card, new server.InMemoryTaskStore(), executor);
  const legacy = major === 1 ? { legacyCompat: { enabled: true } } : {};
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler, ...legacy }));
  app.use('/a2a', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, ...legacy }));

  return {
    url: base,
    major,
    agent,
    close: () =>
      new Promise((resolve) => {
        /** @type {import('node:http').Server} */ (http).close(() => resolve(undefined));
        // Idle keep-alive sockets would hold close() for KEEP_ALIVE_MS.
        /** @type {import('node:http').Server} */ (http).closeIdleConnections();
      }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const mode = process.env.ADCP_MODE === 'development' ? 'development' : 'production';
  const rejectedTaskState = process.env.A2A_REJECTED_STATE === 'completed' ? 'completed' : 'failed';
  const { url, major, agent } = await startA2AAgent({ port: Number(process.env.PORT ?? 3001), mode, sdk: process.env.A2A_SDK, rejectedTaskState });
  console.error(`AdCP reference seller (${agent.name}, ${mode}, AdCP ${agent.releases.join(' + ')}) serving A2A at ${url} (@a2a-js/sdk ${major === 1 ? '1.x' : '0.3.x'})`);
}

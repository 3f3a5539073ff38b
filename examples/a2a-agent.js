// @ts-check
/**
 * The reference seller (examples/seller/) over A2A, on the product's HTTP entry (agent.serve): JSON-RPC at /a2a and
 * the agent card at /.well-known/agent-card.json (MCP at /mcp on the same port), on localhost. It serves the profile
 * `ADCP_PROFILE` (default `guaranteed-publisher`) of the generated set `ADCP_GENERATED` (default the committed
 * generated/; see generated-set.js). The handler set is checked against the profile before listening.
 *
 * Works on either supported @a2a-js/sdk major. On 1.x (A2A 1.0) the entry also answers A2A 0.3 clients through the
 * SDK's compatibility layer, because AdCP's own client (@adcp/sdk, `npx adcp … --protocol a2a`) still speaks 0.3.
 * ADCP_API_KEY protects it as it protects seller-agent.js.
 *
 *   node examples/a2a-agent.js                      # http://127.0.0.1:3001, production mode
 *   PORT=4001 ADCP_MODE=development node examples/a2a-agent.js
 *   A2A_SDK=@a2a-js/sdk-v1 node examples/a2a-agent.js   # in this repository: 1.x is installed under that alias
 *   A2A_REJECTED_STATE=completed node examples/a2a-agent.js   # rejections on completed Tasks (docs/a2a.md)
 *   ADCP_GENERATED=/tmp/reference-seller ADCP_PROFILE=guaranteed-publisher-sandbox node examples/a2a-agent.js
 */
import { pathToFileURL } from 'node:url';
import { startAgent } from './agent-entry.js';
import { seller } from './seller-agent.js';

/**
 * Starts the agent; resolves to its base URL (where A2A clients find the card), the SDK major serving it and a close
 * function.
 * @param {import('./agent-entry.js').StartOptions & { sdk?: string, rejectedTaskState?: 'failed' | 'completed' }} [options]
 *   as every reference agent takes them (agent-entry.js), and `sdk`: the module name @a2a-js/sdk is installed under
 *   (default `@a2a-js/sdk`); `rejectedTaskState`: the A2A state of an AdCP rejection (default `failed`, AdCP's
 *   mapping; see agent.a2aExecutor).
 */
export async function startA2AAgent(options = {}) {
  const sdk = options.sdk ?? '@a2a-js/sdk';
  // 1.x exports getSupportedVersions (A2A 1.0 version negotiation); 0.3 has no such thing.
  const major = typeof (await import(`${sdk}/server`)).getSupportedVersions === 'function' ? 1 : 0;
  const served = await startAgent(seller, { ...options, a2a: { sdk, rejectedTaskState: options.rejectedTaskState } });
  return { url: served.a2aUrl, port: served.port, major, agent: served.agent, close: served.close };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const mode = process.env.ADCP_MODE === 'development' ? 'development' : 'production';
  const rejectedTaskState = process.env.A2A_REJECTED_STATE === 'completed' ? 'completed' : 'failed';
  const { url, major, agent } = await startA2AAgent({ port: Number(process.env.PORT ?? 3001), mode, sdk: process.env.A2A_SDK, rejectedTaskState });
  console.error(`AdCP reference seller (${agent.name}, ${mode}, AdCP ${agent.releases.join(' + ')}) serving A2A at ${url} (@a2a-js/sdk ${major === 1 ? '1.x' : '0.3.x'})`);
}

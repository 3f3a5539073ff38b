// @ts-check
/**
 * The reference seller (examples/seller/) over MCP Streamable HTTP on localhost. Every call goes through the
 * generated pipeline (release selection, normalization, strip or drift errors, compiled validation) before a handler
 * sees it.
 *
 *   npm run example                                   # http://127.0.0.1:3000/mcp, production, committed generated/
 *   PORT=4000 ADCP_MODE=development npm run example
 *   ADCP_GENERATED=/tmp/reference-seller ADCP_PROFILE=guaranteed-publisher-sandbox npm run example   # sandbox (see generated-set.js)
 *
 * The sandbox profile advertises request signing; `ADCP_SIGNING_TEST_KIT=<compliance>/test-kits/signed-requests-runner.yaml`
 * pre-configures its verifier with AdCP's runner contract (signing-test-kit.js). The verifier is
 * `agent.requestSignatures`, which the runtime's HTTP entry calls (docs/signing.md); this example's own HTTP server
 * (serve-mcp.js) does not call it.
 */
import { pathToFileURL } from 'node:url';
import { generatedDir, loadGenerated, profileName } from './generated-set.js';
import { createSeller } from './seller/index.js';
import { serveMcp } from './serve-mcp.js';
import { signingFromEnv } from './signing-test-kit.js';

/**
 * The reference seller's handlers for a loaded profile: exactly the tools it serves.
 * @param {import('./seller/index.js').LoadedAgent} agent
 * @param {import('./seller/index.js').SellerOptions} [options]
 * @returns {any} the profile's handler set (typed per profile by the generated set's HandlersFor)
 */
export function createSellerHandlers(agent, options) {
  return createSeller(agent, options).handlers;
}

/**
 * Starts the agent; resolves to its MCP endpoint URL, the loaded agent and a close function (serve-mcp.js has the
 * HTTP details, keep-alive included).
 * @param {{ port?: number, host?: string, mode?: 'production' | 'development', profile?: string, generated?: string,
 *   seller?: import('./seller/index.js').SellerOptions, signing?: import('../generated/index.js').SigningOptions }} [options]
 *   `signing`: whose signed requests the agent accepts (default: the runner contract ADCP_SIGNING_TEST_KIT names, if any).
 */
export async function startSellerAgent(options = {}) {
  const { loadProfile } = await loadGenerated(options.generated ?? generatedDir);
  const agent = await loadProfile(/** @type {any} */ (options.profile ?? profileName), { mode: options.mode ?? 'production', signing: options.signing ?? signingFromEnv() });
  const served = await serveMcp(agent, createSellerHandlers(agent, options.seller), { port: options.port, host: options.host, name: 'reference-seller' });
  return { ...served, agent };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const mode = process.env.ADCP_MODE === 'development' ? 'development' : 'production';
  const { url, agent } = await startSellerAgent({ port: Number(process.env.PORT ?? 3000), mode });
  console.error(`AdCP reference seller (${agent.name}, ${mode}, AdCP ${agent.releases.join(' + ')}) serving MCP at ${url}`);
}

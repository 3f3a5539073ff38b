// @ts-check
/**
 * The reference seller (examples/seller/) on the product's HTTP entry: MCP Streamable HTTP at /mcp and A2A at /a2a
 * (its agent card at /.well-known/agent-card.json) on one port, on localhost. Every call goes through the generated
 * pipeline (release selection, normalization, strip or drift errors, compiled validation) before a handler sees it;
 * everything of HTTP — authentication, limits, keep-alive, the task store — is agent.serve's, nothing here.
 *
 * With ADCP_API_KEY set, every protected call needs `Authorization: Bearer <ADCP_API_KEY>` (the set's apiKeyAuth;
 * @adcp/sdk/server's verifyApiKey is the same contract; get_adcp_capabilities, tools/list and the agent card stay
 * public). Without it the seller answers anyone, and agent.serve warns. Idempotency keys, tasks and subscribers live
 * in DATABASE_URL's PostgreSQL when set (every instance shares them), else in ADCP_STATE_DIR (default
 * ~/.local/state/adcp-agent/<profile>).
 *
 *   npm run example                                   # http://127.0.0.1:3000/mcp, production, committed generated/
 *   PORT=4000 ADCP_MODE=development npm run example
 *   ADCP_API_KEY=sk_test_123 npm run example          # Bearer sk_test_123 required
 *   ADCP_GENERATED=/tmp/reference-seller ADCP_PROFILE=guaranteed-publisher-sandbox npm run example   # sandbox (see generated-set.js)
 *
 * The sandbox profile advertises request signing: `ADCP_SIGNING_TEST_KIT=<compliance>/test-kits/signed-requests-runner.yaml`
 * pre-configures its verifier with AdCP's runner contract (signing-test-kit.js); agent.serve checks every request's
 * signature before anything else (docs/signing.md).
 */
import { pathToFileURL } from 'node:url';
import { generatedDir, loadGenerated, profileName } from './generated-set.js';
import { createSellerGovernance } from './seller/governance.js';
import { createSeller } from './seller/index.js';
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
 * The authenticator for an API key: `Authorization: Bearer <key>` authenticates as `principal`; no key, no
 * authentication.
 * @param {{ apiKeyAuth: typeof import('../generated/index.js').apiKeyAuth }} set the generated set's entry
 * @param {string | undefined} apiKey
 * @param {string} [principal]
 */
export function apiKeyAuthenticator(set, apiKey, principal = 'buyer') {
  return apiKey === undefined || apiKey === '' ? undefined : set.apiKeyAuth({ [apiKey]: { principal } });
}

/**
 * Starts the agent; resolves to its MCP endpoint URL, its port, the loaded agent and a close function.
 * @param {{ port?: number, host?: string, mode?: 'production' | 'development', profile?: string, generated?: string,
 *   apiKey?: string, seller?: import('./seller/index.js').SellerOptions, signing?: import('../generated/index.js').SigningOptions,
 *   store?: import('../generated/index.js').AgentOptions['store'], tls?: import('../generated/index.js').ServeOptions['tls'],
 *   governance?: import('./seller/governance.js').SellerGovernanceSettings }} [options]
 *   `apiKey`: the Bearer key protected calls need (default ADCP_API_KEY; none: no authentication). `signing`: whose
 *   signed requests the agent accepts (default: the runner contract ADCP_SIGNING_TEST_KIT names, if any).
 *   `store`: where protocol state lives (default: DATABASE_URL, else ADCP_STATE_DIR). `tls`: serve HTTPS with this
 *   certificate and key (default: ADCP_TLS_CERT_FILE and ADCP_TLS_KEY_FILE, if set).
 */
export async function startSellerAgent(options = {}) {
  const set = await loadGenerated(options.generated ?? generatedDir);
  const { loadProfile } = set;
  // Signed governance: the seller's side of it (used when the profile advertises adcp.governance_enforcement).
  const governance = createSellerGovernance(options.governance);
  const agent = await loadProfile(/** @type {any} */ (options.profile ?? profileName), { mode: options.mode ?? 'production', signing: options.signing ?? signingFromEnv(), store: options.store, governance: governance.options });
  const served = await agent.serve(createSellerHandlers(agent, { ...options.seller, governance }), {
    port: options.port ?? 0,
    host: options.host,
    tls: options.tls,
    authenticate: apiKeyAuthenticator(set, options.apiKey ?? process.env.ADCP_API_KEY),
    mcp: { name: 'reference-seller' },
    a2a: { card: { name: 'reference seller', description: `AdCP reference seller (${agent.name})` } },
  });
  return { ...served, agent };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const mode = process.env.ADCP_MODE === 'development' ? 'development' : 'production';
  // A start that cannot happen (a DATABASE_URL out of reach, a busy port) is one line, not a stack. Once it listens
  // the runtime's own start line says what runs (profile, releases, tools, MCP and A2A URLs, store, authentication).
  await startSellerAgent({ port: Number(process.env.PORT ?? 3000), mode }).catch((/** @type {Error} */ e) => {
    console.error(`AdCP reference seller: ${e.message}`);
    process.exit(1);
  });
}

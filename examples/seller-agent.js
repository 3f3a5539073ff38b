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
import { entry } from './agent-entry.js';
import { createSellerGovernance } from './seller/governance.js';
import { createSeller } from './seller/index.js';

export { apiKeyAuthenticator } from './agent-entry.js';

/**
 * The reference seller's handlers for a loaded profile: exactly the tools it serves.
 * @param {import('./seller/index.js').LoadedAgent} agent
 * @param {import('./seller/index.js').SellerOptions} [options]
 * @returns {any} the profile's handler set (typed per profile by the generated set's HandlersFor)
 */
export function createSellerHandlers(agent, options) {
  return createSeller(agent, options).handlers;
}

/** @type {import('./agent-entry.js').AgentKind} */
export const seller = {
  title: 'reference seller',
  profile: 'guaranteed-publisher',
  // Signed governance: the runtime enforces it with the seller's own answers (its buyers, prices, registrations).
  prepare: (options) => {
    const governance = createSellerGovernance(/** @type {any} */ (options.governance));
    return { agentOptions: { governance: governance.options }, own: { governance } };
  },
  handlers: (agent, options) => createSellerHandlers(agent, { ...options.seller, governance: options.governance }),
};

/**
 * Starts the seller; resolves to its MCP endpoint URL, its port, the loaded agent and a close function. Options as every
 * reference agent takes them (agent-entry.js), `seller`: the seller's own (accounts it already holds, how long its
 * IO review takes: seller/index.js), and `governance`: its side of signed governance (seller/governance.js; default
 * buyers from ADCP_GOVERNANCE_BUYERS), used when the profile advertises `adcp.governance_enforcement`.
 */
export const startSellerAgent = entry(seller, import.meta.url);

// @ts-check
/**
 * The reference signals agent (examples/signals/) on the product's HTTP entry: MCP at /mcp and A2A at /a2a on one
 * port, started like every reference agent (agent-entry.js: ADCP_GENERATED, ADCP_PROFILE, ADCP_API_KEY,
 * ADCP_STATE_DIR or DATABASE_URL, PORT, ADCP_TLS_CERT_FILE/ADCP_TLS_KEY_FILE). docs/signals-agent.md says what it
 * claims and what the runtime does for it.
 *
 *   node examples/signals-agent.js               # the committed set's signals-agent profile (AdCP 3.0.6)
 *   npm run example:agents && ADCP_GENERATED=.tmp/reference-agents ADCP_PROFILE=signals-agent-sandbox node examples/signals-agent.js
 */
import { entry } from './agent-entry.js';
import { createSignalsGovernance } from './signals/governance.js';
import { createSignalsAgent } from './signals/index.js';

/** @type {import('./agent-entry.js').AgentKind} */
export const signalsAgent = {
  title: 'reference signals agent',
  profile: 'signals-agent',
  // Signed governance on activate_signal: the runtime enforces it with the agent's own answers (buyers, prices, registrations).
  prepare: (options) => {
    const governance = createSignalsGovernance(/** @type {any} */ (options.governance));
    return { agentOptions: { governance: governance.options }, own: { governance } };
  },
  handlers: (agent, options) => createSignalsAgent(agent, { ...options.signals, governance: options.governance }).handlers,
};

/**
 * Starts the agent: agent-entry.js's options, `signals`, the agent's own (signals/index.js), and `governance`, its side
 * of signed governance (signals/governance.js; default buyers from ADCP_GOVERNANCE_BUYERS), used when the profile
 * advertises `adcp.governance_enforcement`.
 */
export const startSignalsAgent = entry(signalsAgent, import.meta.url);

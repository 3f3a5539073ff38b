// @ts-check
/**
 * The reference sponsored-intelligence agent (examples/si/) on the product's HTTP entry: MCP at /mcp and A2A at /a2a
 * on one port, started like every reference agent (agent-entry.js: ADCP_GENERATED, ADCP_PROFILE, ADCP_API_KEY,
 * ADCP_STATE_DIR or DATABASE_URL, PORT, ADCP_TLS_CERT_FILE/ADCP_TLS_KEY_FILE). docs/si-agent.md says what it claims
 * and what the runtime does for it.
 *
 *   npm run example:agents && ADCP_GENERATED=.tmp/reference-agents ADCP_PROFILE=si-agent-sandbox node examples/si-agent.js
 */
import { entry } from './agent-entry.js';
import { createSiAgent } from './si/index.js';

/** @type {import('./agent-entry.js').AgentKind} */
export const siAgent = {
  title: 'reference SI agent',
  profile: 'si-agent-sandbox',
  handlers: (agent, options) => createSiAgent(agent, options.si).handlers,
};

/** Starts the agent: agent-entry.js's options, and `si`, the agent's own (si/index.js). */
export const startSiAgent = entry(siAgent, import.meta.url);

// @ts-check
/**
 * The reference creative agent (examples/creative/) on the product's HTTP entry: MCP at /mcp and A2A at /a2a on one
 * port, started like every reference agent (agent-entry.js: ADCP_GENERATED, ADCP_PROFILE, ADCP_API_KEY,
 * ADCP_STATE_DIR or DATABASE_URL, PORT, ADCP_TLS_CERT_FILE/ADCP_TLS_KEY_FILE). docs/creative-agent.md says what it
 * claims and what the runtime does for it.
 *
 *   npm run example:agents && ADCP_GENERATED=.tmp/reference-agents ADCP_PROFILE=creative-agent-sandbox node examples/creative-agent.js
 */
import { entry } from './agent-entry.js';
import { createCreativeAgent } from './creative/index.js';

/** @type {import('./agent-entry.js').AgentKind} */
export const creativeAgent = {
  title: 'reference creative agent',
  profile: 'creative-agent-sandbox',
  handlers: (agent, options) => createCreativeAgent(/** @type {any} */ (agent), options.creative).handlers,
};

/** Starts the agent: agent-entry.js's options, and `creative`, the agent's own (creative/index.js). */
export const startCreativeAgent = entry(creativeAgent, import.meta.url);

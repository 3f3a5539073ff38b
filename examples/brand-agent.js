// @ts-check
/**
 * The reference brand agent (examples/brand/) on the product's HTTP entry: MCP at /mcp and A2A at /a2a on one port,
 * started like every reference agent (agent-entry.js: ADCP_GENERATED, ADCP_PROFILE, ADCP_API_KEY, ADCP_STATE_DIR or
 * DATABASE_URL, PORT, ADCP_TLS_CERT_FILE/ADCP_TLS_KEY_FILE), and ADCP_BRAND_DOCUMENTS: the brand documents it answers
 * for. docs/brand-agent.md says what it claims and what the runtime does for it.
 *
 *   ADCP_BRAND_DOCUMENTS=house/brand.json,novamotors/brand.json \
 *     ADCP_GENERATED=.tmp/reference-agents ADCP_PROFILE=brand-agent-sandbox node examples/brand-agent.js
 */
import { entry } from './agent-entry.js';
import { createBrandAgent } from './brand/index.js';

/** @type {import('./agent-entry.js').AgentKind} */
export const brandAgent = {
  title: 'reference brand agent',
  profile: 'brand-agent-sandbox',
  handlers: (agent, options) => createBrandAgent(agent, options.brand).handlers,
};

/** Starts the agent: agent-entry.js's options, and `brand`, the agent's own (brand/index.js). */
export const startBrandAgent = entry(brandAgent, import.meta.url);

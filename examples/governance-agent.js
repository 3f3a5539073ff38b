// @ts-check
/**
 * The reference governance agent (examples/governance/) on the product's HTTP entry, started like the seller: MCP at
 * /mcp and A2A at /a2a on one port; its signing keys published under its public URL — brand.json (an `agents[]` entry
 * of type governance naming the tokens' `iss` and its own JWKS), /.well-known/governance-jwks.json, the signed
 * /.well-known/governance-revocations.json — and, for its list-change webhooks, the request-signing JWKS.
 *
 *   ADCP_GENERATED=/tmp/reference-agents ADCP_PROFILE=governance-agent-sandbox ADCP_API_KEY=sk_buyer \
 *     ADCP_CALLER_URL=https://buyer.example ADCP_SERVICE_KEYS='{"sk_seller":"https://seller.example/mcp"}' \
 *     ADCP_PUBLIC_URL=https://gov.example node examples/governance-agent.js
 *
 * `ADCP_API_KEY` is the buyer's credential and `ADCP_CALLER_URL` the agent URL it resolves to (the `caller` of its
 * checks, and of the tokens it gets); `ADCP_SERVICE_KEYS` maps each service's credential — what the buyer registered
 * with the service through sync_governance — to that service's URL, the caller of its execution checks. The governance
 * key comes from `ADCP_GOVERNANCE_KEY` / `ADCP_GOVERNANCE_KEY_FILE` (a sandbox profile makes a development key in its
 * store without one); the rest is the seller's: ADCP_STATE_DIR or DATABASE_URL, PORT, ADCP_TLS_CERT_FILE and
 * ADCP_TLS_KEY_FILE, ADCP_MODE.
 */
import { pathToFileURL } from 'node:url';
import { generatedDir, loadGenerated } from './generated-set.js';
import { createGovernance } from './governance/index.js';

/**
 * Credentials → principals and the agent URL each is, from the environment (or the options a test gives).
 * @param {{ apiKey?: string, callerUrl?: string, serviceKeys?: Record<string, string> }} o
 */
function credentials(o) {
  /** @type {Record<string, { principal: string }>} */
  const keys = {};
  /** @type {Record<string, string>} */
  const callers = {};
  if (o.apiKey !== undefined && o.apiKey !== '') {
    keys[o.apiKey] = { principal: 'buyer' };
    if (o.callerUrl !== undefined && o.callerUrl !== '') callers.buyer = o.callerUrl;
  }
  for (const [i, [key, url]] of Object.entries(o.serviceKeys ?? {}).entries()) {
    keys[key] = { principal: `service_${i}` };
    callers[`service_${i}`] = url;
  }
  return { keys, callers };
}

/**
 * Starts the governance agent; resolves to its MCP URL, the loaded agent and a close function.
 * @param {{ port?: number, host?: string, mode?: 'production' | 'development', profile?: string, generated?: string, apiKey?: string, callerUrl?: string,
 *   serviceKeys?: Record<string, string>, publicUrl?: string, store?: import('../generated/index.js').AgentOptions['store'],
 *   tls?: import('../generated/index.js').ServeOptions['tls'], governance?: import('../generated/index.js').GovernanceOptions }} [options]
 */
export async function startGovernanceAgent(options = {}) {
  const set = await loadGenerated(options.generated ?? generatedDir);
  const env = process.env;
  const serviceKeys = options.serviceKeys ?? (env.ADCP_SERVICE_KEYS ? /** @type {Record<string, string>} */ (JSON.parse(env.ADCP_SERVICE_KEYS)) : {});
  const { keys, callers } = credentials({ apiKey: options.apiKey ?? env.ADCP_API_KEY, callerUrl: options.callerUrl ?? env.ADCP_CALLER_URL, serviceKeys });
  const agent = await set.loadProfile(/** @type {any} */ (options.profile ?? env.ADCP_PROFILE ?? 'governance-agent-sandbox'), {
    mode: options.mode ?? 'production',
    store: options.store,
    publicUrl: options.publicUrl,
    governance: options.governance,
  });
  const { handlers } = createGovernance(agent, { callers });
  const served = await agent.serve(/** @type {any} */ (handlers), {
    port: options.port ?? 0,
    host: options.host,
    tls: options.tls,
    authenticate: Object.keys(keys).length === 0 ? undefined : set.apiKeyAuth(keys),
    mcp: { name: 'reference-governance-agent' },
    a2a: { card: { name: 'reference governance agent', description: `AdCP reference governance agent (${agent.name})` } },
  });
  return { ...served, agent };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const mode = process.env.ADCP_MODE === 'development' ? 'development' : 'production';
  const { agent } = await startGovernanceAgent({ port: Number(process.env.PORT ?? 3000), mode }).catch((/** @type {Error} */ e) => {
    console.error(`AdCP reference governance agent: ${e.message}`);
    process.exit(1);
  });
  console.error(`AdCP reference governance agent (${agent.name}): tokens issued as ${agent.governance?.issuer() ?? '(no public URL yet)'}`);
}

// @ts-check
/**
 * What every reference agent's entry file shares (seller-agent.js, creative-agent.js, signals-agent.js, si-agent.js,
 * brand-agent.js): the generated set and profile it serves, its authenticator, agent.serve with MCP at /mcp and A2A at
 * /a2a on one port, and the start from the environment. An entry names its kind — its title, its default profile and the function
 * making its handler set for a loaded profile — and nothing else; everything of HTTP (authentication, limits,
 * keep-alive, the task store) is agent.serve's.
 *
 * Each agent starts the same way:
 *
 *   ADCP_GENERATED=<dir>      the generated set (default: the committed generated/; see generated-set.js)
 *   ADCP_PROFILE=<name>       the profile it serves (default: the kind's own)
 *   ADCP_API_KEY=<key>        protected calls need `Authorization: Bearer <key>` (none: no authentication, with a warning)
 *   ADCP_STATE_DIR, DATABASE_URL   where idempotency keys, tasks and subscribers live (docs/runtime.md, Stores)
 *   PORT, HOST                where it listens (default 3000 on 127.0.0.1)
 *   ADCP_TLS_CERT_FILE, ADCP_TLS_KEY_FILE   serve HTTPS with this certificate and key (PEM)
 *   ADCP_MODE=development     unknown fields rejected, every answer checked against its release
 *   ADCP_SIGNING_TEST_KIT=<compliance>/test-kits/signed-requests-runner.yaml   AdCP's request-signing runner contract
 */
import { pathToFileURL } from 'node:url';
import { generatedDir, loadGenerated } from './generated-set.js';
import { signingFromEnv } from './signing-test-kit.js';

/**
 * @typedef {import('./seller/index.js').LoadedAgent} LoadedAgent
 * @typedef {{ title: string, profile: string, handlers(agent: LoadedAgent, options: Record<string, any>): Record<string, unknown>,
 *   prepare?(options: Record<string, any>): { agentOptions?: Record<string, unknown>, own?: Record<string, unknown> } }} AgentKind
 *   `title`: how the agent names itself (start failures, MCP server name, agent card); `profile`: the profile it serves
 *   when ADCP_PROFILE is unset; `handlers`: its handler set for a loaded profile, exactly the tools that profile serves;
 *   `prepare`: what the kind adds before the profile loads — options of the runtime's (`agentOptions`, such as the
 *   seller's side of signed governance) and its own options for `handlers` (`own`, over the caller's).
 * @typedef {{ port?: number, host?: string, mode?: 'production' | 'development', profile?: string, generated?: string,
 *   apiKey?: string, signing?: import('../generated/index.js').SigningOptions,
 *   store?: import('../generated/index.js').AgentOptions['store'], tls?: import('../generated/index.js').ServeOptions['tls'],
 *   keepAliveTimeoutMs?: number, a2a?: { sdk?: string, rejectedTaskState?: 'failed' | 'completed' }, [own: string]: unknown }} StartOptions
 *   `apiKey`: default ADCP_API_KEY. `signing`: whose signed requests the agent accepts (default: the runner contract
 *   ADCP_SIGNING_TEST_KIT names, if any). `store`: default DATABASE_URL, else ADCP_STATE_DIR. `tls`: default
 *   ADCP_TLS_CERT_FILE and ADCP_TLS_KEY_FILE. `keepAliveTimeoutMs`: how long an idle connection is kept (agent.serve's
 *   default, 65 s, unless given). `a2a.sdk`: the module name @a2a-js/sdk is installed under; any other
 *   option is the kind's own and reaches its `handlers`.
 */

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
 * Starts an agent of `kind`; resolves to its MCP endpoint URL, its A2A base URL (where clients find the card), its
 * port, the loaded agent and a close function.
 * @param {AgentKind} kind
 * @param {StartOptions} [options]
 */
export async function startAgent(kind, options = {}) {
  const set = await loadGenerated(options.generated ?? generatedDir);
  const profile = options.profile ?? (process.env.ADCP_PROFILE || kind.profile);
  const prepared = kind.prepare?.(options) ?? {};
  const agent = await set.loadProfile(/** @type {any} */ (profile), { mode: options.mode ?? 'production', signing: options.signing ?? signingFromEnv(), store: options.store, ...prepared.agentOptions });
  const served = await agent.serve(/** @type {any} */ (kind.handlers(agent, { ...options, ...prepared.own })), {
    port: options.port ?? 0,
    host: options.host,
    tls: options.tls,
    ...(options.keepAliveTimeoutMs !== undefined ? { keepAliveTimeoutMs: options.keepAliveTimeoutMs } : {}),
    authenticate: apiKeyAuthenticator(set, options.apiKey ?? process.env.ADCP_API_KEY),
    mcp: { name: kind.title.toLowerCase().replace(/[^a-z0-9]+/g, '-') },
    a2a: {
      ...(options.a2a?.sdk !== undefined ? { package: options.a2a.sdk } : {}),
      ...(options.a2a?.rejectedTaskState !== undefined ? { rejectedTaskState: options.a2a.rejectedTaskState } : {}),
      card: { name: kind.title, description: `AdCP ${kind.title} (${agent.name})` },
    },
  });
  return { ...served, a2aUrl: served.url.replace(/\/mcp$/, ''), agent };
}

/**
 * Runs `kind` when `moduleUrl` is the process's entry script, started from the environment (above). A start that
 * cannot happen (a DATABASE_URL out of reach, a busy port) is one line, not a stack; once it listens the runtime's own
 * start line says what runs (profile, releases, tools, MCP and A2A URLs, store, authentication).
 * @param {AgentKind} kind
 * @param {string} moduleUrl the entry file's import.meta.url
 */
export async function runIfMain(kind, moduleUrl) {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  const mode = process.env.ADCP_MODE === 'development' ? 'development' : 'production';
  await startAgent(kind, { port: Number(process.env.PORT ?? 3000), host: process.env.HOST, mode }).catch((/** @type {Error} */ e) => {
    console.error(`AdCP ${kind.title}: ${e.message}`);
    process.exit(1);
  });
}

/**
 * An entry file's export: the kind's start function (`startAgent(kind, options)`), having started the agent from the
 * environment when the entry file is the process's script.
 * @param {AgentKind} kind
 * @param {string} moduleUrl the entry file's import.meta.url
 */
export function entry(kind, moduleUrl) {
  void runIfMain(kind, moduleUrl);
  return (/** @type {StartOptions} */ options = {}) => startAgent(kind, options);
}

// @ts-check
import { createAccounts } from '../common/accounts.js';
import { answering } from '../common/errors.js';
import { createActivation } from './activation.js';
import { createCatalog } from './catalog.js';
import { createController } from './controller.js';
import { createDiscovery } from './discovery.js';
import { createPlatforms } from './platforms.js';

/**
 * The reference signals agent: a retailer's first-party segments and segments it resells from data providers,
 * discovered by brief or as a wholesale feed and activated on DSP seats and sales agents. One in-memory agent behind
 * every tool of the `signals-agent` profiles; the profile decides the surface (the sandbox adds
 * comply_test_controller), the agent implements the tools.
 *
 *   catalog.js      the segments: owned, resold (with their data provider) and custom-modelled; the feed version
 *   discovery.js    get_signals: brief ranking, exact lookups, the wholesale feed, filters, async modelling
 *   activation.js   activate_signal: deployments per account, pricing commitment, deactivation
 *   platforms.js    the DSP integrations and sales-agent delivery a segment is pushed through
 *   controller.js   comply_test_controller (sandbox only)
 *   governance.js   sync_governance, and what the runtime's governance enforcement on activate_signal asks of it
 *   ../common/accounts.js   sync_accounts, list_accounts: each account holds its own activations
 *
 * Idempotency (a retried activate_signal never reaches the handler twice), the async tasks' store and their signed
 * webhooks are the runtime's.
 *
 * @typedef {{ now?: () => Date, agentUrl?: string, modelMs?: number,
 *   governance?: ReturnType<typeof import('./governance.js').createSignalsGovernance> }} SignalsOptions `agentUrl`: this
 *   agent's public URL, the source its own segments name (default ADCP_PUBLIC_URL, else a placeholder); `modelMs`: how
 *   long modelling a custom segment takes (default 1 s); `governance`: its side of signed governance (governance.js).
 */

/** Tools the runtime answers itself when the profile serves them. */
const RUNTIME_TOOLS = new Set(['get_adcp_capabilities', 'get_task_status', 'list_tasks', 'sync_agent_notification_configs']);

/**
 * The handler set for a loaded profile: exactly the tools it serves.
 * @param {import('../seller/index.js').LoadedAgent} agent
 * @param {SignalsOptions} [options]
 */
export function createSignalsAgent(agent, options = {}) {
  const now = options.now ?? (() => new Date());
  const accounts = createAccounts({ supportedBilling: agent.capabilities(agent.releases[0]).account?.supported_billing ?? ['operator'], space: () => ({ deployments: new Map() }) });
  const catalog = createCatalog({ agentUrl: options.agentUrl ?? process.env.ADCP_PUBLIC_URL ?? 'https://signals.example' });
  const platforms = createPlatforms({ now });
  /** @type {Map<string, import('./controller.js').Directive>} one-shot response arms, per tool and account */
  const directives = new Map();
  const activation = createActivation({ accounts, catalog, platforms, now });
  const discovery = createDiscovery({ accounts, catalog, platforms, activation, directives, modelMs: options.modelMs });
  const controller = createController({ accounts, directives, tasks: agent });
  /** @type {Record<string, (args: any, ctx: any) => unknown>} */
  const implementations = { ...discovery.handlers, ...activation.handlers, ...accounts.handlers, ...options.governance?.bind({ accounts, catalog }), comply_test_controller: controller.handler };
  const served = [...new Set(agent.releases.flatMap((r) => agent.tools(r)))].filter((t) => !RUNTIME_TOOLS.has(t));
  /** @type {Record<string, unknown>} */
  const handlers = {};
  for (const tool of served) {
    const impl = implementations[tool];
    if (impl === undefined) throw new Error(`the reference signals agent does not implement ${tool}, which the profile serves`);
    handlers[tool] = answering(impl);
  }
  return { handlers, catalog };
}

// @ts-check
import { answering } from '../common/errors.js';
import { ACME_OUTDOOR } from './brand.js';
import { createController } from './controller.js';
import { createOfferings } from './offerings.js';
import { createSessions } from './sessions.js';

/**
 * The reference sponsored-intelligence agent: a brand's conversational agent that AI hosts hand users to, behind
 * every tool of the `si-agent` profiles. It answers for one brand (Acme Outdoor by default) from the brand's product
 * knowledge, declares its sponsored context on every response and keeps the host's receipts as audit, and hands a
 * user who wants to buy to the brand's checkout.
 *
 *   brand.js          the brand: products, offerings, its disclosure, its sponsored-context declaration
 *   offerings.js      si_get_offering: availability, matching products, the offering token
 *   conversation.js   the brand's replies (the seam for a model) and purchase intent
 *   sessions.js       si_initiate_session, si_send_message, si_terminate_session: the lifecycle and receipts
 *   controller.js     comply_test_controller (sandbox only): force_session_status
 *
 * @typedef {{ now?: () => Date, agentUrl?: string, brand?: import('./brand.js').Brand, ttlSeconds?: number }} SiOptions
 *   `agentUrl`: this agent's public https URL, which its declarations name (default ADCP_PUBLIC_URL, else a
 *   placeholder); `brand`: the brand it speaks for; `ttlSeconds`: a session's idle time to live (default 30 minutes)
 */

const RUNTIME_TOOLS = new Set(['get_adcp_capabilities', 'get_task_status', 'list_tasks', 'sync_agent_notification_configs']);

/**
 * The handler set for a loaded profile: exactly the tools it serves.
 * @param {import('../seller/index.js').LoadedAgent} agent
 * @param {SiOptions} [options]
 */
export function createSiAgent(agent, options = {}) {
  const now = options.now ?? (() => new Date());
  const agentUrl = options.agentUrl ?? process.env.ADCP_PUBLIC_URL ?? 'https://si.acmeoutdoor.example';
  const brand = options.brand ?? ACME_OUTDOOR;
  const offerings = createOfferings({ brand, agentUrl, now });
  const sessions = createSessions({ brand, agentUrl, now, ttlSeconds: options.ttlSeconds, offerings });
  const controller = createController({ sessions });
  /** @type {Record<string, (args: any, ctx: any) => unknown>} */
  const implementations = { ...offerings.handlers, ...sessions.handlers, comply_test_controller: controller.handler };
  /** @type {Record<string, unknown>} */
  const handlers = {};
  for (const tool of [...new Set(agent.releases.flatMap((r) => agent.tools(r)))].filter((t) => !RUNTIME_TOOLS.has(t))) {
    const impl = implementations[tool];
    if (impl === undefined) throw new Error(`the reference SI agent does not implement ${tool}, which the profile serves`);
    handlers[tool] = answering(impl);
  }
  return { handlers };
}

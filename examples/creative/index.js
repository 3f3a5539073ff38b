// @ts-check
import { createAccounts } from '../common/accounts.js';
import { answering } from '../common/errors.js';
import { createBuild } from './build.js';
import { createController } from './controller.js';
import { createDelivery } from './delivery.js';
import { createFormats, nameOf } from './formats.js';
import { createLibrary } from './library.js';
import { createNotifications } from './notifications.js';
import { createPreview } from './preview.js';
import { createPricing } from './pricing.js';

/**
 * The reference creative agent: a template builder and ad server in one, behind every tool of the `creative-agent`
 * profiles. It renders buyers' manifests and briefs into the formats it advertises (creative-template), keeps each
 * account's creative library, traffics library creatives as serving tags and counts what they serve
 * (creative-ad-server), previews any of them, and bills through AdCP's rate card.
 *
 *   formats.js        the canonical capability catalog (creative.supported_formats) and asset checks
 *   library.js        sync_creatives, list_creatives; the creative state machine; purges
 *   policies.js       the serving policies a creative must meet
 *   build.js          build_creative: template renders, serving tags, multi-format builds
 *   render.js         the banners, preview pages and tags the templates make
 *   preview.js        preview_creative (single, batch)
 *   delivery.js       get_creative_delivery: what the served tags counted
 *   pricing.js        the rate card, build billing, report_usage
 *   notifications.js  creative lifecycle webhooks to the account's subscribers, and their activity log
 *   controller.js     comply_test_controller (sandbox only)
 *   ../common/accounts.js   sync_accounts, list_accounts (each account's library is its own)
 *
 * @typedef {{ now?: () => Date, agentUrl?: string, accounts?: ({ account_id: string } & Record<string, unknown>)[] }} CreativeOptions
 *   `agentUrl`: this agent's public URL, where its named formats and its impression endpoint live (default
 *   ADCP_PUBLIC_URL, else a placeholder); `accounts`: the client accounts the ad server already holds (what a real one
 *   loads from its records), addressed by `account_id`
 */

/** Tools whose answers name formats the way each release does (canonical kinds from 3.2, named formats before). */
const PER_RELEASE = new Set(['list_creatives', 'build_creative']);

/** Tools the runtime answers itself when the profile serves them. */
const RUNTIME_TOOLS = new Set(['get_adcp_capabilities', 'get_task_status', 'list_tasks', 'sync_agent_notification_configs']);

/**
 * The handler set for a loaded profile: exactly the tools it serves.
 * @param {import('../seller/index.js').LoadedAgent & { webhooks: import('../../generated/index.js').AgentWebhooks }} agent
 * @param {CreativeOptions} [options]
 */
export function createCreativeAgent(agent, options = {}) {
  const now = options.now ?? (() => new Date());
  const agentUrl = options.agentUrl ?? process.env.ADCP_PUBLIC_URL ?? 'https://creative.example';
  const capabilities = agent.capabilities(agent.releases[0]);
  const accounts = createAccounts({
    supportedBilling: capabilities.account?.supported_billing ?? ['operator'],
    space: () => /** @type {import('./library.js').CreativeSpace} */ ({ creatives: new Map(), usage: [], builds: new Map() }),
  });
  for (const { account_id, ...fields } of options.accounts ?? []) accounts.seed(account_id, fields);
  const formats = createFormats(capabilities.creative?.supported_formats ?? []);
  const notifications = createNotifications({ webhooks: () => (capabilities.webhook_signing?.supported === true ? agent.webhooks : undefined) });
  const library = createLibrary({ accounts, now, agentUrl, formats, notify: notifications.notify, activity: notifications.activity });
  const pricing = createPricing({ accounts, now });
  const delivery = createDelivery({ accounts, now });
  const build = createBuild({ accounts, library, pricing, formats, trackingBase: `${agentUrl}/adserver`, agentUrl, now });
  const preview = createPreview({ accounts, library, formats, now });
  const controller = createController({ accounts, library, delivery, formats, agentUrl, now });

  /** list_creative_formats, from the capability catalog: each capability a named format on this agent. */
  const listFormats = () => ({
    formats: formats.all().map((c) => ({ format_id: { agent_url: agentUrl, id: c.capability_id }, name: nameOf(c), ...(c.format.params.width !== undefined ? { renders: [{ role: 'primary', dimensions: { width: c.format.params.width, height: c.format.params.height } }] } : {}) })),
  });

  /** @type {(release: string) => Record<string, (args: any, ctx: any) => unknown>} */
  const implementations = (release) => ({
    ...library.handlers(release),
    ...build.handlers(release),
    ...preview.handlers,
    ...delivery.handlers,
    ...pricing.handlers,
    ...accounts.handlers,
    list_creative_formats: listFormats,
    comply_test_controller: controller.handler,
  });
  const served = [...new Set(agent.releases.flatMap((r) => agent.tools(r)))].filter((t) => !RUNTIME_TOOLS.has(t));
  /** @type {Record<string, unknown>} */
  const handlers = {};
  for (const tool of served) {
    // These name a creative's format per release (3.0 by named format), so they are bound per release.
    const releases = agent.releases.filter((r) => agent.tools(r).includes(tool));
    const impl = (/** @type {string} */ r) => implementations(r)[tool];
    if (impl(releases[0] ?? agent.releases[0]) === undefined) throw new Error(`the reference creative agent does not implement ${tool}, which the profile serves`);
    handlers[tool] = PER_RELEASE.has(tool) && releases.length > 1 ? Object.fromEntries(releases.map((r) => [r, answering(/** @type {any} */ (impl(r)))])) : answering(/** @type {any} */ (impl(releases[0] ?? agent.releases[0])));
  }
  return { handlers };
}

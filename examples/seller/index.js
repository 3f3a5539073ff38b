// @ts-check
import { createAccounts } from './accounts.js';
import { createCatalog } from './catalog.js';
import { createCompact } from './compact.js';
import { createController } from './controller.js';
import { createCreatives } from './creatives.js';
import { createDelivery } from './delivery.js';
import { createFeedback } from './feedback.js';
import { answering } from '../common/errors.js';
import { createMediaBuys } from './media-buys.js';
import { createProducts } from './products.js';
import { createProposalFacade } from './proposal-facade.js';
import { createProposals } from './proposals.js';
import { atLeast, perRelease } from '../common/releases.js';

/**
 * The reference seller: one in-memory publisher behind every tool of the `guaranteed-publisher` profiles, served from
 * any generated set. The profile decides the surface, the seller implements the tools: the production deployment
 * (`guaranteed-publisher`) and the sandbox one (`guaranteed-publisher-sandbox`, which adds comply_test_controller)
 * run this same code, the two-deployment pattern AdCP's controller docs prescribe.
 *
 *   accounts.js      advertiser accounts; each holds its own media buys, creatives and replay keys
 *   catalog.js       products (own inventory + controller seeds), shown per release
 *   products.js      get_products
 *   media-buys.js    create/update/get_media_buys: the one media-buy core
 *   commitments.js   AdCP 3.2's commercial terms, their digest, booking an accepted commitment
 *   proposals.js     request/refine/decline/accept_proposal: immutable proposal snapshots, the buyer's own
 *   proposal-facade.js  the same proposals through get_products (brief, refine, finalize) and create_media_buy
 *   compact.js       list_products, buy_products, control_media_buy
 *   feedback.js      provide_performance_feedback, found among the caller's accounts
 *   delivery.js      get_media_buy_delivery and simulated delivery
 *   terms.js         flight, budget and measurement-terms rules
 *   creatives.js     creative library and formats
 *   lifecycle.js     the media buy, creative and account state machines, as data
 *   controller.js    comply_test_controller (sandbox only)
 *
 * AdCP's idempotency_key replay contract is the runtime's (the generated set keeps it in the agent's store, shared by
 * every instance): a retried create_media_buy never reaches these handlers twice.
 *
 * @typedef {{ releases: readonly string[], tools(release?: string): readonly string[], capabilities(release?: string): Record<string, any>,
 *   toolsList(release?: string): { name: string, annotations: { readOnlyHint: boolean } }[],
 *   validateResponse(tool: string, body: unknown, options: { release: string }): { ok: true } | { ok: false, issues: { pointer: string, message: string }[] },
 *   task(taskId: string): { status(): Promise<string | undefined>, complete(result: Record<string, unknown>): Promise<boolean> } }} LoadedAgent
 * @typedef {{ now?: () => Date, accounts?: ({ account_id: string } & Record<string, unknown>)[], reviewMs?: number,
 *   governance?: ReturnType<typeof import('./governance.js').createSellerGovernance> }} SellerOptions
 *   `accounts`: accounts the seller already holds (what a real seller loads from its records), addressed by `account_id`;
 *   `reviewMs`: how long the IO review of an order takes (default 1 s; see media-buys.js); `governance`: the seller's
 *   side of signed governance (governance.js: sync_governance, and what the runtime's enforcement asks of it).
 */

/**
 * Tools whose answers differ between releases beyond what the generated set's conversions express, so one handler per
 * release answers them: a product or creative described by canonical format only would be left out of a 3.0 answer
 * (3.0 requires named formats), and 3.2 reads a delivery window's end date as exclusive. Every other tool has one
 * handler, written in the highest release's shape, which the generated set converts for buyers pinned to an older
 * release (create_media_buy's `media_buy_status` becomes 3.0's `status`, for instance).
 */
const PER_RELEASE = new Set(['get_products', 'get_media_buy_delivery', 'list_creatives']);

/**
 * Tools the runtime answers itself when the profile serves them: the capabilities (from the profile), the reads of the
 * async tasks it keeps (get_task_status, list_tasks) and the agent-level notification subscribers.
 */
const RUNTIME_TOOLS = new Set(['get_adcp_capabilities', 'get_task_status', 'list_tasks', 'sync_agent_notification_configs']);

/**
 * The handler set for a loaded profile: exactly the tools it serves (the runtime refuses any other set at start).
 * @param {LoadedAgent} agent
 * @param {SellerOptions} [options]
 */
export function createSeller(agent, options = {}) {
  const now = options.now ?? (() => new Date());
  const top = agent.releases[0];
  const capabilities = agent.capabilities(top);
  const accounts = createAccounts({ supportedBilling: capabilities.account?.supported_billing ?? ['operator'] });
  for (const { account_id, ...fields } of options.accounts ?? []) accounts.seed(account_id, fields);
  // A seeded fixture becomes a product only if the highest served release can show it validly (its response schema is
  // the judge, as for any answer): one malformed fixture would otherwise break every later get_products. An older
  // release is shown what it can express: fields and pricing options its schema refuses are left out for it.
  const productReleases = agent.releases.filter((r) => agent.tools(r).includes('get_products'));
  const catalog = createCatalog({ refuses: (product) => fit(product) });
  /** @param {import('./catalog.js').Product} product */
  const fit = (product) => {
    product.unshown = {};
    for (const [i, release] of productReleases.entries()) {
      const unshown = { fields: /** @type {string[]} */ ([]), pricing_options: /** @type {string[]} */ ([]) };
      product.unshown[release] = unshown;
      for (let tries = 0; ; tries++) {
        const shown = catalog.view(product, release);
        const body = { products: [shown], ...(atLeast(release, 3, 2) ? { cache_scope: 'public' } : {}), status: 'completed', adcp_version: release };
        const verdict = agent.validateResponse('get_products', body, { release });
        if (verdict.ok) break;
        const first = verdict.issues[0];
        if (tries === 20) return `the fixture cannot be shown as an AdCP ${release} product: ${first?.pointer ?? ''} ${first?.message ?? 'is invalid'}`;
        const [, field, index] = /^\/products\/0\/([^/]+)(?:\/(\d+))?/.exec(first?.pointer ?? '') ?? [];
        const option = field === 'pricing_options' && index !== undefined ? /** @type {any} */ (shown.pricing_options)[Number(index)]?.pricing_option_id : undefined;
        if (i > 0 && option !== undefined && !unshown.pricing_options.includes(option)) unshown.pricing_options.push(option);
        else if (i > 0 && field !== undefined && Object.hasOwn(product.extra, field) && !unshown.fields.includes(field)) unshown.fields.push(field);
        else return `the fixture cannot be shown as an AdCP ${release} product: ${first?.pointer.replace(/^\/products\/0/, '') || 'the product'} ${first?.message ?? 'is invalid'}`;
      }
    }
    return undefined;
  };
  /** @type {Map<string, import('./controller.js').Directive>} one-shot response arms, per tool and account */
  const directives = new Map();
  const creatives = createCreatives({ accounts, catalog, now });
  const mediaBuys = createMediaBuys({ accounts, catalog, creatives, directives, now, reviewMs: options.reviewMs });
  const delivery = createDelivery({ accounts, mediaBuys, now });
  const feedback = createFeedback({ accounts, now });
  const proposals = createProposals({ accounts, catalog, mediaBuys, now });
  const compact = createCompact({ accounts, catalog, mediaBuys, now });
  const controller = createController({ accounts, catalog, mediaBuys, delivery, directives, proposals, tasks: agent, served: [...new Set(agent.releases.flatMap((r) => agent.tools(r)))] });
  const facade = createProposalFacade({ proposals, catalog });
  // get_products proposes media plans only where the profile says so (media_buy.supports_proposals).
  const products = createProducts({ accounts, catalog, directives, ...(capabilities.media_buy?.supports_proposals === true ? { facade } : {}) });

  /** @type {(release: string) => Record<string, (args: any, ctx: any) => unknown>} */
  const implementations = (release) => ({
    ...products(release),
    ...mediaBuys.handlers(release),
    ...proposals.handlers,
    ...compact.handlers(release),
    create_media_buy: facadeCreate(release),
    ...delivery.handlers(release),
    ...creatives.handlers(release),
    ...accounts.handlers,
    ...feedback.handlers,
    ...options.governance?.bind({ accounts, catalog }),
    comply_test_controller: controller.handler,
  });

  /**
   * create_media_buy, the compatibility facade: packages book as always; a `proposal_id` accepts that committed
   * proposal (proposal-facade.js), the same commitment accept_proposal makes, executed with the request's budget and
   * flight, answered in create_media_buy's shape.
   */
  const facadeCreate = (/** @type {string} */ release) => {
    const byPackages = mediaBuys.handlers(release).create_media_buy;
    return async (/** @type {Record<string, any>} */ args, /** @type {any} */ ctx) => {
      if (args.proposal_id === undefined) return byPackages(args, ctx);
      const account = accounts.resolve(args.account, ctx.principal);
      const committed = facade.accept(account, ctx.principal, args);
      const buy = /** @type {import('./media-buys.js').MediaBuy} */ (mediaBuys.byId(committed.media_buy_id));
      return {
        media_buy_id: buy.media_buy_id,
        ...mediaBuys.statusField(release, buy.status),
        confirmed_at: buy.confirmed_at,
        revision: buy.revision,
        ...(atLeast(release, 3, 2) ? { currency: buy.currency, total_budget: mediaBuys.totalBudget(buy) } : {}),
        packages: buy.packages.map(mediaBuys.packageView),
      };
    };
  };

  /** A tool's handler for one release: business rejections answered as AdCP errors. */
  const bind = (/** @type {string} */ tool, /** @type {string} */ release) => {
    const impl = implementations(release)[tool];
    if (impl === undefined) throw new Error(`the reference seller does not implement ${tool}, which the profile serves`);
    return answering(impl);
  };

  const served = [...new Set(agent.releases.flatMap((r) => agent.tools(r)))].filter((t) => !RUNTIME_TOOLS.has(t)).sort();
  /** @type {Record<string, unknown>} */
  const handlers = {};
  for (const tool of served) {
    const releases = agent.releases.filter((r) => agent.tools(r).includes(tool));
    // A tool served in one release needs no per-release set: that release's handler is the tool's.
    handlers[tool] = PER_RELEASE.has(tool) && releases.length > 1 ? perRelease(agent, tool, (release) => bind(tool, release)) : bind(tool, releases[0] ?? top);
  }
  return { handlers };
}

// @ts-check
import { paginate } from '../common/pagination.js';
import { atLeast } from '../common/releases.js';
import { DEFAULT_MEASUREMENT_TERMS } from './terms.js';

/**
 * Product discovery (get_products). Every buying mode reads the same catalog: `brief` and `wholesale` list what
 * matches the filters, `refine` narrows to the products the buyer names, answering each refine entry by position in
 * `refinement_applied`. A seller declaring `media_buy.supports_proposals` also proposes a media plan for a brief and
 * refines and finalizes it (proposal-facade.js). A one-shot response arm registered by the compliance controller
 * (force_get_products_arm) answers the calling account's next call instead.
 *
 * @typedef {import('./catalog.js').Product} Product
 */

/** Whether a product passes get_products `filters` (core/product-filters.json; the filters this seller applies). */
function matches(/** @type {Product} */ p, /** @type {Record<string, any>} */ f) {
  if (f.delivery_type !== undefined && p.delivery_type !== f.delivery_type) return false;
  if (Array.isArray(f.channels) && !p.channels.some((c) => f.channels.includes(c))) return false;
  if (Array.isArray(f.format_kinds) && !p.format_options.some((o) => f.format_kinds.includes(o.format_kind))) return false;
  if (f.is_fixed_price === true && !p.pricing_options.some((o) => o.fixed_price !== undefined)) return false;
  if (f.is_fixed_price === false && !p.pricing_options.some((o) => o.fixed_price === undefined)) return false;
  if (Array.isArray(f.pricing_currencies) && !p.pricing_options.some((o) => f.pricing_currencies.includes(o.currency))) return false;
  if (Array.isArray(f.required_vendor_metrics)) {
    const offered = /** @type {{ vendor?: { domain?: string }, metric_id?: string }[]} */ (/** @type {any} */ (p.extra.reporting_capabilities)?.vendor_metrics ?? []);
    const has = (/** @type {{ vendor?: { domain?: string }, metric_id?: string }} */ want) => offered.some((m) => m.vendor?.domain === want.vendor?.domain && m.metric_id === want.metric_id);
    if (!f.required_vendor_metrics.every(has)) return false;
  }
  return true;
}

/** The product narrowed to what the filters ask for (pricing options in the requested currencies only). */
function narrowed(/** @type {Product} */ p, /** @type {Record<string, any>} */ f) {
  if (!Array.isArray(f.pricing_currencies)) return p;
  return { ...p, pricing_options: p.pricing_options.filter((o) => f.pricing_currencies.includes(o.currency)) };
}

/** refinement_applied for a seller without proposals: products are narrowed to; the rest is noted. */
function plainRefinement(/** @type {Record<string, any>} */ r) {
  if (r.scope === 'product') return { scope: 'product', product_id: r.product_id, status: 'applied' };
  if (r.scope === 'proposal') return { scope: 'proposal', proposal_id: r.proposal_id, status: 'unable', notes: 'This seller issues no proposals.' };
  return { scope: 'request', status: 'unable', notes: 'Request-wide asks are noted for the account team; this seller refines by product.' };
}

/**
 * @param {{ accounts: ReturnType<typeof import('./accounts.js').createAccounts>, catalog: import('./catalog.js').Catalog,
 *   directives: Map<string, import('./controller.js').Directive>,
 *   facade?: ReturnType<typeof import('./proposal-facade.js').createProposalFacade> }} deps
 *   `facade`: where the profile declares media_buy.supports_proposals.
 */
export function createProducts({ accounts, catalog, directives, facade }) {
  /** @param {string} release */
  return (release) => ({
    get_products: async (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string, task(o?: { taskId?: string }): Promise<{ submitted(m?: string): Record<string, unknown> }> }} */ ctx) => {
      const account = accounts.resolve(args.account, ctx.principal);
      const key = `get_products\0${account.account_id}`;
      const directive = directives.get(key);
      // A forced arm (force_get_products_arm) is for curated discovery: a wholesale feed request never consumes it.
      if (directive !== undefined && args.buying_mode !== 'wholesale') {
        directives.delete(key);
        if (directive.arm === 'rejected') return { status: 'rejected', reason: directive.reason, ...(directive.suggestions !== undefined ? { suggestions: directive.suggestions } : {}) };
        // A real task under the forced id: the task reads find it, force_task_completion ends it with its result.
        if (directive.arm === 'submitted') return (await ctx.task({ taskId: directive.task_id })).submitted(directive.message);
      }
      const filters = args.filters ?? {};
      let list = catalog.all().filter((p) => matches(p, filters));
      /** @type {Record<string, any>[] | undefined} */ let proposals;
      /** @type {Record<string, any>[] | undefined} */ let applied;
      if (args.buying_mode === 'refine' && Array.isArray(args.refine)) {
        /** @type {Set<unknown>} */ let named;
        if (facade !== undefined) {
          const refined = facade.refine(ctx.principal, args.refine);
          ({ proposals, applied } = refined);
          named = new Set(refined.productIds);
        } else {
          applied = args.refine.map(plainRefinement);
          named = new Set(args.refine.filter((/** @type {Record<string, unknown>} */ r) => r.scope === 'product' && r.action !== 'omit').map((/** @type {Record<string, unknown>} */ r) => r.product_id));
        }
        list = list.filter((p) => named.has(p.product_id));
      } else if (facade !== undefined && args.buying_mode === 'brief' && typeof args.brief === 'string') {
        proposals = facade.brief(account, ctx.principal, args, list);
      }
      const { page, pagination } = paginate(list, args.pagination);
      const products = page.map((p) => {
        const shown = catalog.view(narrowed(p, filters), release);
        return { measurement_terms: DEFAULT_MEASUREMENT_TERMS, ...shown };
      });
      return {
        products,
        ...(proposals !== undefined && proposals.length > 0 ? { proposals } : {}),
        ...(applied !== undefined ? { refinement_applied: applied } : {}),
        pagination,
        // 3.2 requires the cache layer of a product answer: it differs per account only in what the filters pick (and a
        // proposal is the caller's own).
        ...(atLeast(release, 3, 2) ? { cache_scope: proposals !== undefined && proposals.length > 0 ? 'account' : 'public' } : {}),
      };
    },
  });
}

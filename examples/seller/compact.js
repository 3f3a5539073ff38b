// @ts-check
import { reject } from '../common/errors.js';
import { paginate } from '../common/pagination.js';
import { availableActions, book, canonicalOffer, commercialTerms, proposalId, termsDigest } from './commitments.js';
import { isTerminalMediaBuy } from './lifecycle.js';

/**
 * AdCP 3.2's compact lifecycle over the seller's one catalog and one media-buy core (media_buy.lifecycle_tools):
 *
 * - list_products: the published offers, as canonical products, with the feed and pricing versions they were read
 *   at (a buyer holding the current versions is answered `unchanged`);
 * - buy_products: a direct purchase of published offers, bound to the versions the buyer read — an offer that moved
 *   since is refused (REQUOTE_REQUIRED), never bought at a price the buyer did not see — answered with the accepted
 *   commitment, as accept_proposal answers;
 * - control_media_buy: operational controls within the accepted terms (pause, resume, cancel, lower the budget, cap
 *   daily spend, rename), against the revision the buyer read (CONFLICT otherwise). Raising spend or moving the
 *   flight changes the terms: that is refine_proposals' (proposals.js).
 *
 * A buy made here is the media buy create_media_buy makes: get_media_buys, update_media_buy and delivery read and act
 * on it alike, and control_media_buy acts on a buy create_media_buy made.
 */

/**
 * @param {{ accounts: ReturnType<typeof import('./accounts.js').createAccounts>, catalog: import('./catalog.js').Catalog,
 *   mediaBuys: ReturnType<typeof import('./media-buys.js').createMediaBuys>, now: () => Date }} deps
 */
export function createCompact(deps) {
  const { accounts, catalog, mediaBuys, now } = deps;

  return {
    /** @param {string} release */
    handlers: (release) => ({
      list_products: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        if (args.account !== undefined) accounts.resolve(args.account, ctx.principal);
        const { feed, pricing } = catalog.versions();
        if (args.if_feed_version === feed && (args.if_pricing_version === undefined || args.if_pricing_version === pricing)) return { outcome: 'unchanged', feed_version: feed, pricing_version: pricing, cache_scope: 'public' };
        const ids = args.criteria?.product_ids;
        const list = catalog.all().filter((p) => !Array.isArray(ids) || ids.includes(p.product_id));
        const { page, pagination } = paginate(list, { max_results: args.max_results, cursor: args.cursor });
        return {
          outcome: 'listed',
          products: page.map((p) => canonicalOffer(catalog, p, release, args.fields)),
          ...(pagination.cursor !== undefined ? { next_cursor: pagination.cursor } : {}),
          feed_version: feed,
          pricing_version: pricing,
          cache_scope: 'public',
        };
      },
      buy_products: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const account = accounts.resolve(args.account, ctx.principal);
        accounts.requireActive(account);
        const { feed, pricing } = catalog.versions();
        if (args.feed_version !== feed) reject('REQUOTE_REQUIRED', 'The product feed changed since this version; list the products again', { field: 'feed_version', details: { feed_version: feed } });
        if (args.pricing_version !== undefined && args.pricing_version !== pricing) reject('REQUOTE_REQUIRED', 'Prices changed since this pricing version; list the products again', { field: 'pricing_version', details: { pricing_version: pricing } });
        const brand = args.brand ?? args.account?.brand ?? account.brand;
        const terms = commercialTerms(deps, {
          brand: { domain: brand.domain },
          purchases: args.purchases,
          start_time: args.start_time,
          end_time: args.end_time,
          ...(args.total_budget !== undefined ? { total_budget: args.total_budget } : {}),
          ...(args.daily_budget_cap !== undefined ? { daily_budget_cap: args.daily_budget_cap } : {}),
          source_feed_version: feed,
          ...(args.pricing_version !== undefined ? { source_pricing_version: pricing } : {}),
        });
        // A direct purchase is its own commitment: the accepted snapshot of the published terms.
        const proposal = { proposal_id: proposalId(), proposal_kind: 'new_media_buy', proposal_status: 'committed', name: `Direct purchase for ${brand.domain}`, expires_at: now().toISOString(), commercial_terms: terms, terms_digest: termsDigest(terms) };
        const { expires_at: _e, ...accepted } = proposal;
        return book(deps, account, accepted);
      },
      control_media_buy: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const account = accounts.resolve(args.account, ctx.principal);
        const buy = mediaBuys.find(account, args.media_buy_id);
        if (args.revision !== buy.revision) reject('CONFLICT', `The media buy is at revision ${buy.revision}; re-read it and retry`, { field: 'revision', details: { current_revision: buy.revision } });
        if (isTerminalMediaBuy(buy.status)) reject('INVALID_STATE', `A ${buy.status} media buy cannot be controlled`, { field: 'media_buy_id', details: { current_status: buy.status } });
        const total = mediaBuys.totalBudget(buy);
        if (args.total_budget !== undefined && args.total_budget.amount > total) {
          reject('INVALID_STATE', 'Raising the budget changes the accepted terms: propose it with refine_proposals', { field: 'total_budget', details: { current_total_budget: total } });
        }
        if (typeof args.daily_budget_cap === 'number' && args.daily_budget_cap > total) reject('INVALID_REQUEST', 'A daily cap above the whole budget caps nothing', { field: 'daily_budget_cap' });
        if (args.canceled === true && (buy.status === 'active' || buy.status === 'paused')) {
          reject('NOT_CANCELLABLE', 'A delivering media buy is canceled by negotiated cancellation (a cancellation proposal), not unilaterally', { field: 'canceled', details: { current_status: buy.status } });
        }
        const pause = args.paused === true ? ['active', 'paused'] : args.paused === false ? ['paused', 'active'] : undefined;
        if (pause !== undefined && buy.status !== pause[0] && buy.status !== pause[1]) reject('INVALID_STATE', `A ${buy.status} media buy cannot be ${args.paused ? 'paused' : 'resumed'}`, { field: 'paused' });
        // Everything checked: apply, as one revision.
        const from = buy.status;
        if (args.canceled === true) {
          mediaBuys.moveTo(buy, 'canceled');
          buy.cancellation = { canceled_at: now().toISOString(), canceled_by: 'buyer', ...(args.cancellation_reason !== undefined ? { reason: args.cancellation_reason } : {}) };
        } else if (pause !== undefined && buy.status === pause[0]) mediaBuys.moveTo(buy, pause[1] ?? buy.status);
        if (args.daily_budget_cap !== undefined) {
          if (args.daily_budget_cap === null) delete buy.daily_budget_cap;
          else buy.daily_budget_cap = args.daily_budget_cap;
        }
        if (args.name !== undefined) buy.name = args.name;
        if (args.total_budget !== undefined) {
          const live = buy.packages.filter((p) => !p.canceled);
          for (const p of live) p.budget = total > 0 ? Math.round((p.budget / total) * args.total_budget.amount * 100) / 100 : args.total_budget.amount / live.length;
        }
        mediaBuys.touch(buy, args.canceled === true ? 'canceled' : buy.status !== from ? (buy.status === 'paused' ? 'paused' : 'resumed') : 'updated');
        return {
          status: 'completed',
          media_buy_id: buy.media_buy_id,
          revision: buy.revision,
          media_buy_status: buy.status,
          implementation_date: now().toISOString(),
          available_actions: availableActions(buy.status),
        };
      },
    }),
  };
}

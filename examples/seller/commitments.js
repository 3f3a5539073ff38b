// @ts-check
import { createHash, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { reject } from '../common/errors.js';
import { VALID_ACTIONS } from './lifecycle.js';
import { checkFlight } from './terms.js';

/**
 * What AdCP 3.2's compact lifecycle commits to (docs/media-buy: commercial terms, proposals, commitments): the exact
 * products, pricing, budgets and flight a media buy is made under, frozen as `commercial_terms` and identified by
 * their `terms_digest` (SHA-256 of the terms' RFC 8785 JCS form). A proposal carries them from draft to committed; a
 * direct purchase (buy_products) makes them from the published offer at once; either way the buy that results keeps
 * the accepted snapshot. The buy itself is the seller's one kind of media buy (media-buys.js): a buy made through the
 * compact tools is read, controlled and delivered like one made through create_media_buy, and the other way round.
 *
 * @typedef {import('./accounts.js').Account} Account
 */

/** RFC 8785 JCS, by the `canonicalize` package (a CommonJS module whose export is the function). */
const canonicalize = /** @type {(input: unknown) => string} */ (createRequire(import.meta.url)('canonicalize'));

/** The terms' digest: `sha256:` + base64url of SHA-256 over the JCS serialization. */
export const termsDigest = (/** @type {Record<string, unknown>} */ terms) => `sha256:${createHash('sha256').update(canonicalize(terms)).digest('base64url')}`;

/** A pricing option as canonical terms state it (core/canonical-pricing-option.json). */
export const canonicalPricing = (/** @type {import('./catalog.js').PricingOption} */ o) => ({
  pricing_option_id: o.pricing_option_id,
  pricing_model: o.pricing_model,
  currency: o.currency,
  ...(o.fixed_price !== undefined ? { fixed_price: o.fixed_price } : o.floor_price !== undefined ? { floor_price: o.floor_price } : {}),
});

/** The canonical product fields (core/canonical-product.json) this seller's products carry. */
const CANONICAL = ['product_id', 'name', 'description', 'publisher_properties', 'channels', 'format_options', 'delivery_type', 'pricing_options', 'reporting_capabilities', 'measurement_terms', 'allowed_actions', 'exclusivity', 'expires_at'];

/** A product as a canonical offer lists it, projected to the requested fields (its id and name always). */
export function canonicalOffer(/** @type {import('./catalog.js').Catalog} */ catalog, /** @type {import('./catalog.js').Product} */ p, /** @type {string} */ release, /** @type {string[] | undefined} */ fields = undefined) {
  const shown = /** @type {Record<string, any>} */ ({ ...catalog.view(p, release), pricing_options: p.pricing_options.map(canonicalPricing) });
  const wanted = new Set(fields ?? CANONICAL);
  return Object.fromEntries(CANONICAL.filter((k) => shown[k] !== undefined && (k === 'product_id' || k === 'name' || wanted.has(k))).map((k) => [k, shown[k]]));
}

/**
 * Commercial terms for purchases of published products (the catalog is the judge of products and pricing options;
 * terms.js of budgets and flights), each purchase resolved to the flight.
 * @param {{ catalog: import('./catalog.js').Catalog, now: () => Date }} deps
 * @param {{ brand: { domain: string, brand_id?: string }, purchases: Record<string, any>[], start_time?: string, end_time: string,
 *   total_budget?: { amount: number, currency: string }, daily_budget_cap?: number, source_feed_version?: string, source_pricing_version?: string }} req
 * @param {string} [field] where the purchases are in the request
 */
export function commercialTerms({ catalog, now }, req, field = 'purchases') {
  const flight = checkFlight({ start_time: req.start_time ?? 'asap', end_time: req.end_time }, now().getTime());
  const start = req.start_time === 'asap' || req.start_time === undefined ? 'asap' : new Date(flight.start).toISOString();
  const end = new Date(flight.end).toISOString();
  const purchases = req.purchases.map((p, i) => {
    const product = catalog.product(p.product_id, `${field}[${i}].product_id`);
    const option = catalog.pricingOption(product, p.pricing_option_id, `${field}[${i}].pricing_option_id`);
    if (typeof p.budget !== 'number' || p.budget <= 0) reject('INVALID_REQUEST', 'Each purchase needs a positive budget', { field: `${field}[${i}].budget` });
    return {
      product_id: product.product_id,
      pricing_option_id: option.pricing_option_id,
      pricing: canonicalPricing(option),
      budget: p.budget,
      start_time: new Date(flight.start).toISOString(),
      end_time: end,
      ...(p.pacing !== undefined ? { pacing: p.pacing } : {}),
    };
  });
  const currencies = new Set(purchases.map((p) => p.pricing.currency));
  if (currencies.size > 1) reject('INVALID_REQUEST', 'All purchases of one commitment must share a currency', { field });
  return {
    ...(req.source_feed_version !== undefined ? { source_feed_version: req.source_feed_version } : {}),
    ...(req.source_pricing_version !== undefined ? { source_pricing_version: req.source_pricing_version } : {}),
    brand: req.brand,
    purchases,
    start_time: start,
    end_time: end,
    total_budget: req.total_budget ?? { amount: purchases.reduce((s, p) => s + p.budget, 0), currency: purchases[0]?.pricing.currency ?? 'USD' },
    ...(req.daily_budget_cap !== undefined ? { daily_budget_cap: req.daily_budget_cap } : {}),
  };
}

/**
 * What a buyer may do next with a buy in its state, and through which compact task: operational controls
 * (control_media_buy) are self-serve within the accepted terms — pausing, resuming, lowering the budget, capping daily
 * spend, canceling before delivery; raising spend or changing the flight changes the terms, which is a proposal
 * (refine_proposals) the seller must approve.
 */
export function availableActions(/** @type {string} */ status) {
  const valid = new Set(VALID_ACTIONS[status] ?? []);
  /** @type {{ action: string, mode: string, task: string }[]} */
  const actions = [];
  const control = (/** @type {string} */ action) => actions.push({ action, mode: 'self_serve', task: 'control_media_buy' });
  if (valid.size > 0) control('decrease_budget');
  if (valid.has('pause')) control('pause');
  if (valid.has('resume')) control('resume');
  if (valid.has('cancel')) actions.push({ action: 'cancel', mode: status === 'active' || status === 'paused' ? 'requires_approval' : 'self_serve', task: 'control_media_buy' });
  if (valid.size > 0) {
    actions.push({ action: 'increase_budget', mode: 'requires_approval', task: 'refine_proposals' }, { action: 'update_flight_dates', mode: 'requires_approval', task: 'refine_proposals' });
    actions.push({ action: 'update_creative_assignments', mode: 'self_serve', task: 'sync_creatives' });
  }
  return actions;
}

/**
 * Makes the media buy an accepted commitment describes, through the seller's one media-buy core; answers the
 * commitment response (media-buy-commitment-response.json). Nothing is kept if anything refuses. The accepting call
 * may state the execution: a total budget (the purchases scaled to it, in the terms' currency) and, through
 * create_media_buy, the flight; the commitment's products and pricing stand as accepted.
 * @param {{ mediaBuys: ReturnType<typeof import('./media-buys.js').createMediaBuys>, now: () => Date }} deps
 * @param {Account} account
 * @param {Record<string, any>} proposal the committed proposal (or a direct purchase's synthesized one)
 * @param {{ total_budget?: { amount: number, currency: string }, start_time?: string, end_time?: string }} [execution]
 */
export function book({ mediaBuys, now }, account, proposal, execution = {}) {
  const t = now();
  const terms = proposal.commercial_terms;
  const committedTotal = terms.total_budget.amount;
  const wanted = execution.total_budget;
  if (wanted !== undefined && wanted.currency !== terms.total_budget.currency) reject('INVALID_REQUEST', `The commitment is in ${terms.total_budget.currency}`, { field: 'total_budget.currency' });
  const scale = wanted === undefined || !(committedTotal > 0) ? 1 : wanted.amount / committedTotal;
  const requested = terms.purchases.map((/** @type {Record<string, any>} */ p) => ({ product_id: p.product_id, pricing_option_id: p.pricing_option_id, budget: Math.round(p.budget * scale * 100) / 100, ...(p.pacing !== undefined ? { pacing: p.pacing } : {}) }));
  const flight =
    execution.end_time !== undefined ? checkFlight({ start_time: execution.start_time ?? 'asap', end_time: execution.end_time }, t.getTime()) : { start: Date.parse(terms.purchases[0].start_time), end: Date.parse(terms.end_time) };
  const buy = mediaBuys.open(account, requested, flight, t, { name: proposal.name, field: 'commercial_terms.purchases' });
  const accepted = { ...proposal, proposal_status: 'accepted', media_buy_id: buy.media_buy_id, accepted_at: t.toISOString() };
  buy.accepted_proposal = accepted;
  if (terms.daily_budget_cap !== undefined) buy.daily_budget_cap = terms.daily_budget_cap;
  mediaBuys.store(account, buy);
  return {
    status: 'completed',
    media_buy_id: buy.media_buy_id,
    revision: buy.revision,
    media_buy_status: buy.status,
    confirmed_at: buy.confirmed_at,
    accepted_proposal: accepted,
    purchase_bindings: buy.packages.map((p, i) => ({ purchase_index: i, product_id: p.product_id ?? terms.purchases[i].product_id, package_id: p.package_id })),
    available_actions: availableActions(buy.status),
  };
}

/** A new proposal id (`prop_…`). */
export const proposalId = () => `prop_${randomUUID().slice(0, 12)}`;

// @ts-check
import { Rejection } from '../common/errors.js';
import { enforcingGovernance } from '../common/governance.js';

/**
 * The seller's side of signed governance (docs/governance.md). The runtime verifies every `governance_context` on
 * create_media_buy — the profile advertises `adcp.governance_enforcement` for it — and needs from the seller only what
 * the seller alone knows:
 * - who a buyer is, from its onboarding records (never the token): the URL its tokens name as `caller` and its
 *   brand.json, which lists the governance agents that may sign for it (`buyers`, by principal);
 * - which accounts registered a governance agent (sync_governance, here: one agent per account, its credential kept
 *   write-only): their governed buys need a token, and online execution checks call that agent;
 * - the price it will commit, computed itself (the sum of the package budgets, in the pricing options' currency), to
 *   compare with the signed ceiling, and what it will deliver (the planned delivery an online execution check shows
 *   the governance agent before the buy is booked).
 *
 * The buyers and the registrations are kept as every enforcing reference agent keeps them (common/governance.js).
 *
 * @typedef {import('../common/governance.js').GovernanceSettings} SellerGovernanceSettings
 */

/** @param {SellerGovernanceSettings} [settings] */
export function createSellerGovernance(settings = {}) {
  /** @typedef {{ accounts: ReturnType<typeof import('./accounts.js').createAccounts>, catalog: ReturnType<typeof import('./catalog.js').createCatalog> }} SellerParts */
  /** @type {SellerParts | undefined} */
  let seller;
  /** The price the seller will commit: the sum of the package budgets, in the pricing options' currency. */
  const commitment = (/** @type {Record<string, any>} */ args) => {
    const packages = Array.isArray(args.packages) ? args.packages : [];
    if (seller === undefined || packages.length === 0) return undefined;
    try {
      const first = seller.catalog.pricingOption(seller.catalog.product(packages[0].product_id, 'packages[0].product_id'), packages[0].pricing_option_id, 'packages[0].pricing_option_id');
      return { amount: packages.reduce((sum, p) => sum + (typeof p.budget === 'number' ? p.budget : 0), 0), currency: first.currency };
    } catch (e) {
      // An unknown product or pricing option: the handler refuses the request; nothing is committed.
      if (e instanceof Rejection) return undefined;
      throw e;
    }
  };
  // What the runtime's enforcement asks of the seller, beside its buyers and registrations.
  const tasks = {
    create_media_buy: {
      commitment,
      /** The prepared result an online execution check presents: what the seller will deliver and commit. */
      plannedDelivery: (/** @type {Record<string, any>} */ args) => {
        const committed = commitment(args);
        return {
          ...(committed !== undefined ? { total_budget: committed.amount, currency: committed.currency } : {}),
          ...(typeof args.start_time === 'string' && args.start_time !== 'asap' ? { start_time: args.start_time } : {}),
          ...(typeof args.end_time === 'string' ? { end_time: args.end_time } : {}),
        };
      },
    },
  };
  return enforcingGovernance(settings, tasks, (/** @type {SellerParts} */ parts) => {
    seller = parts;
  });
}

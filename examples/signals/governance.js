// @ts-check
import { enforcingGovernance } from '../common/governance.js';

/**
 * The signals agent's side of signed governance (docs/governance.md, docs/signals-agent.md). The sandbox profile
 * advertises `adcp.governance_enforcement` for activate_signal (signed_context): the runtime verifies the buyer's
 * `governance_context` before the handler runs, and asks the agent only what it alone knows:
 * - its buyers and the accounts that registered a governance agent (sync_governance), kept as every enforcing
 *   reference agent keeps them (common/governance.js): a registered account's activation needs a token;
 * - which activations are governed: activating (deactivation is exempt — the campaign governance specification —
 *   so a data-protection takedown never waits on a governance agent);
 * - what the activation commits, priced by the agent itself from the pricing option the buyer accepts (`charge`),
 *   which the runtime compares with the token's signed ceiling.
 *
 * @typedef {import('../common/governance.js').GovernanceSettings} SignalsGovernanceSettings
 */

/**
 * What activating under `option` charges at activation: a flat fee commits its amount (one period, billed from
 * activation); CPM and percent-of-media fees accrue only with the impressions or media spend the buyer later reports
 * (report_usage), so the activation itself commits nothing beyond a zero amount in the option's currency (the amount
 * check_governance asks for a no-cost action: a token in another currency still does not cover it).
 * @param {import('./catalog.js').PricingOption} option
 */
export function charge(option) {
  return { amount: option.model === 'flat_fee' ? option.amount : 0, currency: option.currency };
}

/** @param {SignalsGovernanceSettings} [settings] */
export function createSignalsGovernance(settings = {}) {
  /** @type {import('./catalog.js').Catalog | undefined} */
  let catalog;
  // What the runtime's enforcement asks of the signals agent, beside its buyers and registrations.
  const tasks = {
    activate_signal: {
      governed: (/** @type {Record<string, any>} */ args) => args.action !== 'deactivate',
      /** Undefined for a request that commits no money: an unpriced signal, or an unknown segment or option (the handler refuses those). */
      commitment: (/** @type {Record<string, any>} */ args) => {
        const option = catalog?.bySegment(args.signal_agent_segment_id)?.pricing_options.find((o) => o.pricing_option_id === args.pricing_option_id);
        return option === undefined ? undefined : charge(option);
      },
    },
  };
  return enforcingGovernance(settings, tasks, (/** @type {{ accounts: import('../common/governance.js').AccountBook, catalog: import('./catalog.js').Catalog }} */ parts) => {
    catalog = parts.catalog;
  });
}

// @ts-check

/**
 * What this agent charges and how buyers report what it is owed (`creative.bills_through_adcp: true`): a template
 * build is billed per output, ad serving per thousand impressions. The rate card is the default pricing of every
 * library creative (a creative may carry its own options, as a negotiated or seeded one does); `list_creatives` shows
 * them with `include_pricing`, a build answers with what it cost, and `report_usage` records the buyer's usage
 * against them — each record checked (its account, its creative, a pricing option that creative offers, a cost that
 * agrees with the option), accepted whole or refused naming the record.
 *
 * @typedef {import('./library.js').Account} Account
 */

const BUILD = { pricing_option_id: 'po_template_build', model: 'per_unit', unit: 'build', unit_price: 2, currency: 'USD' };
/** @type {Record<string, any>[]} */
export const RATE_CARD = [BUILD, { pricing_option_id: 'po_adserving_cpm', model: 'cpm', cpm: 0.5, currency: 'USD' }];

/** The cost a usage record implies under an option, when the option fixes one (undefined: a custom model). */
function impliedCost(/** @type {Record<string, any>} */ option, /** @type {Record<string, any>} */ record) {
  if (option.model === 'cpm' && typeof record.impressions === 'number') return (record.impressions / 1000) * option.cpm;
  if (option.model === 'per_unit' && typeof record.units === 'number') return record.units * option.unit_price;
  return undefined;
}

/**
 * @param {{ accounts: ReturnType<typeof import('../common/accounts.js').createAccounts<import('./library.js').CreativeSpace>>, now: () => Date }} deps
 */
export function createPricing({ accounts, now }) {
  /** The pricing options of a creative (its own, else the rate card). */
  const optionsOf = (/** @type {import('./library.js').Creative} */ c) => c.pricing_options ?? RATE_CARD;

  /** One usage record → an error naming it, or undefined when it is accepted. */
  const check = (/** @type {Record<string, any>} */ r, /** @type {number} */ i, /** @type {string | undefined} */ principal) => {
    const err = (/** @type {string} */ code, /** @type {string} */ message, /** @type {string} */ field) => ({ code, message, field: `usage[${i}].${field}`, recovery: 'correctable' });
    let account;
    try {
      account = /** @type {Account} */ (accounts.resolve(r.account, principal));
    } catch {
      return err('ACCOUNT_NOT_FOUND', 'No account with this account_id is visible to the caller', 'account');
    }
    const creative = r.creative_id !== undefined ? account.space.creatives.get(r.creative_id) : undefined;
    if (r.creative_id !== undefined && creative === undefined) return err('CREATIVE_NOT_FOUND', `No creative ${JSON.stringify(r.creative_id)} in the account's library`, 'creative_id');
    const options = creative !== undefined ? optionsOf(creative) : RATE_CARD;
    const option = options.find((o) => o.pricing_option_id === r.pricing_option_id);
    if (r.pricing_option_id !== undefined && option === undefined) return err('INVALID_PRICING_OPTION', `No pricing option ${JSON.stringify(r.pricing_option_id)} applies here`, 'pricing_option_id');
    if (option !== undefined && r.currency !== option.currency) return err('INVALID_USAGE_DATA', `usage is in ${r.currency}; the option bills in ${option.currency}`, 'currency');
    const implied = option !== undefined ? impliedCost(option, r) : undefined;
    if (implied !== undefined && Math.abs(implied - r.vendor_cost) > 0.01) return err('INVALID_USAGE_DATA', `vendor_cost ${r.vendor_cost} does not match the option (${implied.toFixed(2)})`, 'vendor_cost');
    account.space.usage.push({ ...r, recorded_at: now().toISOString() });
    return undefined;
  };

  return {
    optionsOf,
    /** What a build of `outputs` manifests costs the account. */
    build: (/** @type {Account} */ account, /** @type {number} */ outputs, /** @type {Date} */ at) => {
      const option = BUILD;
      account.space.usage.push({ pricing_option_id: option.pricing_option_id, units: outputs, vendor_cost: outputs * option.unit_price, currency: option.currency, recorded_at: at.toISOString() });
      return { pricing_option_id: option.pricing_option_id, vendor_cost: outputs * option.unit_price, currency: option.currency };
    },
    handlers: {
      report_usage: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const errors = (args.usage ?? []).map((/** @type {Record<string, any>} */ r, /** @type {number} */ i) => check(r, i, ctx.principal)).filter((/** @type {unknown} */ e) => e !== undefined);
        return { accepted: (args.usage ?? []).length - errors.length, ...(errors.length > 0 ? { errors } : {}) };
      },
    },
  };
}

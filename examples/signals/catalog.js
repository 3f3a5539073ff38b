// @ts-check
import { createHash } from 'node:crypto';

/**
 * The signals this agent offers, in one neutral shape: its own first-party segments (`owned`: built from the
 * retailer's loyalty and purchase data it operates) and segments it resells from data providers (`marketplace`:
 * each published in its provider's adagents.json, so a buyer can verify the provider authorized the resale —
 * the providers are the profile's `signals.data_provider_domains`). A segment carries what discovery ranks it by
 * (its terms), where it may be used (countries), what it costs (pricing options) and the destinations it can be
 * activated on. Custom segments modelled for a brief (discovery.js) join the catalog as `custom`.
 *
 * @typedef {{ pricing_option_id: string, model: 'cpm', cpm: number, currency: string }
 *   | { pricing_option_id: string, model: 'flat_fee', amount: number, period: string, currency: string }
 *   | { pricing_option_id: string, model: 'percent_of_media', percent: number, max_cpm?: number, currency: string }} PricingOption
 * @typedef {{ id: string, name: string, description: string, signal_type: 'owned' | 'marketplace' | 'custom',
 *   provider?: { domain: string, name: string }, value_type: 'binary' | 'categorical' | 'numeric',
 *   categories?: string[], range?: { min: number, max: number }, terms: string[], countries: string[],
 *   coverage_percentage: number, pricing_options: PricingOption[], platforms: string[] }} Signal
 *   `provider`: for a resold segment, its data provider (the adagents.json that publishes it); `terms`: what a brief
 *   matches it by; `platforms`: the DSP integrations it can be pushed to (platforms.js) — every segment can also be
 *   delivered to a sales agent by URL.
 */

const PINNACLE = { domain: 'pinnacle-data.example', name: 'Pinnacle Data' };
const MERIDIAN = { domain: 'meridian-auto.example', name: 'Meridian Automotive Insights' };

/** @type {Signal[]} */
const SIGNALS = [
  {
    id: 'loyalty_electronics_buyers',
    name: 'Loyalty members buying consumer electronics',
    description: 'Loyalty-program members with a consumer-electronics purchase in the last 90 days, from the retailer\'s own transaction data.',
    signal_type: 'owned',
    value_type: 'binary',
    terms: ['loyalty', 'program', 'electronics', 'purchase', 'purchaser', 'buyer', 'customer', 'high', 'value', 'retail', 'shopper', 'behavior', 'transaction', 'first', 'party'],
    countries: ['US', 'CA'],
    coverage_percentage: 9,
    pricing_options: [{ pricing_option_id: 'po_loyalty_cpm', model: 'cpm', cpm: 2.5, currency: 'USD' }],
    platforms: ['the-trade-desk', 'pinnacle-dsp', 'amazon-dsp'],
  },
  {
    id: 'purchase_frequency_tier',
    name: 'Store purchase frequency tier',
    description: 'How often a shopper buys in store, bucketed from twelve months of loyalty transactions.',
    signal_type: 'owned',
    value_type: 'categorical',
    categories: ['weekly', 'monthly', 'quarterly', 'lapsed'],
    terms: ['purchase', 'frequency', 'behavior', 'shopper', 'loyalty', 'retail', 'store', 'customer', 'transaction'],
    countries: ['US', 'CA'],
    coverage_percentage: 21,
    pricing_options: [{ pricing_option_id: 'po_frequency_cpm', model: 'cpm', cpm: 1.75, currency: 'USD' }],
    platforms: ['the-trade-desk', 'pinnacle-dsp'],
  },
  {
    id: 'ev_in_market',
    name: 'In-market electric vehicle buyers',
    description: 'Adults researching electric vehicles with dealer visits or configurator sessions in the last 30 days.',
    signal_type: 'marketplace',
    provider: MERIDIAN,
    value_type: 'binary',
    terms: ['electric', 'vehicle', 'ev', 'auto', 'automotive', 'car', 'in', 'market', 'intender', 'buyer', 'dealer', 'dealership', 'purchase', 'propensity', 'intent', 'adult', 'interested'],
    countries: ['US', 'CA', 'GB', 'DE'],
    coverage_percentage: 4,
    pricing_options: [
      { pricing_option_id: 'po_ev_cpm', model: 'cpm', cpm: 3.5, currency: 'USD' },
      { pricing_option_id: 'po_ev_pom', model: 'percent_of_media', percent: 12, max_cpm: 4, currency: 'USD' },
    ],
    platforms: ['the-trade-desk', 'pinnacle-dsp', 'amazon-dsp'],
  },
  {
    id: 'luxury_auto_intenders',
    name: 'Luxury automotive intenders',
    description: 'High-income households researching premium and luxury vehicles.',
    signal_type: 'marketplace',
    provider: MERIDIAN,
    value_type: 'binary',
    terms: ['luxury', 'premium', 'auto', 'automotive', 'vehicle', 'car', 'intender', 'high', 'income', 'affluent', 'household'],
    countries: ['US', 'GB', 'DE'],
    coverage_percentage: 2,
    pricing_options: [{ pricing_option_id: 'po_luxury_auto_cpm', model: 'cpm', cpm: 4.25, currency: 'USD' }],
    platforms: ['the-trade-desk', 'pinnacle-dsp'],
  },
  {
    id: 'outdoor_enthusiasts',
    name: 'Outdoor enthusiasts 25–54',
    description: 'Adults 25–54 who buy hiking, camping and climbing gear or read outdoor titles.',
    signal_type: 'marketplace',
    provider: PINNACLE,
    value_type: 'binary',
    terms: ['outdoor', 'enthusiast', 'hiking', 'camping', 'climbing', 'adventure', 'gear', 'sport', 'adult', '25', '54', 'paid', 'marketplace'],
    countries: ['US', 'CA'],
    coverage_percentage: 11,
    pricing_options: [
      { pricing_option_id: 'po_outdoor_cpm', model: 'cpm', cpm: 1.9, currency: 'USD' },
      { pricing_option_id: 'po_outdoor_flat', model: 'flat_fee', amount: 2500, period: 'monthly', currency: 'USD' },
    ],
    platforms: ['the-trade-desk', 'pinnacle-dsp', 'amazon-dsp'],
  },
  {
    id: 'household_income_band',
    name: 'Household income band',
    description: 'Modelled household income, in bands, from census and credit-bureau aggregates.',
    signal_type: 'marketplace',
    provider: PINNACLE,
    value_type: 'categorical',
    categories: ['under_50k', '50k_100k', '100k_200k', 'over_200k'],
    terms: ['household', 'income', 'affluent', 'high', 'value', 'premium', 'demographic', 'wealth'],
    countries: ['US'],
    coverage_percentage: 63,
    pricing_options: [{ pricing_option_id: 'po_income_cpm', model: 'cpm', cpm: 0.9, currency: 'USD' }],
    platforms: ['the-trade-desk', 'pinnacle-dsp', 'amazon-dsp'],
  },
];

/** Words a brief uses that say nothing about which audience it wants. */
const GENERIC = new Set(['a', 'an', 'the', 'and', 'or', 'of', 'for', 'with', 'to', 'on', 'at', 'by', 'near', 'who', 'that', 'likely', 'all', 'any', 'show', 'available', 'audience', 'signal', 'segment', 'data', 'detail', 'pricing', 'immediate', 'activation', 'at', 'least', 'one', 'option', 'standalone', 'us', 'probe']);

/** A brief's words, lower-cased and singular (a naive stemmer: `buyers` and `buyer` are one term). */
export function termsOf(/** @type {string} */ text) {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w))
    .filter((w) => !GENERIC.has(w));
}

/** @param {{ agentUrl: string }} options `agentUrl`: this agent's public URL, the source its own segments name */
export function createCatalog({ agentUrl }) {
  /** @type {Map<string, Signal>} by signal_agent_segment_id */
  const signals = new Map(SIGNALS.map((s) => [segmentId(s), structuredClone(s)]));
  let revision = 1;

  return {
    agentUrl,
    all: () => [...signals.values()],
    /** The signal a signal_agent_segment_id names. */
    bySegment: (/** @type {string} */ id) => signals.get(id),
    segmentId,
    /** Adds a segment modelled for a brief (a `custom` signal); the feed moves to a new version. */
    add(/** @type {Signal} */ signal) {
      signals.set(segmentId(signal), signal);
      revision += 1;
    },
    /**
     * The wholesale feed's version for a pricing scope: opaque to buyers, changing whenever the feed (or that scope's
     * pricing) does, and never equal across scopes, so a token minted under one scope cannot short-circuit another.
     */
    feedVersion: (/** @type {string} */ scope) => `sigfeed_${createHash('sha256').update(`${scope}\0${revision}`).digest('hex').slice(0, 16)}`,
    /** The legacy SignalId and the canonical SignalRef of a signal. */
    identity(/** @type {Signal} */ s) {
      if (s.provider !== undefined) {
        return {
          signal_id: { source: 'catalog', data_provider_domain: s.provider.domain, id: s.id },
          signal_ref: { scope: 'data_provider', data_provider_domain: s.provider.domain, signal_id: s.id },
        };
      }
      return { signal_id: { source: 'agent', agent_url: agentUrl, id: s.id }, signal_ref: { scope: 'signal_source', signal_source_url: agentUrl, signal_id: s.id } };
    },
  };
}

/** A segment's activation handle: namespaced by its provider, so two providers' `auto_intenders` never collide. */
function segmentId(/** @type {Signal} */ s) {
  return s.provider !== undefined ? `${s.provider.domain.split('.')[0]}__${s.id}` : `own__${s.id}`;
}

/** @typedef {ReturnType<typeof createCatalog>} Catalog */

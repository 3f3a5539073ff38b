// @ts-check
import { createHash } from 'node:crypto';
import { atLeast } from '../common/releases.js';
import { reject } from '../common/errors.js';

/**
 * The seller's product catalog: its own inventory plus what the compliance controller seeds (seed_product,
 * seed_pricing_option), shared by every account of this deployment. Products are kept in one neutral shape and
 * shown per release: AdCP 3.2 describes creative requirements as canonical `format_options`, 3.0 as named
 * `format_ids` on the seller's creative agent.
 *
 * @typedef {{ format_option_id: string, format_kind: string, params: Record<string, unknown> }} FormatOption
 * @typedef {{ pricing_option_id: string, pricing_model: string, currency: string, fixed_price?: number, floor_price?: number, [k: string]: unknown }} PricingOption
 * @typedef {{ agent_url: string, id: string }} FormatId
 * @typedef {{ product_id: string, name: string, description: string, delivery_type: 'guaranteed' | 'non_guaranteed',
 *   channels: string[], format_options: FormatOption[], format_ids?: FormatId[], pricing_options: PricingOption[],
 *   extra: Record<string, unknown>, unshown?: Record<string, Unshown> }} Product `extra`: the rest of the product's
 *   own description (a fixture's publisher_properties, reporting_capabilities, measurement_terms …), shown as given;
 *   `unshown`: per release, what of it that release cannot express (see `fit` in index.js)
 * @typedef {{ fields: string[], pricing_options: string[] }} Unshown
 */

/** Where this seller's named formats live (AdCP's reference creative agent). */
export const CREATIVE_AGENT_URL = 'https://creative.adcontextprotocol.org';
const PUBLISHER_DOMAIN = 'news.example';

const REPORTING = {
  available_reporting_frequencies: ['daily'],
  expected_delay_minutes: 240,
  timezone: 'UTC',
  supports_webhooks: false,
  available_metrics: ['impressions', 'spend', 'clicks'],
  date_range_support: 'date_range',
};

/** @type {Product[]} */
const INVENTORY = [
  {
    product_id: 'homepage_takeover',
    name: 'Homepage takeover',
    description: 'Reserved homepage takeover, 100% share of voice for a day.',
    delivery_type: 'guaranteed',
    channels: ['display'],
    format_options: [{ format_option_id: 'display_970x250', format_kind: 'image', params: { width: 970, height: 250 } }],
    pricing_options: [
      { pricing_option_id: 'cpm_fixed', pricing_model: 'cpm', currency: 'USD', fixed_price: 42 },
      { pricing_option_id: 'flat_day', pricing_model: 'flat_rate', currency: 'USD', fixed_price: 25000 },
    ],
    extra: {},
  },
  {
    product_id: 'run_of_site_display',
    name: 'Run-of-site display',
    description: 'Medium rectangle across every section, reserved volume at a fixed CPM.',
    delivery_type: 'guaranteed',
    channels: ['display'],
    format_options: [{ format_option_id: 'display_300x250', format_kind: 'image', params: { width: 300, height: 250 } }],
    pricing_options: [{ pricing_option_id: 'cpm_standard', pricing_model: 'cpm', currency: 'USD', fixed_price: 12 }],
    extra: {},
  },
];

/** AdCP's channel names (enums/channels.json, the same in 3.0 and 3.2). */
const CHANNELS = new Set(['display', 'olv', 'social', 'search', 'ctv', 'linear_tv', 'radio', 'streaming_audio', 'podcast', 'dooh', 'ooh', 'print', 'cinema', 'email', 'gaming', 'retail_media', 'influencer', 'affiliate', 'product_placement', 'sponsored_intelligence']);
/** Fixture channel names outside that vocabulary, read as the AdCP channel they mean (online video is `olv`). */
const CHANNEL_ALIASES = /** @type {Record<string, string>} */ ({ video: 'olv' });

/** A fixture's channels in AdCP's vocabulary: aliases mapped, unknown names dropped. */
function channelsOf(/** @type {unknown} */ channels) {
  if (!Array.isArray(channels)) return ['display'];
  const known = [...new Set(channels.map((c) => CHANNEL_ALIASES[c] ?? c).filter((c) => CHANNELS.has(c)))];
  return known.length > 0 ? known : ['display'];
}

/** Product fields AdCP 3.0's core/product.json knows; a 3.0 buyer sees only these. */
const FIELDS_3_0 = new Set(['channels', 'placements', 'exclusivity', 'forecast', 'outcome_measurement', 'delivery_measurement', 'measurement_terms', 'performance_standards', 'cancellation_policy', 'creative_policy', 'is_custom', 'property_targeting_allowed', 'data_provider_signals', 'signal_targeting_allowed', 'catalog_types', 'metric_optimization', 'max_optimization_goals', 'measurement_readiness', 'conversion_tracking', 'catalog_match', 'brief_relevance', 'expires_at', 'product_card', 'product_card_detailed', 'collections', 'collection_targeting_allowed', 'installments', 'enforced_policies', 'trusted_match', 'material_submission', 'ext']);

/**
 * @param {{ refuses?: (product: Product) => string | undefined }} [options] `refuses`: why a seeded product cannot be
 *   described validly (checked with the releases' own response schemas), if it cannot; it may instead record in
 *   `product.unshown` what an older release cannot express.
 */
export function createCatalog(options = {}) {
  /** @type {Map<string, Product>} */
  const products = new Map(INVENTORY.map((p) => [p.product_id, structuredClone(p)]));
  /** Stores a seeded product unless the seller could not show it validly; returns why not, if not. */
  const admit = (/** @type {Product} */ product) => {
    const why = options.refuses?.(product);
    if (why === undefined) products.set(product.product_id, product);
    return why;
  };

  return {
    all: () => [...products.values()],
    /** Products a brief's words name (by name, description or channel), for a brief that names no product. */
    matching(/** @type {string} */ brief) {
      const words = new Set(String(brief).toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 3));
      return [...products.values()].filter((p) => `${p.name} ${p.description} ${p.channels.join(' ')}`.toLowerCase().split(/[^a-z0-9]+/).some((w) => words.has(w)));
    },
    /**
     * The published feed's versions: `feed` changes with any product, `pricing` with any price, so a buyer who bought
     * against a version knows whether the offer it read is still the one on sale.
     */
    versions() {
      const all = [...products.values()];
      const hash = (/** @type {unknown} */ v) => createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 16);
      return { feed: `feed_${hash(all.map((p) => [p.product_id, p.name, p.format_options, p.channels]))}`, pricing: `price_${hash(all.map((p) => [p.product_id, p.pricing_options]))}` };
    },
    /** The product a package names, or PRODUCT_NOT_FOUND at that package's field. */
    product(/** @type {string} */ id, /** @type {string} */ field) {
      return products.get(id) ?? reject('PRODUCT_NOT_FOUND', `No product ${JSON.stringify(id)} in this seller's catalog`, { field });
    },
    /**
     * The pricing option a package names on its product, or INVALID_PRICING_OPTION. `default` names the product's
     * first option: AdCP's storyboard runner sends it when a storyboard books a product it never discovered.
     */
    pricingOption(/** @type {Product} */ product, /** @type {string} */ id, /** @type {string} */ field) {
      const options = product.pricing_options.length > 0 ? product.pricing_options : [{ pricing_option_id: 'default', pricing_model: 'cpm', currency: 'USD', floor_price: 1 }];
      return (
        options.find((o) => o.pricing_option_id === id) ??
        (id === 'default' ? options[0] : undefined) ??
        reject('INVALID_PRICING_OPTION', `Product ${product.product_id} has no pricing option ${JSON.stringify(id)}`, { field })
      );
    },
    /**
     * seed_product: the fixture's fields over sensible defaults; seeding again replaces the product. A fixture names
     * creative requirements canonically (`format_options`), as named formats (`format_ids`, whose agent defaults to
     * this seller's creative agent), or both. This seller renders canonical format kinds only: a `custom` format
     * declaration is refused (INVALID_PARAMS, as the controller may answer a fixture it cannot honour).
     * @returns {string | undefined} why the fixture is refused, if it is
     */
    seedProduct(/** @type {string} */ id, /** @type {Record<string, any>} */ fixture) {
      const { name, description, delivery_type, channels, format_options, format_ids, pricing_options, product_id: _id, ...extra } = fixture;
      if (Array.isArray(format_options) && format_options.some((/** @type {Record<string, unknown>} */ o) => o.format_kind === 'custom')) {
        return 'this seller renders canonical format kinds only; a custom format declaration cannot be sold';
      }
      const previous = products.get(id);
      const named = Array.isArray(format_ids) ? format_ids.map((/** @type {Record<string, unknown>} */ f) => ({ agent_url: CREATIVE_AGENT_URL, ...f })) : undefined;
      return admit({
        product_id: id,
        name: name ?? `Test product ${id}`,
        description: description ?? 'Compliance fixture product',
        delivery_type: delivery_type === 'guaranteed' ? 'guaranteed' : 'non_guaranteed',
        channels: channelsOf(channels),
        format_options: Array.isArray(format_options) ? format_options : named !== undefined ? [] : [{ format_option_id: 'display_300x250', format_kind: 'image', params: { width: 300, height: 250 } }],
        ...(named !== undefined ? { format_ids: /** @type {FormatId[]} */ (named) } : {}),
        pricing_options: pricing_options ?? previous?.pricing_options ?? [],
        extra,
      });
    },
    /**
     * seed_pricing_option: adds or replaces one pricing option of a product (seeding the product first if needed),
     * as the fixture states it; refused like a product the seller could not show.
     * @returns {string | undefined} why the fixture is refused, if it is
     */
    seedPricingOption(/** @type {string} */ productId, /** @type {string} */ optionId, /** @type {Record<string, any>} */ fixture) {
      if (!products.has(productId)) {
        const why = this.seedProduct(productId, {});
        if (why !== undefined) return why;
      }
      const product = /** @type {Product} */ (products.get(productId));
      /** @type {PricingOption} */
      const option = { pricing_model: 'cpm', currency: 'USD', ...fixture, pricing_option_id: optionId };
      return admit({ ...product, pricing_options: [...product.pricing_options.filter((o) => o.pricing_option_id !== optionId), option] });
    },
    /**
     * The product as release `release` describes products.
     * @param {Product} p
     * @param {string} release
     */
    view(p, release) {
      const unshown = p.unshown?.[release];
      const own = Object.fromEntries(Object.entries(p.extra).filter(([k]) => (atLeast(release, 3, 2) || FIELDS_3_0.has(k)) && !unshown?.fields.includes(k)));
      const priced = p.pricing_options.filter((o) => !unshown?.pricing_options.includes(o.pricing_option_id));
      const base = {
        publisher_properties: [{ publisher_domain: PUBLISHER_DOMAIN, selection_type: 'all' }],
        ...own,
        // A fixture may state part of its reporting; the rest is this seller's standard reporting.
        reporting_capabilities: { ...REPORTING, .../** @type {object} */ (own.reporting_capabilities ?? {}) },
        product_id: p.product_id,
        name: p.name,
        description: p.description,
        channels: p.channels,
        delivery_type: p.delivery_type,
        pricing_options: priced.length > 0 ? priced : [{ pricing_option_id: 'default', pricing_model: 'cpm', currency: 'USD', floor_price: 1 }],
      };
      const named = p.format_ids ?? p.format_options.map((o) => ({ agent_url: CREATIVE_AGENT_URL, id: o.format_option_id }));
      if (!atLeast(release, 3, 2)) return { ...base, format_ids: named };
      // 3.2: canonical format options, named formats, or both, as the product declares them.
      return { ...base, ...(p.format_ids !== undefined ? { format_ids: p.format_ids } : {}), ...(p.format_options.length > 0 ? { format_options: p.format_options } : {}) };
    },
  };
}

/** @typedef {ReturnType<typeof createCatalog>} Catalog */

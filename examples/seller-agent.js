// @ts-check
/**
 * A runnable AdCP seller agent on the generated `guaranteed-publisher` set: MCP over Streamable HTTP on localhost,
 * with in-memory handlers. Every call goes through the generated pipeline (release selection, normalization,
 * strip or drift errors, compiled validation) before a handler sees it.
 *
 *   npm run example                 # http://127.0.0.1:3000/mcp, production mode
 *   PORT=4000 ADCP_MODE=development npm run example
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { AdcpError, loadProfile } from '../generated/index.js';
import { serveMcp } from './serve-mcp.js';

/** In-memory inventory and state: one seller, one process. */
export function createSellerHandlers() {
  /** @type {Map<string, Record<string, unknown>>} */
  const mediaBuys = new Map();
  const product = {
    product_id: 'homepage_takeover',
    name: 'Homepage takeover',
    description: 'Reserved homepage takeover, 100% share of voice for a day.',
    publisher_properties: [{ publisher_domain: 'news.example', selection_type: 'all' }],
    format_ids: [{ agent_url: 'https://creative.adcontextprotocol.org', id: 'display_970x250' }],
    delivery_type: 'guaranteed',
    pricing_options: [{ pricing_option_id: 'cpm_fixed', pricing_model: 'cpm', currency: 'USD', fixed_price: 42 }],
    reporting_capabilities: {
      available_reporting_frequencies: ['daily'],
      expected_delay_minutes: 240,
      timezone: 'UTC',
      supports_webhooks: false,
      available_metrics: ['impressions', 'spend'],
      date_range_support: 'date_range',
    },
  };
  const now = () => new Date().toISOString();
  /** A YYYY-MM-DD request date that is a calendar day (the schema's pattern also admits 2026-13-45). */
  const day = (/** @type {string} */ value, /** @type {string} */ field) => {
    const t = Date.parse(`${value}T00:00:00Z`);
    if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== value) {
      throw new AdcpError('INVALID_REQUEST', `${field} is not a calendar date`, { field, recovery: 'correctable' });
    }
    return value;
  };

  /** @type {Record<string, (args: any, ctx: any) => unknown>} */
  const handlers = {
    get_products: (_args, ctx) => ({ products: [product], ...(ctx.release >= '3.2' ? { cache_scope: 'public' } : {}) }),
    list_creative_formats: () => ({
      formats: [{ format_id: { agent_url: 'https://creative.adcontextprotocol.org', id: 'display_970x250' }, name: 'Billboard 970x250' }],
    }),
    create_media_buy: (args) => {
      const media_buy_id = `mb_${randomUUID().slice(0, 8)}`;
      const packages = (args.packages ?? []).map((/** @type {any} */ p, /** @type {number} */ i) => ({ package_id: `${media_buy_id}_pkg_${i}`, product_id: p.product_id }));
      mediaBuys.set(media_buy_id, { media_buy_id, status: 'active', packages, created_at: now() });
      return { media_buy_id, packages, confirmed_at: now(), revision: 1 };
    },
    update_media_buy: (args) => {
      const buy = mediaBuys.get(args.media_buy_id);
      if (buy === undefined) return { errors: [{ code: 'MEDIA_BUY_NOT_FOUND', message: `no media buy ${args.media_buy_id}` }] };
      return { media_buy_id: buy.media_buy_id, affected_packages: [], implementation_date: now() };
    },
    get_media_buys: () => ({
      media_buys: [...mediaBuys.values()].map((b) => ({ media_buy_id: b.media_buy_id, status: b.status, currency: 'USD', total_budget: 0, packages: [] })),
    }),
    // The requested window (UTC days), else the day so far; delivery only for buys this seller holds. An unknown id
    // gets the same answer as any other unknown id (nothing echoes it): AdCP's uniform-error rule, which
    // `adcp fuzz` checks, so a caller cannot probe which ids exist elsewhere.
    get_media_buy_delivery: (args) => {
      const today = now().slice(0, 10);
      const start = day(args.start_date ?? today, 'start_date');
      const end = day(args.end_date ?? today, 'end_date');
      if (end < start) throw new AdcpError('INVALID_REQUEST', 'end_date is before start_date', { field: 'end_date', recovery: 'correctable' });
      return {
        reporting_period: { start: `${start}T00:00:00Z`, end: `${end}T23:59:59Z` },
        currency: 'USD',
        media_buy_deliveries: [],
      };
    },
    provide_performance_feedback: () => ({ success: true }),
    sync_creatives: (args) => ({ creatives: (args.creatives ?? []).map((/** @type {any} */ c) => ({ creative_id: c.creative_id, action: 'created' })) }),
    list_creatives: () => ({
      query_summary: { total_matching: 0, returned: 0 },
      pagination: { has_more: false },
      creatives: [],
    }),
    list_accounts: () => ({ accounts: [] }),
    sync_accounts: (args) => ({ accounts: (args.accounts ?? []).map((/** @type {any} */ a) => ({ brand: a.brand, operator: a.operator, action: 'created', status: 'active' })) }),
  };
  return handlers;
}

/**
 * Starts the agent; resolves to its MCP endpoint URL and a close function (see serve-mcp.js for the HTTP details,
 * keep-alive included).
 * @param {{ port?: number, host?: string, mode?: 'production' | 'development' }} [options]
 */
export async function startSellerAgent(options = {}) {
  const agent = await loadProfile('guaranteed-publisher', { mode: options.mode ?? 'production' });
  const served = await serveMcp(agent, createSellerHandlers(), { port: options.port, host: options.host, name: 'example-seller' });
  return { ...served, agent };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const mode = process.env.ADCP_MODE === 'development' ? 'development' : 'production';
  const { url } = await startSellerAgent({ port: Number(process.env.PORT ?? 3000), mode });
  console.error(`AdCP seller agent (guaranteed-publisher, ${mode}) serving MCP at ${url}`);
}

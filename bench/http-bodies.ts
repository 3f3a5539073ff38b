import { createMediaBuyRequest } from '../test/helpers/payloads.js';

/**
 * bench/http: the fixed AdCP 3.0.6 bodies both servers answer and the load generator sends, one copy for both sides
 * (the servers' children import this module too), so every request body is byte-identical whichever server gets it.
 * Each is valid against 3.0.6's canonical schemas (the peer checks its answers strictly by default, and the check
 * in http.ts fails the bench on any error result).
 */
export const API_KEY = 'sk_bench_http_0123456789abcdef';
export const PRINCIPAL = 'bench-buyer';

/** A get_products brief request (3.0.6 media-buy/get-products-request.json). */
export const GET_PRODUCTS_REQUEST = {
  buying_mode: 'brief',
  brief: 'Homepage takeover for a product launch in the first week of December',
  brand: { domain: 'acme.example' },
  account: { account_id: 'acc_1' },
  preferred_delivery_types: ['guaranteed'],
};

const REPORTING = {
  available_reporting_frequencies: ['daily'],
  expected_delay_minutes: 240,
  timezone: 'UTC',
  supports_webhooks: false,
  available_metrics: ['impressions', 'spend', 'clicks'],
  date_range_support: 'date_range',
};

/** Its answer: two guaranteed products (3.0.6 media-buy/get-products-response.json, core/product.json). */
export const GET_PRODUCTS_RESPONSE = {
  products: [
    {
      product_id: 'homepage_takeover',
      name: 'Homepage takeover',
      description: 'Reserved homepage takeover, 100% share of voice for a day.',
      publisher_properties: [{ publisher_domain: 'news.example', selection_type: 'all' }],
      channels: ['display'],
      format_ids: [{ agent_url: 'https://creative.adcontextprotocol.org', id: 'display_970x250' }],
      delivery_type: 'guaranteed',
      pricing_options: [
        { pricing_option_id: 'cpm_fixed', pricing_model: 'cpm', currency: 'USD', fixed_price: 42 },
        { pricing_option_id: 'flat_day', pricing_model: 'flat_rate', currency: 'USD', fixed_price: 25000 },
      ],
      reporting_capabilities: REPORTING,
    },
    {
      product_id: 'run_of_site_display',
      name: 'Run-of-site display',
      description: 'Medium rectangle across every section, reserved volume at a fixed CPM.',
      publisher_properties: [{ publisher_domain: 'news.example', selection_type: 'all' }],
      channels: ['display'],
      format_ids: [{ agent_url: 'https://creative.adcontextprotocol.org', id: 'display_300x250' }],
      delivery_type: 'guaranteed',
      pricing_options: [{ pricing_option_id: 'cpm_standard', pricing_model: 'cpm', currency: 'USD', fixed_price: 12 }],
      reporting_capabilities: REPORTING,
    },
  ],
};

/**
 * The validation probe: a get_products request whose brief is this makes both servers' get_products handler answer
 * INVALID_PRODUCTS_RESPONSE (a product without its required fields), so the bench can see which side validates
 * responses. Sent once per server before measuring, never during.
 */
export const INVALID_RESPONSE_BRIEF = 'bench: answer an invalid body';
export const INVALID_PRODUCTS_RESPONSE = { products: [{ product_id: 'homepage_takeover' }] };
/** An invalid get_products request (buying_mode outside its enum). */
export const INVALID_GET_PRODUCTS_REQUEST = { ...GET_PRODUCTS_REQUEST, buying_mode: 'everything' };

let spendUs = 0;
/** When the spend allocates: how many call-line-sized JSON strings make it, measured in this process. */
let lines = 0;
/** Where those strings go (exported, so that the work cannot be optimised away). */
export let spent = '';

/**
 * bench/observe's calibration: each handler of its server spends this much CPU on purpose, so that a known cost a
 * call can be read through the bench's figure. Waiting: a busy wait on the clock (at most this much, touching no
 * memory). Allocating: as many JSON strings of a call line's size as take this long in this process, measured here
 * (work that makes garbage, as a log line or a span does). 0: none.
 */
export function setSpend(us: number, allocating = false): void {
  spendUs = us;
  lines = us > 0 && allocating ? Math.max(1, Math.round(us / lineMicros())) : 0;
}

function spend(): void {
  if (spendUs === 0) return;
  if (lines > 0) {
    for (let i = 0; i < lines; i++) spent = callLine(i);
    return;
  }
  const end = performance.now() + spendUs / 1000;
  while (performance.now() < end);
}

function callLine(i: number): string {
  return JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, agent: 'bench', event: 'call', tool: 'get_products', release: '3.0', principal: PRINCIPAL, outcome: 'completed', duration_ms: i / 1000, replayed: false, request_id: `request-${i}`, msg: 'call' });
}

/** One callLine's CPU in this process (µs), warmed, the least of three timings; measured once. */
let measured: number | undefined;
function lineMicros(): number {
  if (measured !== undefined) return measured;
  const n = 20_000;
  let best = Infinity;
  for (let r = 0; r < 4; r++) {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) spent = callLine(i);
    const used = process.cpuUsage(before);
    if (r > 0) best = Math.min(best, (used.user + used.system) / n);
  }
  return (measured = best);
}

/** The get_products handler of both servers (spending what bench/observe's calibration asks, nothing otherwise). */
export function getProductsHandler(args: { brief?: unknown }): unknown {
  spend();
  return args?.brief === INVALID_RESPONSE_BRIEF ? INVALID_PRODUCTS_RESPONSE : GET_PRODUCTS_RESPONSE;
}

/** test/helpers/payloads.ts's create_media_buy, with the idempotency_key the load generator replaces per request. */
export const CREATE_MEDIA_BUY_REQUEST = createMediaBuyRequest();

/** Its answer (3.0.6 media-buy/create-media-buy-response.json, the synchronous success arm). */
export const CREATE_MEDIA_BUY_RESPONSE = {
  media_buy_id: 'mb_1',
  status: 'pending_creatives',
  confirmed_at: '2026-12-02T10:00:00Z',
  revision: 1,
  packages: [{ package_id: 'pkg_1', product_id: 'homepage_takeover', pricing_option_id: 'cpm_fixed', budget: 1000 }],
};

/** The create_media_buy handler of both servers (spending what bench/observe's calibration asks, nothing otherwise). */
export function createMediaBuyHandler(): unknown {
  spend();
  return CREATE_MEDIA_BUY_RESPONSE;
}

/** The idempotency key of the n-th create_media_buy sent to one server (the same sequence for both servers). */
export function idempotencyKey(n: number): string {
  return `c0ffee00-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

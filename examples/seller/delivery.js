// @ts-check
import { reject } from '../common/errors.js';
import { atLeast } from '../common/releases.js';

/**
 * Delivery: what a media buy has delivered (get_media_buy_delivery), and how it gets there in this sandbox — the
 * compliance controller's simulate_delivery records a day's numbers. Totals are per requested window; packages
 * share them in proportion to their budgets.
 *
 * @typedef {import('./media-buys.js').MediaBuy} MediaBuy
 * @typedef {import('./media-buys.js').Package} Package
 * @typedef {import('./media-buys.js').DeliveryDay} DeliveryDay
 */

/**
 * @param {{ accounts: ReturnType<typeof import('./accounts.js').createAccounts>, mediaBuys: ReturnType<typeof import('./media-buys.js').createMediaBuys>,
 *   now: () => Date }} deps
 */
export function createDelivery({ accounts, mediaBuys, now }) {
  const finality = (/** @type {MediaBuy} */ b) => {
    const f = b.delivery.finality;
    return f?.is_final === true ? { is_final: true, finalized_at: f.finalized_at ?? b.updated_at } : { is_final: false };
  };
  const windowOf = (/** @type {Package} */ p) => /** @type {{ billing_measurement?: { measurement_window?: string } } | undefined} */ (p.measurement_terms)?.billing_measurement?.measurement_window;

  const day = (/** @type {unknown} */ value, /** @type {string} */ field) => {
    const v = String(value);
    const t = Date.parse(`${v}T00:00:00Z`);
    if (Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== v) reject('INVALID_REQUEST', `${field} is not a calendar date`, { field });
    return t;
  };
  const DAY_MS = 86_400_000;

  /**
   * get_media_buy_delivery for `release`. AdCP 3.2 reports the window [start_date, end_date) — end exclusive, later
   * than the start; 3.0 leaves the end's meaning open and this seller reads it inclusively there. Without dates the
   * report is the buys' lifetime. The period is the requested one, never the clock: the same request answers alike.
   */
  const delivery = (/** @type {Record<string, any>} */ args, /** @type {string} */ release) => {
    const account = accounts.resolve(args.account);
    const exclusiveEnd = atLeast(release, 3, 2);
    const today = Date.parse(`${now().toISOString().slice(0, 10)}T00:00:00Z`);
    const dated = args.start_date !== undefined || args.end_date !== undefined;
    const from = args.start_date !== undefined ? day(args.start_date, 'start_date') : dated ? today : 0;
    let to = args.end_date !== undefined ? day(args.end_date, 'end_date') + (exclusiveEnd ? 0 : DAY_MS) : today + DAY_MS;
    /** The period as the release states it: 3.2 by its [start, end) boundaries, 3.0 by its first and last second. */
    const period = (/** @type {number} */ a, /** @type {number} */ b) =>
      exclusiveEnd ? { start: new Date(a).toISOString(), end: new Date(b).toISOString() } : { start: `${new Date(a).toISOString().slice(0, 10)}T00:00:00Z`, end: `${new Date(b - 1000).toISOString().slice(0, 19)}Z` };
    if (to < from || (exclusiveEnd && args.end_date !== undefined && to === from)) {
      // A window with no days in it is the buyer's mistake about the window, reported with the (empty) report.
      return {
        reporting_period: period(from, Math.max(to, from)),
        currency: 'USD',
        media_buy_deliveries: [],
        errors: [{ code: 'VALIDATION_ERROR', message: 'start_date must be earlier than end_date', field: 'start_date', recovery: 'correctable' }],
      };
    }
    if (!dated) to = Math.max(to, today + DAY_MS);
    const buys = mediaBuys.select(account, args);
    const inWindow = (/** @type {DeliveryDay} */ d) => {
      const t = Date.parse(`${d.date}T00:00:00Z`);
      return t >= from && t < to;
    };
    const sum = (/** @type {DeliveryDay[]} */ days) => ({
      impressions: days.reduce((n, d) => n + d.impressions, 0),
      clicks: days.reduce((n, d) => n + d.clicks, 0),
      spend: Math.round(days.reduce((n, d) => n + d.spend, 0) * 100) / 100,
    });
    return {
      reporting_period: period(dated ? from : Math.min(today, ...buys.map((b) => Date.parse(b.start_time))), to),
      currency: buys[0]?.currency ?? 'USD',
      media_buy_deliveries: buys.map((b) => {
        const totals = sum(b.delivery.days.filter(inWindow));
        const budget = mediaBuys.totalBudget(b) || 1;
        const share = (/** @type {Package} */ p) => p.budget / budget;
        return {
          media_buy_id: b.media_buy_id,
          status: b.status,
          // Whether the numbers are final (3.2 says so per row): as the latest delivery the seller recorded says.
          ...(exclusiveEnd ? finality(b) : {}),
          totals: { ...totals, ...(b.delivery.viewability !== undefined ? { viewability: b.delivery.viewability } : {}) },
          by_package: b.packages.map((p) => ({
            package_id: p.package_id,
            impressions: Math.round(totals.impressions * share(p)),
            clicks: Math.round(totals.clicks * share(p)),
            spend: Math.round(totals.spend * share(p) * 100) / 100,
            pricing_model: p.pricing_model,
            rate: p.rate,
            currency: p.currency,
            paused: p.paused,
            ...(exclusiveEnd ? finality(b) : {}),
            // The measurement window these numbers come from: the recorded one, else the package's agreed billing window.
            ...((b.delivery.finality?.measurement_window ?? windowOf(p)) !== undefined ? { measurement_window: b.delivery.finality?.measurement_window ?? windowOf(p) } : {}),
          })),
        };
      }),
    };
  };

  /** simulate_delivery: adds a day's delivery to the buy (that day, or today); viewability is latest, not additive. */
  const record = (/** @type {MediaBuy} */ b, /** @type {Record<string, any>} */ params) => {
    b.delivery.days.push({
      date: typeof params.delivery_date === 'string' ? params.delivery_date : now().toISOString().slice(0, 10),
      impressions: params.impressions ?? 0,
      clicks: params.clicks ?? 0,
      spend: params.reported_spend?.amount ?? 0,
    });
    if (params.viewability !== undefined) b.delivery.viewability = params.viewability;
    if (params.is_final !== undefined || params.measurement_window !== undefined) {
      b.delivery.finality = {
        is_final: params.is_final === true,
        ...(typeof params.finalized_at === 'string' ? { finalized_at: params.finalized_at } : {}),
        ...(typeof params.measurement_window === 'string' ? { measurement_window: params.measurement_window } : {}),
      };
    }
    const days = b.delivery.days;
    return {
      impressions: days.reduce((n, d) => n + d.impressions, 0),
      clicks: days.reduce((n, d) => n + d.clicks, 0),
      reported_spend: { amount: Math.round(days.reduce((n, d) => n + d.spend, 0) * 100) / 100, currency: b.currency },
    };
  };

  return {
    record,
    /** @param {string} release */
    handlers: (release) => ({
      get_media_buy_delivery: (/** @type {Record<string, any>} */ args) => delivery(args, release),
    }),
  };
}

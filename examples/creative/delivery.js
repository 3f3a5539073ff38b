// @ts-check
import { reject } from '../common/errors.js';
import { paginate } from '../common/pagination.js';

/**
 * get_creative_delivery: what this ad server counted for the creatives it serves — per creative, the variant it
 * serves (the tag build_creative made) and the impressions and clicks counted against it, by media buy. Counting
 * happens where the tags report (the impression endpoint the tags name); in this sandbox the compliance controller's
 * `simulate_delivery` stands in for the traffic. A creative nobody has served reports zeros, never invented numbers.
 *
 * @typedef {{ impressions: number, clicks: number }} Counted
 * @typedef {import('./library.js').Account} Account
 */

/** @param {{ accounts: ReturnType<typeof import('../common/accounts.js').createAccounts<import('./library.js').CreativeSpace>>, now: () => Date }} deps */
export function createDelivery({ accounts, now }) {
  /** @type {Map<string, Map<string, Counted>>} creative id → media buy id ('' when none) → counts */
  const counted = new Map();

  const totals = (/** @type {Iterable<Counted>} */ rows) => {
    let impressions = 0;
    let clicks = 0;
    for (const r of rows) {
      impressions += r.impressions;
      clicks += r.clicks;
    }
    return { impressions, clicks, ...(impressions > 0 ? { ctr: clicks / impressions } : {}) };
  };

  return {
    /** Records served traffic (the controller's simulate_delivery, or the impression endpoint's counts). */
    record(/** @type {string} */ creativeId, /** @type {string | undefined} */ mediaBuyId, /** @type {Counted} */ add) {
      const byBuy = counted.get(creativeId) ?? new Map();
      const row = byBuy.get(mediaBuyId ?? '') ?? { impressions: 0, clicks: 0 };
      byBuy.set(mediaBuyId ?? '', { impressions: row.impressions + add.impressions, clicks: row.clicks + add.clicks });
      counted.set(creativeId, byBuy);
      return totals(byBuy.values());
    },
    handlers: {
      get_creative_delivery: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const account = /** @type {Account} */ (accounts.resolve(args.account, ctx.principal));
        const start = args.start_date ?? now().toISOString().slice(0, 10);
        const end = args.end_date ?? start;
        if (Date.parse(`${end}T00:00:00Z`) < Date.parse(`${start}T00:00:00Z`)) reject('INVALID_REQUEST', 'end_date is before start_date', { field: 'end_date' });
        const creatives = [...account.space.creatives.values(), ...accounts.fixtures.creatives.values()].filter(
          (c) => c.purge === undefined && (args.creative_ids === undefined || args.creative_ids.includes(c.creative_id)) && (args.media_buy_ids === undefined || args.media_buy_ids.some((/** @type {string} */ m) => c.media_buy_ids.includes(m))),
        );
        const { page, pagination } = paginate(creatives, args.pagination);
        const offset = creatives.indexOf(page[0] ?? creatives[creatives.length]);
        return {
          account_id: account.account_id,
          currency: 'USD',
          reporting_period: { start: `${start}T00:00:00Z`, end: `${end}T23:59:59Z`, timezone: 'UTC' },
          creatives: page.map((c) => {
            const byBuy = counted.get(c.creative_id) ?? new Map();
            const rows = args.media_buy_ids === undefined ? [...byBuy.values()] : args.media_buy_ids.map((/** @type {string} */ m) => byBuy.get(m) ?? { impressions: 0, clicks: 0 });
            const sum = totals(rows);
            return {
              creative_id: c.creative_id,
              ...(c.format_kind !== undefined ? { format_kind: c.format_kind } : {}),
              totals: sum,
              variant_count: 1,
              variants: [{ variant_id: `${c.creative_id}_served`, ...sum }],
            };
          }),
          // This task pages by limit and offset (get-creative-delivery-response.json), with both total names.
          ...(args.pagination !== undefined ? { pagination: { limit: Math.max(1, Math.min(args.pagination.max_results ?? 50, 100)), offset: Math.max(0, offset), has_more: pagination.has_more, total_count: pagination.total_count, total: pagination.total_count } } : {}),
        };
      },
    },
  };
}

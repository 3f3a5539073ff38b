// @ts-check
import { reject } from '../common/errors.js';
import { canMove, CREATIVE_TRANSITIONS } from '../common/lifecycle.js';
import { paginate } from '../common/pagination.js';
import { atLeast } from '../common/releases.js';
import { defectsOf } from './formats.js';
import { policyViolations } from './policies.js';
import { RATE_CARD } from './pricing.js';

/**
 * The creative library, per account (sync_creatives, list_creatives): what an ad server keeps to traffic. A synced
 * creative is first checked against its format's declaration (a format this agent does not take, a missing or
 * mistyped asset, an image of the wrong size, a native title too long, a call to action outside the declared values):
 * a batch with any such defect is refused whole, naming every defect, as a malformed request. Each creative is then
 * reviewed against the serving policies: one that passes is approved for serving at once (the checks are the
 * review), one that does not is a failed row naming each policy it breaks, and nothing of it is kept. Status changes after that — a suspension, a reinstatement, a takedown, a purge — go through the
 * creative state machine (common/lifecycle.js) and are announced to the account's subscribers (notifications.js).
 *
 * @typedef {{ creative_id: string, name: string, status: string, format_kind?: string, format_id?: { agent_url: string, id: string },
 *   format_option_ref?: Record<string, unknown>, assets: Record<string, any>, tags?: string[], created_date: string,
 *   updated_date: string, rejection_reason?: string, media_buy_ids: string[], purge?: { kind: string, at: string, reason_code: string },
 *   activity: string[], pricing_options?: Record<string, any>[] }} Creative `activity`: the outbox event ids of the webhooks fired about it, newest first
 * @typedef {{ creatives: Map<string, Creative>, usage: Record<string, any>[], builds: Map<string, Record<string, any>> }} CreativeSpace
 * @typedef {import('../common/accounts.js').Account<CreativeSpace>} Account
 */

/** The asset types a manifest carries at its top level (nested card media does not count). */
const assetTypes = (/** @type {Record<string, any>} */ assets) => new Set(Object.values(assets).map((a) => a?.asset_type));

/**
 * @param {{ accounts: ReturnType<typeof import('../common/accounts.js').createAccounts<CreativeSpace>>, now: () => Date,
 *   notify(account: Account, creative: Creative, event: Record<string, unknown>): Promise<void>,
 *   activity(creative: Creative, limit: number): Promise<Record<string, unknown>[]>, agentUrl: string, formats: import('./formats.js').Formats }} deps
 */
export function createLibrary({ accounts, now, notify, activity, agentUrl, formats }) {
  const stamp = () => now().toISOString();

  /**
   * The creative with this id in an account's library, or among the sandbox's shared fixtures (what the compliance
   * controller seeds without naming an account, readable from every account).
   */
  const find = (/** @type {Account} */ account, /** @type {string} */ id, /** @type {string} */ field = 'creative_id') => {
    const c = account.space.creatives.get(id) ?? accounts.fixtures.creatives.get(id);
    return c !== undefined && c.purge === undefined ? c : reject('CREATIVE_NOT_FOUND', `No creative ${JSON.stringify(id)} in this account's library`, { field });
  };

  /** The defects of one sync_creatives entry against its format (none: well-formed). */
  const defects = (/** @type {Record<string, any>} */ input, /** @type {number} */ i) => {
    const at = `creatives[${i}]`;
    // A 3.0 buyer names the format by id on this agent: the capability of that id.
    const named = input.format_id?.agent_url === agentUrl ? formats.byId(input.format_id.id) : undefined;
    const kind = input.format_kind ?? named?.format.format_kind;
    if (!formats.stores(kind)) return [{ code: 'FORMAT_NOT_SUPPORTED', message: `this ad server does not serve ${input.format_kind ?? JSON.stringify(input.format_id)}`, field: `${at}.format_kind` }];
    const assets = input.assets ?? {};
    return defectsOf(named ?? formats.declarationFor(kind, assets), assets, `${at}.assets`);
  };

  /** One well-formed sync_creatives entry → its row; one the policies refuse leaves the library as it was. */
  const syncOne = (/** @type {Account} */ account, /** @type {Record<string, any>} */ input, /** @type {number} */ i, /** @type {boolean} */ dryRun) => {
    const assets = input.assets ?? {};
    const errors = policyViolations(assets, `creatives[${i}].assets`);
    if (errors.length > 0) return { creative_id: input.creative_id, action: 'failed', errors };
    const existing = account.space.creatives.get(input.creative_id);
    const action = existing === undefined || existing.purge !== undefined ? 'created' : 'updated';
    if (dryRun) return { creative_id: input.creative_id, action, status: 'approved' };
    const t = stamp();
    /** @type {Creative} */
    const creative = {
      creative_id: input.creative_id,
      name: input.name,
      status: 'approved',
      assets,
      created_date: action === 'created' ? t : /** @type {Creative} */ (existing).created_date,
      updated_date: t,
      media_buy_ids: existing?.media_buy_ids ?? [],
      activity: existing?.activity ?? [],
      ...(input.format_kind !== undefined ? { format_kind: input.format_kind } : {}),
      ...(input.format_id !== undefined ? { format_id: input.format_id } : {}),
      ...(input.format_option_ref !== undefined ? { format_option_ref: input.format_option_ref } : {}),
      ...(input.tags !== undefined ? { tags: input.tags } : {}),
    };
    account.space.creatives.set(creative.creative_id, creative);
    return { creative_id: creative.creative_id, action, status: creative.status, platform_id: `adsrv_${creative.creative_id}` };
  };

  /**
   * The creative as `release` lists it: 3.0 names its format by id on this agent, and has no `suspended` status — a
   * suspended creative is held from serving pending the seller's decision, which 3.0 says as `pending_review`.
   */
  const view = async (/** @type {Creative} */ c, /** @type {string} */ release, /** @type {Record<string, any>} */ args) => {
    const format = atLeast(release, 3, 2)
      ? { ...(c.format_kind !== undefined ? { format_kind: c.format_kind } : { format_id: c.format_id }), ...(c.format_option_ref !== undefined ? { format_option_ref: c.format_option_ref } : {}) }
      : { format_id: c.format_id ?? { agent_url: agentUrl, id: formats.declarationFor(c.format_kind, c.assets)?.capability_id ?? c.format_kind ?? 'unknown' } };
    return {
      creative_id: c.creative_id,
      name: c.name,
      ...format,
      status: c.status === 'suspended' && !atLeast(release, 3, 2) ? 'pending_review' : c.status,
      created_date: c.created_date,
      updated_date: c.updated_date,
      assets: c.assets,
      ...(c.tags !== undefined ? { tags: c.tags } : {}),
      ...(c.purge !== undefined ? { purge: c.purge } : {}),
      ...(args.include_pricing === true && args.account !== undefined ? { pricing_options: c.pricing_options ?? RATE_CARD } : {}),
      ...(args.include_webhook_activity === true ? { webhook_activity: await activity(c, args.webhook_activity_limit ?? 10) } : {}),
    };
  };

  /** The creatives a list_creatives names, by its filters (AND across fields, OR within one). */
  const select = (/** @type {Account} */ account, /** @type {Record<string, any>} */ args) => {
    const f = args.filters ?? {};
    const shared = [...accounts.fixtures.creatives.values()].filter((c) => !account.space.creatives.has(c.creative_id));
    return [...account.space.creatives.values(), ...shared].filter((c) => {
      if (c.purge !== undefined && args.include_purged !== true) return false;
      if (Array.isArray(f.creative_ids) && !f.creative_ids.includes(c.creative_id)) return false;
      if (Array.isArray(f.statuses) && !f.statuses.includes(c.status)) return false;
      if (Array.isArray(f.format_kinds) && !f.format_kinds.includes(c.format_kind)) return false;
      if (Array.isArray(f.format_ids) && !f.format_ids.some((/** @type {{ agent_url: string, id: string }} */ x) => x.id === c.format_id?.id && x.agent_url === c.format_id?.agent_url)) return false;
      if (Array.isArray(f.asset_types) && !f.asset_types.some((/** @type {string} */ t) => assetTypes(c.assets).has(t))) return false;
      if (Array.isArray(f.media_buy_ids) && !f.media_buy_ids.some((/** @type {string} */ m) => c.media_buy_ids.includes(m))) return false;
      if (Array.isArray(f.tags) && !f.tags.every((/** @type {string} */ t) => c.tags?.includes(t))) return false;
      if (Array.isArray(f.tags_any) && !f.tags_any.some((/** @type {string} */ t) => c.tags?.includes(t))) return false;
      if (typeof f.name_contains === 'string' && !c.name.toLowerCase().includes(f.name_contains.toLowerCase())) return false;
      return true;
    });
  };

  /**
   * Moves a creative along the state machine and tells the account's subscribers; INVALID_STATE when the machine
   * has no such transition. Staying put changes nothing and announces nothing.
   */
  const transition = async (/** @type {Account | undefined} */ account, /** @type {Creative} */ c, /** @type {string} */ to, /** @type {{ reason_code?: string, reason_detail?: string, initiator?: string }} */ why = {}) => {
    const from = c.status;
    if (!canMove(CREATIVE_TRANSITIONS, from, to)) reject('INVALID_STATE', `A ${from} creative cannot become ${to}`, { field: 'creative_id', details: { current_status: from } });
    if (from === to) return from;
    c.status = to;
    c.updated_date = stamp();
    if (to === 'rejected' && why.reason_detail !== undefined) c.rejection_reason = why.reason_detail;
    if (account !== undefined) await notify(account, c, {
      notification_type: 'creative.status_changed',
      transition: { from, to, observed_at: c.updated_date },
      reason_code: why.reason_code ?? 'seller_review',
      ...(why.reason_detail !== undefined ? { reason_detail: why.reason_detail } : {}),
      initiator: why.initiator ?? 'seller',
    });
    return from;
  };

  /** Destroys a creative's content: a soft purge keeps a tombstone list_creatives shows with include_purged. */
  const purge = async (/** @type {Account | undefined} */ account, /** @type {Creative} */ c, /** @type {'soft' | 'hard'} */ kind, /** @type {string} */ reasonCode, /** @type {string | undefined} */ detail) => {
    const at = stamp();
    c.assets = {};
    c.purge = { kind, at, reason_code: reasonCode };
    c.updated_date = at;
    if (account !== undefined) await notify(account, c, { notification_type: 'creative.purged', purge_kind: kind, purged_at: at, reason_code: reasonCode, ...(detail !== undefined ? { reason_detail: detail } : {}), initiator: 'seller' });
    if (kind === 'hard') (account?.space ?? accounts.fixtures).creatives.delete(c.creative_id);
  };

  return {
    find,
    transition,
    purge,
    /** Every account's copy of a creative id (the controller addresses creatives by id across its sandbox accounts). */
    locate: (/** @type {string} */ id) => [
      ...accounts.all().flatMap((a) => (a.space.creatives.has(id) ? [{ account: a, creative: /** @type {Creative} */ (a.space.creatives.get(id)) }] : [])),
      ...(accounts.fixtures.creatives.has(id) ? [{ account: undefined, creative: /** @type {Creative} */ (accounts.fixtures.creatives.get(id)) }] : []),
    ],
    /** @param {string} release */
    handlers: (release) => ({
      sync_creatives: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const account = /** @type {Account} */ (accounts.resolve(args.account, ctx.principal));
        const found = (args.creatives ?? []).flatMap((/** @type {Record<string, any>} */ c, /** @type {number} */ i) => defects(c, i));
        const first = found[0];
        if (first !== undefined) reject(first.code, found.length > 1 ? `${first.message} (and ${found.length - 1} more defects: details.defects)` : first.message, { field: first.field, details: { defects: found } });
        const rows = (args.creatives ?? []).map((/** @type {Record<string, any>} */ c, /** @type {number} */ i) => syncOne(account, c, i, args.dry_run === true));
        return { creatives: rows, ...(args.dry_run === true ? { dry_run: true } : {}) };
      },
      list_creatives: async (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const account = /** @type {Account} */ (accounts.resolve(args.account, ctx.principal));
        const matching = select(account, args);
        const { page, pagination } = paginate(matching, args.pagination);
        const filters = Object.keys(args.filters ?? {}).map((k) => `filters.${k}`);
        return {
          query_summary: { total_matching: matching.length, returned: page.length, ...(filters.length > 0 ? { filters_applied: filters } : {}) },
          pagination,
          creatives: await Promise.all(page.map((c) => view(c, release, args))),
        };
      },
    }),
  };
}

// @ts-check
import { CREATIVE_AGENT_URL } from './catalog.js';
import { reject } from '../common/errors.js';
import { paginate } from '../common/pagination.js';
import { atLeast } from '../common/releases.js';

/**
 * The creative library, per account (sync_creatives, list_creatives) and the formats this seller accepts
 * (list_creative_formats). Ingestion is instant here, so a synced creative waits in `pending_review`; the compliance
 * controller (or a real review pipeline) moves it on through the creative state machine (lifecycle.js). A 3.2 buyer names a creative's format by
 * canonical `format_kind`, a 3.0 buyer by named `format_id`; each release lists it its own way.
 *
 * @typedef {{ creative_id: string, name: string, status: string, format_id?: { agent_url: string, id: string },
 *   format_kind?: string, format_option_ref?: Record<string, unknown>, assets: Record<string, unknown>,
 *   tags?: string[], created_date: string, updated_date: string, rejection_reason?: string }} Creative
 * @typedef {import('./accounts.js').Account} Account
 */

/** @param {{ accounts: ReturnType<typeof import('./accounts.js').createAccounts>, catalog: import('./catalog.js').Catalog, now: () => Date }} deps */
export function createCreatives({ accounts, catalog, now }) {
  const stamp = () => now().toISOString();

  /** The creative as `release` describes it. */
  const view = (/** @type {Creative} */ c, /** @type {string} */ release) => {
    const format = atLeast(release, 3, 2)
      ? { ...(c.format_kind !== undefined ? { format_kind: c.format_kind } : { format_id: c.format_id }), ...(c.format_option_ref !== undefined ? { format_option_ref: c.format_option_ref } : {}) }
      : { format_id: c.format_id ?? { agent_url: CREATIVE_AGENT_URL, id: c.format_kind ?? 'unknown' } };
    return {
      creative_id: c.creative_id,
      name: c.name,
      ...format,
      status: c.status,
      created_date: c.created_date,
      updated_date: c.updated_date,
      assets: c.assets,
      ...(c.tags !== undefined ? { tags: c.tags } : {}),
    };
  };

  /** One sync_creatives entry into the account's library → its result row. */
  const syncOne = (/** @type {Account} */ account, /** @type {Record<string, any>} */ input, /** @type {boolean} */ dryRun) => {
    const existing = account.space.creatives.get(input.creative_id);
    const t = stamp();
    if (dryRun) return { creative_id: input.creative_id, action: existing === undefined ? 'created' : 'updated', status: existing?.status ?? 'pending_review' };
    if (existing === undefined) {
      account.space.creatives.set(input.creative_id, {
        creative_id: input.creative_id,
        name: input.name,
        status: 'pending_review',
        ...(input.format_id !== undefined ? { format_id: input.format_id } : {}),
        ...(input.format_kind !== undefined ? { format_kind: input.format_kind } : {}),
        ...(input.format_option_ref !== undefined ? { format_option_ref: input.format_option_ref } : {}),
        assets: input.assets ?? {},
        ...(input.tags !== undefined ? { tags: input.tags } : {}),
        created_date: t,
        updated_date: t,
      });
      return { creative_id: input.creative_id, action: 'created', status: 'pending_review' };
    }
    // Syncing again revives an archived creative and resubmits a rejected one (creative lifecycle).
    const status = existing.status === 'archived' ? 'approved' : existing.status === 'rejected' ? 'pending_review' : existing.status;
    Object.assign(existing, { name: input.name ?? existing.name, assets: input.assets ?? existing.assets, status, updated_date: t });
    if (input.format_id !== undefined) existing.format_id = input.format_id;
    if (input.format_kind !== undefined) existing.format_kind = input.format_kind;
    return { creative_id: input.creative_id, action: 'updated', status };
  };

  /** Formats as list_creative_formats shows them: one per format option the catalog's products accept. */
  const formats = () => {
    /** @type {Map<string, import('./catalog.js').FormatOption>} */
    const byId = new Map();
    for (const p of catalog.all()) for (const o of p.format_options) if (!byId.has(o.format_option_id)) byId.set(o.format_option_id, o);
    return [...byId.values()].map((o) => ({
      format_id: { agent_url: CREATIVE_AGENT_URL, id: o.format_option_id },
      name: o.format_option_id.replace(/_/g, ' '),
      kind: o.format_kind,
      params: o.params,
    }));
  };

  return {
    view,
    /** A creative of the account (or a sandbox fixture), or CREATIVE_NOT_FOUND at `field`. */
    find(/** @type {Account} */ account, /** @type {string} */ id, /** @type {string} */ field) {
      return account.space.creatives.get(id) ?? accounts.fixtures.creatives.get(id) ?? reject('CREATIVE_NOT_FOUND', `No creative ${JSON.stringify(id)} in this account's library`, { field });
    },
    /** A creative that may be assigned to a package: found, and not rejected (CREATIVE_REJECTED). */
    assignable(/** @type {Account} */ account, /** @type {string} */ id, /** @type {string} */ field) {
      const c = this.find(account, id, field);
      if (c.status === 'rejected') reject('CREATIVE_REJECTED', `Creative ${JSON.stringify(id)} was rejected and cannot be assigned`, { field });
      return c;
    },
    /** @param {string} release */
    handlers: (release) => ({
      sync_creatives: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string } | undefined} */ ctx) => {
        const account = accounts.resolve(args.account, ctx?.principal);
        const rows = (args.creatives ?? []).map((/** @type {Record<string, any>} */ c) => syncOne(account, c, args.dry_run === true));
        return { creatives: rows, ...(args.dry_run === true ? { dry_run: true } : {}) };
      },
      list_creatives: (/** @type {Record<string, any>} */ args) => {
        const account = accounts.resolve(args.account);
        const filters = args.filters ?? {};
        let list = [...account.space.creatives.values(), ...[...accounts.fixtures.creatives.values()].filter((c) => !account.space.creatives.has(c.creative_id))];
        if (Array.isArray(filters.creative_ids)) list = list.filter((c) => filters.creative_ids.includes(c.creative_id));
        if (Array.isArray(filters.statuses)) list = list.filter((c) => filters.statuses.includes(c.status));
        const { page, pagination } = paginate(list, args.pagination);
        return {
          query_summary: { total_matching: list.length, returned: page.length },
          pagination,
          creatives: page.map((c) => view(c, release)),
        };
      },
      list_creative_formats: (/** @type {Record<string, any>} */ args) => {
        const all = formats().filter((f) => args.type === undefined || (args.type === 'display' ? ['image', 'html5', 'display_tag'].includes(f.kind) : args.type === 'video' ? f.kind.startsWith('video') : f.kind.startsWith(args.type)));
        const { page, pagination } = paginate(all, args.pagination);
        return { formats: page.map(({ format_id, name }) => ({ format_id, name })), pagination };
      },
    }),
  };
}

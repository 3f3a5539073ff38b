// @ts-check
import { randomBytes, randomUUID } from 'node:crypto';
import { reject } from '../common/errors.js';
import { paginate } from '../common/pagination.js';

/**
 * Property lists and collection lists (governance/property, governance/collection): a buyer's lists of properties or
 * collections, each owned by the principal that made it, resolved to the identifiers its sources name. A list with a
 * `webhook_url` is told when its resolution changes — `property_list_changed` / `collection_list_changed`, through the
 * agent's durable outbox, signed with the RFC 9421 webhook profile, one random idempotency_key per change.
 * validate_property_delivery checks delivery records against a property list.
 *
 * @typedef {{ kind: 'property' | 'collection', owner: string, list: Record<string, any> }} Stored
 */

/** The fields a list keeps of a create or update request (the rest — envelope, idempotency key, context — is the call's). */
const LIST_FIELDS = ['name', 'description', 'account', 'base_properties', 'base_collections', 'filters', 'brand', 'webhook_url'];

/** @param {Record<string, any>} args */
const listFields = (args) => Object.fromEntries(Object.entries(args).filter(([k]) => LIST_FIELDS.includes(k)));

/** What differs between the two kinds of list. */
const KINDS = {
  property: { sources: 'base_properties', count: 'property_count', resolved: 'identifiers', event: 'property_list_changed' },
  collection: { sources: 'base_collections', count: 'collection_count', resolved: 'collections', event: 'collection_list_changed' },
};

/**
 * @param {{ webhooks: import('../../generated/index.js').AgentWebhooks, now: () => Date }} deps
 */
export function createLists({ webhooks, now }) {
  /** @type {Map<string, Stored>} */
  const lists = new Map();

  /** @param {'property' | 'collection'} kind @param {Record<string, any>} list */
  const resolve = (kind, list) => {
    const sources = /** @type {Record<string, any>[]} */ (list[KINDS[kind].sources] ?? []);
    /** @type {(s: Record<string, any>) => Record<string, unknown>[]} */
    const collections = (s) =>
      Array.isArray(s.collection_ids)
        ? s.collection_ids.map((/** @type {string} */ id) => ({ name: id }))
        : Array.isArray(s.identifiers)
          ? s.identifiers.map((/** @type {{ value?: string }} */ i) => ({ name: String(i.value ?? ''), distribution_ids: [i] }))
          : [];
    if (kind === 'collection') return sources.flatMap(collections);
    return sources.flatMap((s) => (Array.isArray(s.identifiers) ? s.identifiers : typeof s.publisher_domain === 'string' ? [{ type: 'domain', value: s.publisher_domain }] : []));
  };

  /** @param {'property' | 'collection'} kind @param {string} id @param {string} principal */
  const get = (kind, id, principal) => {
    const stored = lists.get(id);
    if (stored === undefined || stored.kind !== kind || stored.owner !== principal) return reject('REFERENCE_NOT_FOUND', `no ${kind} list ${id}`, { field: 'list_id' });
    return stored;
  };

  /** @param {'property' | 'collection'} kind @param {Stored} stored @param {number} before */
  const notify = async (kind, stored, before) => {
    const url = stored.list.webhook_url;
    if (typeof url !== 'string') return;
    const total = resolve(kind, stored.list).length;
    const at = now();
    const payload = {
      event: KINDS[kind].event,
      list_id: stored.list.list_id,
      list_name: stored.list.name,
      change_summary: { [`${kind === 'property' ? 'properties' : 'collections'}_added`]: Math.max(0, total - before), [`${kind === 'property' ? 'properties' : 'collections'}_removed`]: Math.max(0, before - total), [`total_${kind === 'property' ? 'properties' : 'collections'}`]: total },
      resolved_at: at.toISOString(),
      cache_valid_until: new Date(at.getTime() + 24 * 3_600_000).toISOString(),
      // AdCP 3.x keeps the body-level marker of the RFC 9421 signature the delivery carries in its headers.
      signature: 'rfc9421',
    };
    // One delivery per change (the outbox mints the idempotency_key, stable across its retries); no timestamp field:
    // the change payload schema has none.
    await webhooks.enqueue({ url, payload, dedupeKey: `${KINDS[kind].event}:${stored.list.list_id}:${randomUUID()}`, timestampField: null });
  };

  /** @param {'property' | 'collection'} kind */
  const handlers = (kind) => ({
    /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
    create: (args, ctx) => {
      const at = now().toISOString();
      /** @type {Record<string, any>} */
      const list = { ...listFields(args), list_id: `${kind === 'property' ? 'pl' : 'cl'}_${randomUUID()}`, created_at: at, updated_at: at, cache_duration_hours: 24 };
      list[KINDS[kind].count] = resolve(kind, list).length;
      lists.set(list.list_id, { kind, owner: ctx.principal ?? '', list });
      return { list, auth_token: `lt_${randomBytes(24).toString('base64url')}` };
    },
    /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
    update: async (args, ctx) => {
      const stored = get(kind, args.list_id, ctx.principal ?? '');
      const before = resolve(kind, stored.list).length;
      if (typeof args.webhook_url === 'string') {
        const refused = await webhooks.checkPushUrl(args.webhook_url, 'webhook_url');
        if (refused !== undefined) return { adcp_error: refused.toBody() };
      }
      Object.assign(stored.list, listFields(args), { updated_at: now().toISOString() });
      stored.list[KINDS[kind].count] = resolve(kind, stored.list).length;
      await notify(kind, stored, before);
      return { list: stored.list };
    },
    /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
    get: (args, ctx) => {
      const { list } = get(kind, args.list_id, ctx.principal ?? '');
      const { page, pagination } = paginate(resolve(kind, list), args.pagination, 1000);
      const at = now();
      return { list, [KINDS[kind].resolved]: page, pagination, resolved_at: at.toISOString(), cache_valid_until: new Date(at.getTime() + 24 * 3_600_000).toISOString() };
    },
    /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
    list: (args, ctx) => {
      const mine = [...lists.values()].filter((s) => s.kind === kind && s.owner === (ctx.principal ?? '') && (typeof args.name_contains !== 'string' || String(s.list.name).includes(args.name_contains)));
      // total_count is optional and left out: lists come and go between pages, and a count that drifts under a cursor
      // misleads more than it tells.
      const { page, pagination: { total_count: _count, ...pagination } } = paginate(mine, args.pagination);
      return { lists: page.map((s) => s.list), pagination };
    },
    /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
    delete: (args, ctx) => {
      get(kind, args.list_id, ctx.principal ?? '');
      lists.delete(args.list_id);
      return { deleted: true, list_id: args.list_id };
    },
  });

  /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
  const validateDelivery = (args, ctx) => {
    const { list } = get('property', args.list_id, ctx.principal ?? '');
    const allowed = new Set(resolve('property', list).map((i) => `${i.type}:${i.value}`));
    const counts = { compliant: [0, 0], non_compliant: [0, 0] };
    const results = /** @type {Record<string, any>[]} */ (args.records).map((r) => {
      const status = allowed.has(`${r.identifier.type}:${r.identifier.value}`) ? 'compliant' : 'non_compliant';
      counts[status][0] += 1;
      counts[status][1] += r.impressions;
      return { identifier: r.identifier, status, impressions: r.impressions, ...(r.record_id !== undefined ? { record_id: r.record_id } : {}), features: [{ feature_id: 'record:list_membership', status: status === 'compliant' ? 'passed' : 'failed' }] };
    });
    const total = results.reduce((n, r) => n + r.impressions, 0);
    return {
      list_id: list.list_id,
      compliant: counts.non_compliant[0] === 0,
      summary: {
        total_records: results.length,
        total_impressions: total,
        compliant_records: counts.compliant[0],
        compliant_impressions: counts.compliant[1],
        non_compliant_records: counts.non_compliant[0],
        non_compliant_impressions: counts.non_compliant[1],
        not_covered_records: 0,
        not_covered_impressions: 0,
        unidentified_records: 0,
        unidentified_impressions: 0,
      },
      results: args.include_compliant === true ? results : results.filter((r) => r.status !== 'compliant'),
      validated_at: now().toISOString(),
    };
  };

  const property = handlers('property');
  const collection = handlers('collection');
  return {
    handlers: {
      create_property_list: property.create,
      update_property_list: property.update,
      get_property_list: property.get,
      list_property_lists: property.list,
      delete_property_list: property.delete,
      validate_property_delivery: validateDelivery,
      create_collection_list: collection.create,
      update_collection_list: collection.update,
      get_collection_list: collection.get,
      list_collection_lists: collection.list,
      delete_collection_list: collection.delete,
    },
  };
}

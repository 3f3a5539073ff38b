// @ts-check
import { randomUUID } from 'node:crypto';
import { reject } from '../common/errors.js';
import { paginate } from '../common/pagination.js';
import { atLeast } from '../common/releases.js';
import { termsOf } from './catalog.js';

/**
 * get_signals, in its two modes (docs/signals/tasks/get_signals):
 *
 * - `brief` (the default): exact lookups first (`signal_refs`, legacy `signal_ids`), then the catalog ranked against
 *   the buyer's `signal_spec` by the terms they share. A brief nothing in the catalog answers is modelled into a
 *   custom segment when the buyer registered for the outcome (`push_notification_config` with its operation_id):
 *   answered `submitted`, the segment built and the task completed `modelMs` later, the buyer told by the task's
 *   signed webhook. Without such a registration the agent answers with the broadest segments it has.
 * - `wholesale`: the whole priced feed, paginated, scoped by filters, destinations and countries, with the feed's
 *   version: a request carrying the current version (`if_wholesale_feed_version`) is answered `unchanged`.
 *
 * Either mode filters by `filters` (catalog types, data providers, a CPM or percent-of-media ceiling, coverage),
 * `countries` and `destinations` (a signal is kept if any requested destination carries it; its deployments are the
 * requested destinations only). Deployments show the calling account's live activations with their keys.
 */

/** The optional listing fields a discovery answers with unless the buyer asks for others (`fields`). */
const DEFAULT_FIELDS = ['value_type', 'categories', 'range', 'data_provider', 'coverage_percentage', 'pricing_options', 'countries'];

/**
 * @param {{ accounts: ReturnType<typeof import('../common/accounts.js').createAccounts<import('./activation.js').SignalsSpace>>,
 *   catalog: import('./catalog.js').Catalog, platforms: import('./platforms.js').Platforms,
 *   activation: ReturnType<typeof import('./activation.js').createActivation>,
 *   directives: Map<string, import('./controller.js').Directive>, modelMs?: number }} deps
 */
export function createDiscovery({ accounts, catalog, platforms, activation, directives, modelMs = 1000 }) {
  /** A signal as the listing shows it to `account`, projected to the requested fields. */
  const listing = (/** @type {import('./catalog.js').Signal} */ s, /** @type {import('./activation.js').Account | undefined} */ account, /** @type {Record<string, any>} */ args) => {
    const segment = catalog.segmentId(s);
    /** @type {import('./platforms.js').Destination[]} */
    // The requested destinations that carry it; else where the account activated it, then the DSPs it is offered on.
    const activated = activation.activatedOn(account, segment);
    const offered = platforms.destinationsOf(s.platforms).filter((d) => !activated.some((a) => a.type === 'platform' && d.type === 'platform' && a.platform === d.platform));
    const where = args.destinations?.filter((/** @type {import('./platforms.js').Destination} */ d) => platforms.carries(d, s.platforms)) ?? [...activated, ...offered];
    /** @type {Record<string, unknown>} */
    const optional = {
      value_type: s.value_type,
      ...(s.categories !== undefined ? { categories: s.categories } : {}),
      ...(s.range !== undefined ? { range: s.range } : {}),
      data_provider: s.provider?.name ?? 'Harbor Retail (first-party)',
      coverage_percentage: s.coverage_percentage,
      ...(s.pricing_options.length > 0 ? { pricing_options: s.pricing_options } : {}),
      countries: s.countries,
    };
    const wanted = new Set(Array.isArray(args.fields) ? args.fields : DEFAULT_FIELDS);
    return {
      ...catalog.identity(s),
      signal_agent_segment_id: segment,
      name: s.name,
      description: s.description,
      signal_type: s.signal_type,
      ...Object.fromEntries(Object.entries(optional).filter(([k]) => wanted.has(k))),
      deployments: where.map((/** @type {import('./platforms.js').Destination} */ d) => activation.deploymentView(account, d, segment)),
    };
  };

  /** Whether a signal passes the request's filters, countries and destinations. */
  const admits = (/** @type {import('./catalog.js').Signal} */ s, /** @type {Record<string, any>} */ args) => {
    const f = args.filters ?? {};
    if (Array.isArray(f.catalog_types) && !f.catalog_types.includes(s.signal_type)) return false;
    if (Array.isArray(f.data_providers) && !f.data_providers.some((/** @type {string} */ p) => p === s.provider?.domain || p === s.provider?.name)) return false;
    const cpms = s.pricing_options.flatMap((o) => (o.model === 'cpm' ? [o.cpm] : []));
    if (typeof f.max_cpm === 'number' && cpms.length > 0 && cpms.every((c) => c > f.max_cpm)) return false;
    const percents = s.pricing_options.flatMap((o) => (o.model === 'percent_of_media' ? [o.percent] : []));
    if (typeof f.max_percent === 'number' && percents.length > 0 && percents.every((p) => p > f.max_percent)) return false;
    if (typeof f.min_coverage_percentage === 'number' && s.coverage_percentage < f.min_coverage_percentage) return false;
    if (Array.isArray(args.countries) && !args.countries.some((/** @type {string} */ c) => s.countries.includes(c))) return false;
    if (Array.isArray(args.destinations) && !args.destinations.some((/** @type {import('./platforms.js').Destination} */ d) => platforms.carries(d, s.platforms))) return false;
    return true;
  };

  /** The signals a brief names exactly (signal_refs, or legacy signal_ids), in the order named. */
  const named = (/** @type {Record<string, any>} */ args) => {
    const refs = [...(args.signal_refs ?? []), ...(args.signal_ids ?? [])];
    return refs.flatMap((/** @type {Record<string, string>} */ r) => {
      const id = r.signal_id ?? r.id;
      const domain = r.data_provider_domain;
      return catalog.all().filter((s) => s.id === id && (domain === undefined || s.provider?.domain === domain));
    });
  };

  /** The catalog ranked against a brief: signals sharing its terms, most shared first (none shared: none). */
  const ranked = (/** @type {string} */ spec) => {
    const wanted = new Set(termsOf(spec));
    if (wanted.size === 0) return catalog.all();
    const scored = catalog.all().map((s, i) => ({ s, i, score: termsOf(`${s.terms.join(' ')} ${s.name}`).filter((t, j, all) => wanted.has(t) && all.indexOf(t) === j).length }));
    return scored.filter((x) => x.score > 0).sort((a, b) => b.score - a.score || a.i - b.i).map((x) => x.s);
  };

  /** A custom segment modelled for a brief the catalog does not answer (the modelling itself is this sandbox's). */
  const model = (/** @type {string} */ spec) => {
    /** @type {import('./catalog.js').Signal} */
    const signal = {
      id: `custom_${randomUUID().slice(0, 8)}`,
      name: `Custom: ${spec.slice(0, 60)}`,
      description: `A segment modelled for the brief "${spec.slice(0, 200)}" from first-party purchase data.`,
      signal_type: 'custom',
      value_type: 'binary',
      terms: termsOf(spec),
      countries: ['US', 'CA'],
      coverage_percentage: 3,
      pricing_options: [{ pricing_option_id: 'po_custom_cpm', model: 'cpm', cpm: 4, currency: 'USD' }],
      platforms: ['the-trade-desk', 'pinnacle-dsp'],
    };
    catalog.add(signal);
    return signal;
  };

  const get = async (/** @type {Record<string, any>} */ args, /** @type {any} */ ctx) => {
    const account = /** @type {import('./activation.js').Account | undefined} */ (args.account !== undefined ? accounts.resolve(args.account, ctx.principal) : undefined);
    const wholesale = args.discovery_mode === 'wholesale';
    const page = { ...(args.max_results !== undefined ? { max_results: args.max_results } : {}), ...(args.pagination ?? {}) };
    if (args.if_pricing_version !== undefined && args.if_wholesale_feed_version === undefined) {
      reject('INVALID_REQUEST', 'if_pricing_version is only meaningful with if_wholesale_feed_version', { field: 'if_pricing_version' });
    }
    // No negotiated rate cards here: every account sees the public layer.
    const scope = 'public';
    const version = catalog.feedVersion(scope);
    if (wholesale) {
      for (const f of ['signal_spec', 'signal_refs', 'signal_ids']) if (args[f] !== undefined) reject('INVALID_REQUEST', `${f} is not allowed in a wholesale feed read`, { field: f });
      if (args.if_wholesale_feed_version === version) return { unchanged: true, wholesale_feed_version: version, cache_scope: scope };
      const { page: rows, pagination } = paginate(catalog.all().filter((s) => admits(s, args)), page);
      return { signals: rows.map((s) => listing(s, account, args)), pagination, wholesale_feed_version: version, cache_scope: scope };
    }
    if (args.signal_spec === undefined && args.signal_refs === undefined && args.signal_ids === undefined) {
      reject('INVALID_REQUEST', 'A brief needs signal_spec, signal_refs or signal_ids (or ask for the wholesale feed)', { field: 'signal_spec' });
    }
    // A response arm the compliance controller registered for this account's next brief (force_get_signals_arm), for
    // a release where get_signals can answer submitted (3.1 on; 3.0's response has no async arm).
    const armKey = `get_signals\0${account?.account_id ?? ''}`;
    const directive = atLeast(ctx.release, 3, 1) ? directives.get(armKey) : undefined;
    if (directive !== undefined) {
      directives.delete(armKey);
      return (await ctx.task({ taskId: directive.task_id })).submitted(directive.message);
    }
    const exact = named(args);
    const found = args.signal_spec !== undefined ? ranked(args.signal_spec) : [];
    if (exact.length === 0 && found.length === 0 && args.signal_spec !== undefined && typeof args.push_notification_config?.operation_id === 'string') {
      const task = await ctx.task();
      const timer = setTimeout(() => {
        const built = model(args.signal_spec);
        task.complete({ signals: [listing(built, account, args)], cache_scope: scope, wholesale_feed_version: catalog.feedVersion(scope) }).catch((/** @type {Error} */ e) => process.emitWarning(`signals agent: a modelling task could not complete: ${e.message}`));
      }, modelMs);
      timer.unref();
      return task.submitted('No catalog segment matches this brief; a custom segment is being modelled');
    }
    // Nothing matched and nobody waits for a model: the broadest segments this agent has.
    const broad = exact.length === 0 && found.length === 0 && args.signal_spec !== undefined ? catalog.all().sort((a, b) => b.coverage_percentage - a.coverage_percentage) : [];
    const list = [...new Set([...exact, ...found, ...broad])].filter((s) => admits(s, args));
    const { page: rows, pagination } = paginate(list, page);
    return { signals: rows.map((s) => listing(s, account, args)), pagination, wholesale_feed_version: version, cache_scope: scope };
  };

  return { handlers: { get_signals: get } };
}

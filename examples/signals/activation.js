// @ts-check
import { reject } from '../common/errors.js';
import { destinationKey } from './platforms.js';

/**
 * activate_signal: puts a segment to work on the buyer's destinations (a DSP seat, a sales agent), or takes it off
 * them again (`action: "deactivate"`, which data-protection requests need). An activation belongs to the account it
 * was made for: discovery shows that account its live deployments and their activation keys, and no other account
 * sees them. Activating is a pricing commitment: a signal with pricing options needs the buyer to name the one it
 * accepts, which the deployment records for usage reporting.
 *
 * Every destination is checked before anything is pushed: a request one destination of which this agent cannot serve
 * is answered with the activation errors (one per destination, naming it) and pushes nothing.
 *
 * @typedef {import('./platforms.js').Deployment & { pricing_option_id?: string }} Activation
 * @typedef {{ deployments: Map<string, Activation> }} SignalsSpace
 * @typedef {import('../common/accounts.js').Account<SignalsSpace>} Account
 */

/**
 * @param {{ accounts: ReturnType<typeof import('../common/accounts.js').createAccounts<SignalsSpace>>, catalog: import('./catalog.js').Catalog,
 *   platforms: import('./platforms.js').Platforms, now: () => Date }} deps
 */
export function createActivation({ accounts, catalog, platforms, now }) {
  /** The account's deployment of `segment` on a destination, as AdCP's core/deployment.json shows it. */
  const deploymentView = (/** @type {Account | undefined} */ account, /** @type {import('./platforms.js').Destination} */ d, /** @type {string} */ segment) => {
    const held = account?.space.deployments.get(`${destinationKey(d)}\0${segment}`);
    const live = held !== undefined && held.live_at <= now().getTime();
    const where = d.type === 'platform' ? { type: 'platform', platform: d.platform } : { type: 'agent', agent_url: d.agent_url };
    return {
      ...where,
      ...(d.account !== undefined ? { account: d.account } : {}),
      is_live: live,
      // The key is the account's own: only shown for a live deployment it made.
      ...(live ? { activation_key: held.activation_key, deployed_at: held.deployed_at } : {}),
      ...(!live ? { estimated_activation_duration_minutes: held !== undefined ? Math.ceil((held.live_at - now().getTime()) / 60_000) : platforms.onboardingMinutes(d) } : {}),
    };
  };

  /** The destinations an account has activated a segment on (what discovery shows it beside the offered ones). */
  const activatedOn = (/** @type {Account | undefined} */ account, /** @type {string} */ segment) =>
    [...(account?.space.deployments.values() ?? [])].filter((a) => a.segment === segment).map((a) => a.destination);

  const activate = (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
    const account = /** @type {Account} */ (accounts.resolve(args.account, ctx.principal));
    const segment = args.signal_agent_segment_id;
    const signal = catalog.bySegment(segment) ?? reject('REFERENCE_NOT_FOUND', 'No signal with this signal_agent_segment_id is available to the account; discover one with get_signals', { field: 'signal_agent_segment_id' });
    const deactivating = args.action === 'deactivate';
    if (!deactivating) {
      accounts.requireActive(account);
      if (signal.pricing_options.length > 0 && args.pricing_option_id === undefined) {
        reject('INVALID_REQUEST', 'This signal is priced: name the pricing option you accept (pricing_option_id)', { field: 'pricing_option_id', details: { pricing_option_ids: signal.pricing_options.map((o) => o.pricing_option_id) } });
      }
      if (args.pricing_option_id !== undefined && !signal.pricing_options.some((o) => o.pricing_option_id === args.pricing_option_id)) {
        reject('INVALID_PRICING_OPTION', `The signal has no pricing option ${JSON.stringify(args.pricing_option_id)}`, { field: 'pricing_option_id' });
      }
    }
    /** @type {import('./platforms.js').Destination[]} */
    const destinations = args.destinations;
    const errors = destinations.flatMap((d, i) => {
      const why = platforms.refuses(d) ?? (deactivating || platforms.carries(d, signal.platforms) ? undefined : `${signal.name} is not offered on ${d.type === 'platform' ? d.platform : d.agent_url}`);
      return why === undefined ? [] : [{ code: 'INVALID_REQUEST', message: why, field: `destinations[${i}]`, recovery: 'correctable' }];
    });
    if (errors.length > 0) return { status: 'failed', errors };
    for (const d of destinations) {
      const key = `${destinationKey(d)}\0${segment}`;
      if (deactivating) account.space.deployments.delete(key);
      // Activating again where it is already live keeps the deployment (and its key): a no-op for the buyer.
      else if (!account.space.deployments.has(key)) account.space.deployments.set(key, { ...platforms.push(d, segment), pricing_option_id: args.pricing_option_id });
    }
    return { deployments: destinations.map((d) => deploymentView(account, d, segment)) };
  };

  return { deploymentView, activatedOn, handlers: { activate_signal: activate } };
}

// @ts-check
import { Rejection } from '../common/errors.js';

/**
 * comply_test_controller for the creative agent's sandbox (docs/building/by-layer/L3/comply-test-controller.mdx):
 * seeds library creatives and accounts the storyboards name, forces a creative's status through the same state machine
 * buyers meet (and so fires the same lifecycle webhooks), purges a creative, and stands in for served traffic
 * (`simulate_delivery`). Answers are the controller's own shapes, never AdCP task errors; it exists only where the
 * profile's surface is `sandbox`, and acts on sandbox accounts only.
 *
 * @typedef {import('./library.js').Account} Account
 */

/**
 * @param {{ accounts: ReturnType<typeof import('../common/accounts.js').createAccounts<import('./library.js').CreativeSpace>>,
 *   library: ReturnType<typeof import('./library.js').createLibrary>, delivery: ReturnType<typeof import('./delivery.js').createDelivery>,
 *   formats: import('./formats.js').Formats, agentUrl: string, now: () => Date }} deps
 */
export function createController({ accounts, library, delivery, formats, agentUrl, now }) {
  const fail = (/** @type {string} */ error, /** @type {string} */ detail, /** @type {string | null} */ currentState = null) => ({ status: 'failed', success: false, error, error_detail: detail, current_state: currentState });

  /** The creative a scenario names: in the caller's account, else anywhere in this sandbox. */
  const creativeFor = (/** @type {Account} */ account, /** @type {string} */ id) => {
    const own = account.space.creatives.get(id);
    if (own !== undefined) return { account, creative: own };
    return library.locate(id)[0];
  };

  /** @type {Record<string, (p: Record<string, any>, account: Account, principal: string | undefined) => Record<string, unknown> | Promise<Record<string, unknown>>>} */
  const scenarios = {
    seed_account: (p) => {
      accounts.seed(p.account_id, { sandbox: true, ...(p.fixture ?? {}) });
      return { success: true, message: `account ${p.account_id} seeded` };
    },
    // A fixture that names its account lives there; one that does not is the sandbox's shared test data. The library
    // holds what this ad server serves, seeded or synced: a fixture in another agent's named format is refused.
    seed_creative: (p, _account, principal) => {
      const { account: ref, status, manifest, ...fixture } = p.fixture ?? {};
      const kind = fixture.format_kind ?? manifest?.format_kind ?? (fixture.format_id?.agent_url === agentUrl ? formats.byId(fixture.format_id.id)?.format.format_kind : undefined);
      if (!formats.stores(kind)) return fail('INVALID_PARAMS', `this ad server's library holds the formats it serves; ${JSON.stringify(fixture.format_kind ?? fixture.format_id ?? manifest?.format_id)} is not one of them`);
      const space = ref !== undefined ? /** @type {Account} */ (accounts.resolve(ref, principal)).space : accounts.fixtures;
      const t = now().toISOString();
      const shape = manifest !== undefined ? { assets: manifest.assets ?? {}, ...(manifest.format_option_ref !== undefined ? { format_option_ref: manifest.format_option_ref } : {}) } : {};
      space.creatives.set(p.creative_id, { name: p.creative_id, assets: {}, media_buy_ids: [], activity: [], created_date: t, updated_date: t, ...shape, ...fixture, format_kind: kind, status: status ?? 'approved', creative_id: p.creative_id });
      return { success: true, message: `creative ${p.creative_id} seeded` };
    },
    force_creative_status: async (p, account) => {
      const found = creativeFor(account, p.creative_id);
      if (found === undefined) return fail('NOT_FOUND', `no creative ${p.creative_id}`);
      const from = found.creative.status;
      try {
        await library.transition(found.account, found.creative, p.status, { reason_code: p.reason_code, reason_detail: p.reason_detail ?? p.rejection_reason });
      } catch (e) {
        if (e instanceof Rejection) return fail('INVALID_TRANSITION', `a ${from} creative cannot become ${p.status}`, from);
        throw e;
      }
      return { success: true, previous_state: from, current_state: p.status, message: `creative ${p.creative_id}: ${from} → ${p.status}` };
    },
    force_creative_purge: async (p, account) => {
      const found = creativeFor(account, p.creative_id);
      if (found === undefined || found.creative.purge !== undefined) return fail('NOT_FOUND', `no creative ${p.creative_id}`);
      await library.purge(found.account, found.creative, p.purge_kind === 'hard' ? 'hard' : 'soft', p.reason_code ?? 'retention_expired', p.reason_detail);
      return { success: true, message: `creative ${p.creative_id} purged (${p.purge_kind ?? 'soft'})` };
    },
    simulate_delivery: (p) => {
      if (typeof p.creative_id !== 'string' || library.locate(p.creative_id).length === 0) return fail('NOT_FOUND', 'simulate_delivery needs a known params.creative_id');
      const { creative_id: _c, media_buy_id: _m, ...simulated } = p;
      return { success: true, simulated, cumulative: delivery.record(p.creative_id, p.media_buy_id, { impressions: p.impressions ?? 0, clicks: p.clicks ?? 0 }) };
    },
  };
  /** Each scenario's required string params. */
  const required = /** @type {Record<string, string[]>} */ ({ seed_account: ['account_id'], seed_creative: ['creative_id'], force_creative_status: ['creative_id', 'status'], force_creative_purge: ['creative_id'] });
  const listed = Object.keys(scenarios).sort();

  return {
    handler: async (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string } | undefined} */ ctx) => {
      if (args.scenario === 'list_scenarios') return { success: true, scenarios: listed };
      const run = Object.hasOwn(scenarios, args.scenario) ? scenarios[args.scenario] : undefined;
      if (run === undefined) return fail('UNKNOWN_SCENARIO', `scenario ${String(args.scenario)} is not implemented by this creative agent`);
      let account;
      try {
        account = /** @type {Account} */ (accounts.resolve(args.account, ctx?.principal));
      } catch (e) {
        if (!(e instanceof Rejection)) throw e;
        account = /** @type {Account} */ (accounts.resolve({ sandbox: true }, ctx?.principal));
      }
      if (!account.sandbox && args.account?.sandbox !== true) return fail('FORBIDDEN', 'the controller acts on sandbox accounts only');
      const params = args.params ?? {};
      const missing = (required[args.scenario] ?? []).filter((k) => typeof params[k] !== 'string' || params[k] === '');
      if (missing.length > 0) return fail('INVALID_PARAMS', `${args.scenario} needs params.${missing.join(' and params.')}`);
      return run(params, account, ctx?.principal);
    },
  };
}

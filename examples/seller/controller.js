// @ts-check
import { canMove, ACCOUNT_TRANSITIONS, CREATIVE_TRANSITIONS } from './lifecycle.js';
import { Rejection } from '../common/errors.js';

/**
 * comply_test_controller (docs/building/by-layer/L3/comply-test-controller.mdx): the sandbox-only tool AdCP's
 * compliance runner drives to seed fixtures and force seller-side transitions deterministically. It exists only
 * where the profile's surface is `sandbox` — the production deployment serves the same seller without it.
 *
 * Forced transitions go through the same state machines buyers meet (lifecycle.js): an invalid one is
 * INVALID_TRANSITION, never a silent success. The controller answers with its own response shapes
 * (compliance/comply-test-controller-response.json: `success`, `previous_state`/`current_state`, `simulated`,
 * `forced`, or `error` from the controller's vocabulary), not with AdCP task errors. Entities are addressed by id
 * across this sandbox's accounts; one-shot response arms are scoped to the calling account.
 *
 * @typedef {import('./accounts.js').Account} Account
 */

/** @typedef {{ arm: string, task_id?: string, message?: string, reason?: string, suggestions?: string[] }} Directive */

/** Task statuses a task never leaves (L3/async-operations.mdx). */
const TERMINAL_TASK = new Set(['completed', 'failed', 'canceled', 'rejected']);

/**
 * @param {{ accounts: ReturnType<typeof import('./accounts.js').createAccounts>, catalog: import('./catalog.js').Catalog,
 *   mediaBuys: ReturnType<typeof import('./media-buys.js').createMediaBuys>, delivery: ReturnType<typeof import('./delivery.js').createDelivery>,
 *   directives: Map<string, Directive>, proposals: ReturnType<typeof import('./proposals.js').createProposals>,
 *   tasks: { task(taskId: string): { status(): Promise<string | undefined>, complete(result: Record<string, unknown>): Promise<boolean> } },
 *   served: readonly string[] }} deps
 *   `tasks`: the agent (agent.task), whose store keeps the async tasks the seller's handlers make. `served`: the tools
 *   the profile serves; a compact-lifecycle probe is a scenario only where the tools it prepares for are served.
 */
export function createController({ accounts, catalog, mediaBuys, delivery, directives, proposals, tasks, served }) {
  /** A controller failure (ControllerError arm): the task's own result, whose status says it failed. */
  const fail = (/** @type {string} */ error, /** @type {string} */ detail, /** @type {string | null} */ currentState = null) => ({ status: 'failed', success: false, error, error_detail: detail, current_state: currentState });
  const transitioned = (/** @type {string} */ from, /** @type {string} */ to, /** @type {string} */ message) => ({ success: true, previous_state: from, current_state: to, message });

  /** The creative with this id among the sandbox's fixtures and accounts. */
  const creativeById = (/** @type {string} */ id) => {
    const fixture = accounts.fixtures.creatives.get(id);
    if (fixture !== undefined) return fixture;
    for (const account of accounts.all()) {
      const c = account.space.creatives.get(id);
      if (c !== undefined) return c;
    }
    return undefined;
  };

  /** @type {Record<string, (params: Record<string, any>, account: Account) => Record<string, unknown> | Promise<Record<string, unknown>>>} */
  const scenarios = {
    seed_product: (p) => {
      const refused = catalog.seedProduct(p.product_id, p.fixture ?? {});
      if (refused !== undefined) return fail('INVALID_PARAMS', refused);
      return { success: true, message: `product ${p.product_id} seeded` };
    },
    seed_pricing_option: (p) => {
      const refused = catalog.seedPricingOption(p.product_id, p.pricing_option_id, p.fixture ?? {});
      if (refused !== undefined) return fail('INVALID_PARAMS', refused);
      return { success: true, message: `pricing option ${p.pricing_option_id} seeded on ${p.product_id}` };
    },
    seed_account: (p) => {
      accounts.seed(p.account_id, { sandbox: true, ...(p.fixture ?? {}) });
      return { success: true, message: `account ${p.account_id} seeded` };
    },
    seed_creative: (p) => {
      const space = p.fixture?.account !== undefined ? accounts.resolve(p.fixture.account).space : accounts.fixtures;
      const t = new Date().toISOString();
      const { account: _a, ...fixture } = p.fixture ?? {};
      space.creatives.set(p.creative_id, { name: p.creative_id, status: 'approved', assets: {}, created_date: t, updated_date: t, ...fixture, creative_id: p.creative_id });
      return { success: true, message: `creative ${p.creative_id} seeded` };
    },
    seed_media_buy: (p) => {
      mediaBuys.seed(p.fixture?.account !== undefined ? accounts.resolve(p.fixture.account) : undefined, p.media_buy_id, p.fixture ?? {});
      return { success: true, message: `media buy ${p.media_buy_id} seeded` };
    },
    force_media_buy_status: (p) => {
      const buy = mediaBuys.byId(p.media_buy_id);
      if (buy === undefined) return fail('NOT_FOUND', `no media buy ${p.media_buy_id}`);
      const from = buy.status;
      try {
        mediaBuys.force(buy, p.status, p.rejection_reason);
      } catch (e) {
        if (e instanceof Rejection) return fail('INVALID_TRANSITION', `a ${from} media buy cannot become ${p.status}`, from);
        throw e;
      }
      return transitioned(from, p.status, `media buy ${buy.media_buy_id}: ${from} → ${p.status}`);
    },
    force_creative_status: (p) => {
      const creative = creativeById(p.creative_id);
      if (creative === undefined) return fail('NOT_FOUND', `no creative ${p.creative_id}`);
      const from = creative.status;
      if (!canMove(CREATIVE_TRANSITIONS, from, p.status)) return fail('INVALID_TRANSITION', `a ${from} creative cannot become ${p.status}`, from);
      creative.status = p.status;
      if (p.status === 'rejected' && p.rejection_reason !== undefined) creative.rejection_reason = p.rejection_reason;
      creative.updated_date = new Date().toISOString();
      return transitioned(from, p.status, `creative ${p.creative_id}: ${from} → ${p.status}`);
    },
    force_account_status: (p) => {
      const target = accounts.byId(p.account_id);
      if (target === undefined) return fail('NOT_FOUND', `no account ${p.account_id}`);
      const from = target.status;
      if (!canMove(ACCOUNT_TRANSITIONS, from, p.status)) return fail('INVALID_TRANSITION', `a ${from} account cannot become ${p.status}`, from);
      target.status = p.status;
      return transitioned(from, p.status, `account ${p.account_id}: ${from} → ${p.status}`);
    },
    simulate_delivery: (p) => {
      const buy = mediaBuys.byId(p.media_buy_id);
      if (buy === undefined) return fail('NOT_FOUND', `no media buy ${p.media_buy_id}`);
      const { media_buy_id: _id, ...simulated } = p;
      return { success: true, simulated, cumulative: delivery.record(buy, p), message: `delivery recorded for ${buy.media_buy_id}` };
    },
    simulate_budget_spend: (p) => {
      const buy = p.media_buy_id !== undefined ? mediaBuys.byId(p.media_buy_id) : undefined;
      if (buy === undefined) return fail('NOT_FOUND', 'simulate_budget_spend needs a known params.media_buy_id');
      const budget = buy.packages.reduce((s, x) => s + x.budget, 0);
      if (budget === 0) return fail('INVALID_PARAMS', 'the media buy has no budget to spend');
      const spend = Math.round(budget * p.spend_percentage) / 100;
      buy.budget_spent = spend; // replaces the spend level (budget, not delivery: get_media_buy_delivery is unchanged)
      return { success: true, simulated: { spend_percentage: p.spend_percentage, computed_spend: { amount: spend, currency: buy.currency }, budget: { amount: budget, currency: buy.currency } } };
    },
    force_task_completion: async (p) => {
      // The runtime's task (made by a forced submitted arm, or an IO review): completed with the result given, which
      // its get_task_status and its webhook then carry.
      const task = tasks.task(p.task_id);
      const from = await task.status();
      if (from === undefined) return fail('NOT_FOUND', `no task ${p.task_id}`);
      if (TERMINAL_TASK.has(from) || !(await task.complete(p.result))) return fail('INVALID_TRANSITION', `a ${from} task cannot be completed`, from);
      return transitioned(from, 'completed', `task ${p.task_id}: ${from} → completed`);
    },
    force_get_products_arm: (p, account) => armed('get_products', p, account),
    // The compact lifecycle probes: `prepare` confirms a seeded product can be proposed and bought synchronously (this
    // seller answers both at once: nothing to arrange); `expire_proposal` moves a hold past its expires_at.
    compact_product_lifecycle_probe: (p) => probe(p, ['prepare', 'expire_proposal']),
    compact_direct_buy_lifecycle_probe: (p) => probe(p, ['prepare']),
    force_create_media_buy_arm: (p, account) => armed('create_media_buy', p, account),
  };

  /** A compact-lifecycle probe operation. */
  const probe = (/** @type {Record<string, any>} */ p, /** @type {string[]} */ operations) => {
    if (!operations.includes(p.operation)) return fail('INVALID_PARAMS', `operation must be one of ${operations.join(', ')}`);
    if (p.operation === 'prepare') {
      if (typeof p.product_id !== 'string' || !catalog.all().some((x) => x.product_id === p.product_id)) return fail('NOT_FOUND', `no product ${String(p.product_id)}`);
      return { success: true, simulated: { prepared: true, product_id: p.product_id } };
    }
    const target = typeof p.proposal_id === 'string' ? proposals.expire(p.proposal_id) : undefined;
    if (target === undefined) return fail('NOT_FOUND', `no proposal ${String(p.proposal_id)}`);
    return { success: true, simulated: { expiry_processed: true, proposal_id: p.proposal_id, target_time: target } };
  };

  /** Registers a one-shot response arm for the calling account's next call of `tool`. */
  const armed = (/** @type {string} */ tool, /** @type {Record<string, any>} */ p, /** @type {Account} */ account) => {
    /** @type {Directive} */
    const directive = {
      arm: p.arm,
      ...(p.task_id !== undefined ? { task_id: p.task_id } : {}),
      ...(p.message !== undefined ? { message: p.message } : {}),
      ...(p.reason !== undefined ? { reason: p.reason } : {}),
      ...(p.suggestions !== undefined ? { suggestions: p.suggestions } : {}),
    };
    directives.set(`${tool}\0${account.account_id}`, directive);
    const { message: _m, ...forced } = directive;
    return { success: true, forced, message: `next ${tool} from this account answers ${p.arm}` };
  };

  /** Each scenario's required string params (comply-test-controller-request.json's per-scenario `then` arms). */
  /** @type {Record<string, string[]>} */
  const required = {
    seed_product: ['product_id'],
    seed_pricing_option: ['product_id', 'pricing_option_id'],
    seed_account: ['account_id'],
    seed_creative: ['creative_id'],
    seed_media_buy: ['media_buy_id'],
    force_media_buy_status: ['media_buy_id', 'status'],
    force_creative_status: ['creative_id', 'status'],
    force_account_status: ['account_id', 'status'],
    simulate_delivery: ['media_buy_id'],
    force_get_products_arm: ['arm'],
    force_create_media_buy_arm: ['arm'],
    force_task_completion: ['task_id'],
  };

  // The compact probes need the tools they prepare for (compact_product_lifecycle: request_proposals and buy_products).
  if (!served.includes('request_proposals')) delete scenarios.compact_product_lifecycle_probe;
  if (!served.includes('buy_products')) delete scenarios.compact_direct_buy_lifecycle_probe;
  const listed = Object.keys(scenarios).sort();

  return {
    handler: (/** @type {Record<string, any>} */ args) => {
      if (args.scenario === 'list_scenarios') return { success: true, scenarios: listed };
      const run = Object.prototype.hasOwnProperty.call(scenarios, args.scenario) ? scenarios[args.scenario] : undefined;
      if (run === undefined) return fail('UNKNOWN_SCENARIO', `scenario ${String(args.scenario)} is not implemented by this seller`);
      // Sandbox gate, per request: the account named must be a sandbox account (FORBIDDEN otherwise).
      let account;
      try {
        account = accounts.resolve(args.account);
      } catch (e) {
        if (!(e instanceof Rejection)) throw e;
        account = accounts.resolve({ sandbox: true }); // an account a seed_account call is about to create
      }
      if (!account.sandbox && args.account?.sandbox !== true) return fail('FORBIDDEN', 'the controller acts on sandbox accounts only');
      const params = args.params ?? {};
      const missing = (required[args.scenario] ?? []).filter((k) => typeof params[k] !== 'string' || params[k] === '');
      if (missing.length > 0) return fail('INVALID_PARAMS', `${args.scenario} needs params.${missing.join(' and params.')}`);
      if (args.scenario === 'simulate_budget_spend' && typeof params.spend_percentage !== 'number') return fail('INVALID_PARAMS', 'simulate_budget_spend needs a numeric params.spend_percentage');
      if (args.scenario === 'force_task_completion' && (params.result === null || typeof params.result !== 'object' || Array.isArray(params.result))) {
        return fail('INVALID_PARAMS', 'force_task_completion needs params.result, the task\'s terminal answer');
      }
      return run(params, account);
    },
  };
}

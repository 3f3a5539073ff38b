// @ts-check
import { randomUUID } from 'node:crypto';
import { reject } from '../common/errors.js';
import { availableActions } from './commitments.js';
import { canMove, isTerminalMediaBuy, MEDIA_BUY_TRANSITIONS, VALID_ACTIONS } from './lifecycle.js';
import { paginate } from '../common/pagination.js';
import { atLeast } from '../common/releases.js';
import { checkBudget, checkFlight, checkMeasurementTerms } from './terms.js';

/**
 * Media buys: create_media_buy, update_media_buy, get_media_buys and the delivery they report. A buy belongs to
 * one account; another account asking for it gets the same MEDIA_BUY_NOT_FOUND as for an id that never existed.
 * Every mutation bumps `revision` (optimistic concurrency: a stale `revision` in an update is CONFLICT).
 *
 * @typedef {{ date: string, impressions: number, clicks: number, spend: number }} DeliveryDay
 * @typedef {{ days: DeliveryDay[], viewability?: Record<string, unknown>,
 *   finality?: { is_final: boolean, finalized_at?: string, measurement_window?: string } }} Delivery
 * @typedef {{ package_id: string, product_id?: string, pricing_option_id: string, pricing_model: string, rate: number,
 *   budget: number, currency: string, pacing?: string, targeting_overlay?: unknown, measurement_terms?: unknown,
 *   optimization_goals?: unknown, creative_assignments: { creative_id: string, weight?: number }[],
 *   context?: unknown, paused: boolean, canceled: boolean }} Package
 * @typedef {{ media_buy_id: string, account_id: string, status: string, currency: string, start_time: string,
 *   end_time: string, revision: number, confirmed_at: string, created_at: string, updated_at: string,
 *   context?: unknown, name?: string, packages: Package[], rejection_reason?: string,
 *   cancellation?: { canceled_at: string, canceled_by: string, reason?: string },
 *   history: { revision: number, timestamp: string, action: string }[], delivery: Delivery, budget_spent?: number,
 *   daily_budget_cap?: number, accepted_proposal?: Record<string, any> }} MediaBuy `accepted_proposal`: the commitment a
 *   buy made through AdCP 3.2's compact lifecycle (proposals.js, compact.js) carries, its terms frozen
 * @typedef {import('./accounts.js').Account} Account
 * @typedef {{ taskId: string, submitted(message?: string): Record<string, unknown>, complete(result: Record<string, unknown>): Promise<boolean> }} TaskHandle
 */

/**
 * Whether a create goes through IO review (answered `submitted`, completed later): when the buyer registered for the
 * task's outcome — a push_notification_config naming its operation_id, the handle AdCP 3.2 requires of a task
 * webhook registration. A buyer that registered none (or only for the buy's own reporting) is booked at once.
 */
const wantsReview = (/** @type {Record<string, any>} */ args) => typeof args.push_notification_config?.operation_id === 'string';

/**
 * @param {{ accounts: ReturnType<typeof import('./accounts.js').createAccounts>, catalog: import('./catalog.js').Catalog,
 *   creatives: ReturnType<typeof import('./creatives.js').createCreatives>, directives: Map<string, import('./controller.js').Directive>,
 *   now: () => Date, reviewMs?: number }} deps `reviewMs`: how long the sandbox's IO review takes to sign an order.
 */
export function createMediaBuys({ accounts, catalog, creatives, directives, now, reviewMs = 1000 }) {
  /** Every buy by id, for the compliance controller (which addresses entities by id, across its sandbox accounts). */
  /** @type {Map<string, MediaBuy>} */
  const byId = new Map();

  /** A buy of `account`, or MEDIA_BUY_NOT_FOUND (also for another account's buy: no cross-account oracle). */
  const find = (/** @type {Account} */ account, /** @type {string} */ id) =>
    account.space.mediaBuys.get(id) ?? accounts.fixtures.mediaBuys.get(id) ?? reject('MEDIA_BUY_NOT_FOUND', 'No such media buy in this account', { field: 'media_buy_id' });

  const totalBudget = (/** @type {MediaBuy} */ b) => b.packages.filter((p) => !p.canceled).reduce((sum, p) => sum + p.budget, 0);

  /** The status a buy reaches by itself: creatives in the library on every package → waiting for the flight or running. */
  const settle = (/** @type {Account} */ account, /** @type {MediaBuy} */ b) => {
    if (b.status !== 'pending_creatives' && b.status !== 'pending_start') return;
    const live = b.packages.filter((p) => !p.canceled);
    const inLibrary = (/** @type {{ creative_id: string }} */ a) => (account.space.creatives.get(a.creative_id) ?? accounts.fixtures.creatives.get(a.creative_id)) !== undefined;
    const ready = live.length > 0 && live.every((p) => p.creative_assignments.some(inLibrary));
    b.status = !ready ? 'pending_creatives' : Date.parse(b.start_time) <= now().getTime() ? 'active' : 'pending_start';
  };

  const touch = (/** @type {MediaBuy} */ b, /** @type {string} */ action) => {
    b.revision += 1;
    b.updated_at = now().toISOString();
    b.history.push({ revision: b.revision, timestamp: b.updated_at, action });
  };

  /** A requested package checked against the catalog and the seller's terms, as the buy will hold it. */
  const newPackage = (/** @type {Account} */ account, /** @type {Record<string, any>} */ req, /** @type {string} */ field, /** @type {string} */ buyId) => {
    const product = catalog.product(req.product_id, `${field}.product_id`);
    const option = catalog.pricingOption(product, req.pricing_option_id, `${field}.pricing_option_id`);
    checkBudget(req.budget, option, `${field}.budget`);
    checkMeasurementTerms(req.measurement_terms, `${field}.measurement_terms`);
    // An assignment may name a creative the buyer has yet to sync; one the seller rejected cannot be assigned.
    for (const [j, a] of (req.creative_assignments ?? []).entries()) if (account.space.creatives.has(a.creative_id)) creatives.assignable(account, a.creative_id, `${field}.creative_assignments[${j}].creative_id`);
    const assignments = (req.creative_assignments ?? []).map((/** @type {{ creative_id: string, weight?: number }} */ a) => ({ ...a }));
    /** @type {Package} */
    const pkg = {
      package_id: `${buyId}_pkg_${randomUUID().slice(0, 6)}`,
      product_id: product.product_id,
      pricing_option_id: option.pricing_option_id,
      pricing_model: option.pricing_model,
      rate: option.fixed_price ?? option.floor_price ?? 0,
      budget: req.budget,
      currency: option.currency,
      creative_assignments: assignments,
      paused: req.paused === true,
      canceled: false,
      ...(req.pacing !== undefined ? { pacing: req.pacing } : {}),
      ...(req.targeting_overlay !== undefined ? { targeting_overlay: req.targeting_overlay } : {}),
      ...(req.measurement_terms !== undefined ? { measurement_terms: req.measurement_terms } : {}),
      ...(req.optimization_goals !== undefined ? { optimization_goals: req.optimization_goals } : {}),
      ...(req.context !== undefined ? { context: req.context } : {}),
    };
    return pkg;
  };

  /** The package as every release describes it (core/package.json: open, the fields both releases share). */
  const packageView = (/** @type {Package} */ p) => ({
    package_id: p.package_id,
    ...(p.product_id !== undefined ? { product_id: p.product_id } : {}),
    pricing_option_id: p.pricing_option_id,
    budget: p.budget,
    currency: p.currency,
    paused: p.paused,
    canceled: p.canceled,
    creative_assignments: p.creative_assignments,
    ...(p.pacing !== undefined ? { pacing: p.pacing } : {}),
    ...(p.targeting_overlay !== undefined ? { targeting_overlay: p.targeting_overlay } : {}),
    ...(p.measurement_terms !== undefined ? { measurement_terms: p.measurement_terms } : {}),
    ...(p.optimization_goals !== undefined ? { optimization_goals: p.optimization_goals } : {}),
    ...(p.context !== undefined ? { context: p.context } : {}),
  });

  /**
   * The buy as get_media_buys lists it; valid in 3.0 and 3.2 alike (3.2 requires confirmed_at and revision). 3.2 also
   * shows the commitment a compact-lifecycle buy was made under and its operational caps; `history` the newest
   * `include_history` entries.
   */
  const view = (/** @type {MediaBuy} */ b, /** @type {string} */ release = '3.0', /** @type {number} */ history = 0) => ({
    media_buy_id: b.media_buy_id,
    status: b.status,
    currency: b.currency,
    total_budget: totalBudget(b),
    start_time: b.start_time,
    end_time: b.end_time,
    confirmed_at: b.confirmed_at,
    revision: b.revision,
    created_at: b.created_at,
    updated_at: b.updated_at,
    valid_actions: VALID_ACTIONS[b.status] ?? [],
    ...(b.name !== undefined ? { name: b.name } : {}),
    ...(b.context !== undefined ? { context: b.context } : {}),
    ...(b.rejection_reason !== undefined ? { rejection_reason: b.rejection_reason } : {}),
    ...(b.cancellation !== undefined ? { cancellation: b.cancellation } : {}),
    ...(atLeast(release, 3, 2) && b.daily_budget_cap !== undefined ? { daily_budget_cap: b.daily_budget_cap } : {}),
    ...(atLeast(release, 3, 2) && b.accepted_proposal !== undefined
      ? { accepted_proposal_id: b.accepted_proposal.proposal_id, accepted_proposal_terms_digest: b.accepted_proposal.terms_digest, accepted_proposal: b.accepted_proposal }
      : {}),
    ...(atLeast(release, 3, 2) ? { available_actions: availableActions(b.status) } : {}),
    ...(history > 0 ? { history: b.history.slice(-history).reverse() } : {}),
    packages: b.packages.map(packageView),
  });

  /** The media buy's lifecycle status in a create/update answer: 3.2 says `media_buy_status`, 3.0 `status`. */
  const statusField = (/** @type {string} */ release, /** @type {string} */ status) => (atLeast(release, 3, 2) ? { media_buy_status: status } : { status });

  /** Moves a buy along its state machine, or INVALID_STATE; returns the previous status. Callers record the change. */
  const moveTo = (/** @type {MediaBuy} */ b, /** @type {string} */ to) => {
    const from = b.status;
    if (!canMove(MEDIA_BUY_TRANSITIONS, from, to)) reject('INVALID_STATE', `A ${from} media buy cannot become ${to}`, { field: 'media_buy_id', details: { current_status: from } });
    b.status = to;
    return from;
  };

  /**
   * A new media buy of `account` (not yet stored): its packages checked against the catalog and the seller's terms,
   * one currency, the flight given, waiting for creatives or settled by those already in the library.
   * @param {Account} account
   * @param {Record<string, any>[]} requested the packages as a buyer asks for them
   * @param {{ start: number, end: number }} flight
   * @param {Date} t
   * @param {{ name?: string, context?: unknown, field?: string }} [more] `field`: where the packages are in the request
   */
  const open = (account, requested, flight, t, more = {}) => {
    const media_buy_id = `mb_${randomUUID().slice(0, 12)}`;
    const field = more.field ?? 'packages';
    const packages = requested.map((p, i) => newPackage(account, p, `${field}[${i}]`, media_buy_id));
    if (packages.length === 0) reject('INVALID_REQUEST', 'A media buy needs at least one package', { field });
    const currencies = new Set(packages.map((/** @type {Package} */ p) => p.currency));
    if (currencies.size > 1) reject('INVALID_REQUEST', 'All packages of a media buy must share one currency', { field });
    /** @type {MediaBuy} */
    const buy = {
      media_buy_id,
      account_id: account.account_id,
      status: 'pending_creatives',
      currency: packages[0].currency,
      start_time: new Date(flight.start).toISOString(),
      end_time: new Date(flight.end).toISOString(),
      revision: 1,
      confirmed_at: t.toISOString(),
      created_at: t.toISOString(),
      updated_at: t.toISOString(),
      packages,
      history: [{ revision: 1, timestamp: t.toISOString(), action: 'created' }],
      delivery: { days: [] },
      ...(more.name !== undefined ? { name: more.name } : {}),
      ...(more.context !== undefined ? { context: more.context } : {}),
    };
    settle(account, buy);
    return buy;
  };

  /** Keeps a buy (last, once nothing can reject any more: a rejection leaves nothing behind). */
  const store = (/** @type {Account} */ account, /** @type {MediaBuy} */ buy) => {
    account.space.mediaBuys.set(buy.media_buy_id, buy);
    byId.set(buy.media_buy_id, buy);
  };

  /**
   * @param {Record<string, any>} args
   * @param {string} release
   * @param {{ principal?: string, task(options?: { taskId?: string }): Promise<TaskHandle> }} ctx
   */
  const create = async (args, release, ctx) => {
    const t = now();
    // Dates first: a request with impossible dates is refused whatever else it names.
    const flight = checkFlight(args, t.getTime());
    const account = accounts.resolve(args.account, ctx.principal);
    accounts.requireActive(account);
    // A response arm the compliance controller registered for this account's next create (force_create_media_buy_arm).
    const armKey = `create_media_buy\0${account.account_id}`;
    const directive = directives.get(armKey);
    if (directive !== undefined) {
      directives.delete(armKey);
      // A real task under the forced id: get_task_status and list_tasks find it, force_task_completion ends it.
      if (directive.arm === 'submitted') return (await ctx.task({ taskId: directive.task_id })).submitted(directive.message);
      if (directive.arm === 'input-required') return { status: 'input-required', message: directive.message ?? 'The seller needs more information to book this media buy' };
    }
    const buy = open(account, args.packages ?? [], flight, t, { name: args.name, context: args.context });
    const media_buy_id = buy.media_buy_id;
    const book = () => {
      store(account, buy);
      return {
        media_buy_id,
        ...statusField(release, buy.status),
        confirmed_at: buy.confirmed_at,
        revision: buy.revision,
        ...(atLeast(release, 3, 2) ? { currency: buy.currency, total_budget: totalBudget(buy) } : {}),
        valid_actions: VALID_ACTIONS[buy.status],
        packages: buy.packages.map(packageView),
      };
    };
    // State last: everything above may still reject, and a rejection must leave nothing behind (replay rule 3).
    if (!wantsReview(args)) return book();
    // The buyer registered for the task's outcome: the order goes through IO review. The answer is `submitted`; the
    // buy exists (and gets its media_buy_id) when the review signs it, which the task's webhook tells the buyer.
    // ctx.task() first: a registration the agent cannot honour is refused before anything is booked.
    const task = await ctx.task();
    review(() => task.complete(book()));
    return task.submitted('Insertion order in review; the media buy is booked when it is signed');
  };

  /** The sandbox's IO review: signs every order `reviewMs` after it arrives. */
  const review = (/** @type {() => Promise<boolean>} */ sign) => {
    const timer = setTimeout(() => {
      sign().catch((/** @type {Error} */ e) => process.emitWarning(`reference seller: an IO review could not complete its task: ${e.message}`));
    }, reviewMs);
    timer.unref();
  };

  const update = (/** @type {Record<string, any>} */ args, /** @type {string} */ release) => {
    const account = accounts.resolve(args.account);
    const buy = find(account, args.media_buy_id);
    if (args.revision !== undefined && args.revision !== buy.revision) {
      reject('CONFLICT', `The media buy is at revision ${buy.revision}; re-read it and retry`, { field: 'revision', details: { current_revision: buy.revision } });
    }
    if (isTerminalMediaBuy(buy.status)) {
      if (args.canceled === true) reject('NOT_CANCELLABLE', `The media buy is already ${buy.status}`, { field: 'canceled', details: { current_status: buy.status } });
      reject('INVALID_STATE', `A ${buy.status} media buy cannot be changed`, { field: 'media_buy_id', details: { current_status: buy.status } });
    }
    // Check everything before changing anything: an update applies whole or not at all.
    const t = now().getTime();
    const flight = args.start_time !== undefined || args.end_time !== undefined ? checkFlight({ start_time: args.start_time ?? buy.start_time, end_time: args.end_time ?? buy.end_time }, t) : undefined;
    const changes = (args.packages ?? []).map((/** @type {Record<string, any>} */ u, /** @type {number} */ i) => {
      const pkg = buy.packages.find((p) => p.package_id === u.package_id) ?? reject('PACKAGE_NOT_FOUND', `No package ${JSON.stringify(u.package_id)} in this media buy`, { field: `packages[${i}].package_id` });
      if (pkg.canceled) reject('INVALID_STATE', 'A canceled package cannot be changed', { field: `packages[${i}].package_id` });
      if (u.budget !== undefined && pkg.product_id !== undefined) {
        checkBudget(u.budget, catalog.pricingOption(catalog.product(pkg.product_id, `packages[${i}]`), pkg.pricing_option_id, `packages[${i}]`), `packages[${i}].budget`);
      }
      for (const [j, a] of (u.creative_assignments ?? []).entries()) if (account.space.creatives.has(a.creative_id)) creatives.assignable(account, a.creative_id, `packages[${i}].creative_assignments[${j}].creative_id`);
      return { pkg, u };
    });
    // A new total is spread over the live packages in proportion to their budgets; naming package budgets as well
    // would say two different things about the same money.
    const newTotal = args.total_budget?.amount;
    if (newTotal !== undefined && changes.some((/** @type {{ u: Record<string, any> }} */ c) => c.u.budget !== undefined)) {
      reject('VALIDATION_ERROR', 'total_budget and package budgets cannot change in one update; send one or the other', { field: 'total_budget' });
    }
    if (newTotal !== undefined && args.total_budget.currency !== undefined && args.total_budget.currency !== buy.currency) {
      reject('VALIDATION_ERROR', `total_budget is in ${args.total_budget.currency}; this media buy is in ${buy.currency}`, { field: 'total_budget.currency' });
    }
    const added = (args.new_packages ?? []).map((/** @type {Record<string, any>} */ p, /** @type {number} */ i) => newPackage(account, p, `new_packages[${i}]`, buy.media_buy_id));
    // Pausing acts on a running buy and resuming on a paused one (asking for the state it is in changes nothing);
    // canceling follows the state machine.
    const pause = args.paused === true ? { from: 'active', to: 'paused' } : args.paused === false ? { from: 'paused', to: 'active' } : undefined;
    if (pause !== undefined && args.canceled !== true && buy.status !== pause.from && buy.status !== pause.to) {
      reject('INVALID_STATE', `A ${buy.status} media buy cannot be ${args.paused ? 'paused' : 'resumed'}`, { field: 'paused', details: { current_status: buy.status } });
    }
    const target = args.canceled === true ? 'canceled' : pause !== undefined && buy.status === pause.from ? pause.to : undefined;
    if (target === 'canceled' && !canMove(MEDIA_BUY_TRANSITIONS, buy.status, target)) {
      reject('NOT_CANCELLABLE', `A ${buy.status} media buy cannot be canceled`, { field: 'canceled', details: { current_status: buy.status } });
    }

    for (const { pkg, u } of changes) {
      if (u.budget !== undefined) pkg.budget = u.budget;
      if (u.paused !== undefined) pkg.paused = u.paused;
      if (u.canceled === true) pkg.canceled = true;
      if (u.pacing !== undefined) pkg.pacing = u.pacing;
      if (u.targeting_overlay !== undefined) pkg.targeting_overlay = u.targeting_overlay;
      if (u.creative_assignments !== undefined) pkg.creative_assignments = u.creative_assignments.map((/** @type {object} */ a) => ({ ...a }));
    }
    const redistributed = [];
    if (newTotal !== undefined) {
      const live = buy.packages.filter((p) => !p.canceled);
      const current = live.reduce((sum, p) => sum + p.budget, 0);
      for (const p of live) p.budget = current > 0 ? Math.round((p.budget / current) * newTotal * 100) / 100 : newTotal / live.length;
      redistributed.push(...live);
    }
    buy.packages.push(...added);
    if (flight !== undefined) {
      buy.start_time = new Date(flight.start).toISOString();
      buy.end_time = new Date(flight.end).toISOString();
    }
    if (args.name !== undefined) buy.name = args.name;
    if (target !== undefined) moveTo(buy, target);
    if (target === 'canceled') {
      buy.cancellation = { canceled_at: now().toISOString(), canceled_by: 'buyer', ...(args.cancellation_reason !== undefined ? { reason: args.cancellation_reason } : {}) };
    }
    settle(account, buy);
    touch(buy, target === 'canceled' ? 'canceled' : target === 'paused' ? 'paused' : target === 'active' ? 'resumed' : 'updated');
    const affected = [...new Set([...redistributed, ...changes.map((/** @type {{ pkg: Package }} */ c) => c.pkg), ...added])];
    return {
      media_buy_id: buy.media_buy_id,
      ...statusField(release, buy.status),
      revision: buy.revision,
      ...(atLeast(release, 3, 2) ? { currency: buy.currency, total_budget: totalBudget(buy) } : {}),
      implementation_date: now().toISOString(),
      valid_actions: VALID_ACTIONS[buy.status],
      affected_packages: affected.map(packageView),
    };
  };

  /** The buys a read names, in the account: unknown ids are left out (and never distinguished from others' ids). */
  const select = (/** @type {Account} */ account, /** @type {Record<string, any>} */ args) => {
    let list = [...account.space.mediaBuys.values(), ...[...accounts.fixtures.mediaBuys.values()].filter((b) => !account.space.mediaBuys.has(b.media_buy_id))];
    if (Array.isArray(args.media_buy_ids)) list = list.filter((b) => args.media_buy_ids.includes(b.media_buy_id));
    const statuses = args.status_filter === undefined ? undefined : Array.isArray(args.status_filter) ? args.status_filter : [args.status_filter];
    if (statuses !== undefined) list = list.filter((b) => statuses.includes(b.status));
    return list;
  };

  return {
    open,
    store,
    touch,
    moveTo,
    find,
    packageView,
    statusField,
    byId: (/** @type {string} */ id) => byId.get(id),
    select,
    totalBudget,
    /** A forced transition (comply_test_controller force_media_buy_status): the same state machine as buyers meet. */
    force(/** @type {MediaBuy} */ b, /** @type {string} */ to, /** @type {string | undefined} */ reason) {
      const from = moveTo(b, to);
      if (to === 'rejected' && reason !== undefined) b.rejection_reason = reason;
      if (from !== to) touch(b, `forced_${to}`);
      return from;
    },
    /** seed_media_buy: a buy with a fixed id, in the fixture's account or else among the sandbox's shared fixtures. */
    seed(/** @type {Account | undefined} */ account, /** @type {string} */ id, /** @type {Record<string, any>} */ fixture) {
      const t = now().toISOString();
      /** @type {MediaBuy} */
      const buy = {
        media_buy_id: id,
        account_id: account?.account_id ?? '',
        status: fixture.status ?? 'active',
        currency: fixture.currency ?? 'USD',
        start_time: fixture.start_time ?? t,
        end_time: fixture.end_time ?? '2099-12-31T23:59:59Z',
        revision: fixture.revision ?? 1,
        confirmed_at: fixture.confirmed_at ?? t,
        created_at: t,
        updated_at: t,
        packages: (fixture.packages ?? []).map((/** @type {Record<string, any>} */ p, /** @type {number} */ i) => ({
          package_id: p.package_id ?? `${id}_pkg_${i}`,
          ...(p.product_id !== undefined ? { product_id: p.product_id } : {}),
          pricing_option_id: p.pricing_option_id ?? 'seeded_pricing',
          pricing_model: 'cpm',
          rate: 0,
          budget: p.budget ?? 0,
          currency: p.currency ?? fixture.currency ?? 'USD',
          creative_assignments: p.creative_assignments ?? [],
          paused: p.paused === true,
          canceled: p.canceled === true,
          ...(p.context !== undefined ? { context: p.context } : {}),
        })),
        history: [{ revision: fixture.revision ?? 1, timestamp: t, action: 'created' }],
        delivery: { days: [] },
        ...(fixture.context !== undefined ? { context: fixture.context } : {}),
      };
      (account?.space ?? accounts.fixtures).mediaBuys.set(id, buy);
      byId.set(id, buy);
    },
    /** @param {string} release */
    handlers: (release) => ({
      create_media_buy: (/** @type {Record<string, any>} */ args, /** @type {any} */ ctx) => create(args, release, ctx),
      update_media_buy: (/** @type {Record<string, any>} */ args) => update(args, release),
      get_media_buys: (/** @type {Record<string, any>} */ args) => {
        const { page, pagination } = paginate(select(accounts.resolve(args.account), args), args.pagination);
        return { media_buys: page.map((b) => view(b, release, args.include_history ?? 0)), pagination };
      },
    }),
  };
}

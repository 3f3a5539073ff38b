// @ts-check
import { reject } from '../common/errors.js';

/**
 * Campaign plans (sync_plans): each plan as the buyer supplied it, plus the bookkeeping a governance agent keeps on it
 * — its version, status, when it was synced, its revision history (each revision's plan_hash: the spec makes retaining
 * it a MUST), and what outcomes committed against it. The runtime's planHash strips exactly that bookkeeping, so a
 * token's plan_hash is over the plan as supplied. A plan belongs to the principal that synced it.
 *
 * @typedef {{ plan_id: string, brand?: { domain?: string }, budget: { total: number, currency: string, reallocation_threshold?: number, reallocation_unlimited?: boolean },
 *   flight?: { start?: string, end?: string }, countries?: string[], custom_policies?: { policy_id: string, enforcement?: string, policy?: string }[], [k: string]: unknown }} Plan
 * @typedef {Plan & { version: number, status: 'active', syncedAt: string, revisionHistory: { version: number, plan_hash: string, syncedAt: string }[],
 *   committedBudget: number, committedByType: Record<string, number> }} StoredPlan
 * @typedef {{ plan: StoredPlan, owner: string }} PlanRecord
 */

/**
 * @param {{ planHash(plan: Record<string, unknown>): string, now: () => Date }} deps
 */
export function createPlans({ planHash, now }) {
  /** @type {Map<string, PlanRecord>} */
  const plans = new Map();

  /**
   * @param {string} planId
   * @param {string} principal
   * @returns {PlanRecord}
   */
  const get = (planId, principal) => {
    const record = plans.get(planId);
    // Another principal's plan is not found: its existence is not for this caller to learn.
    if (record === undefined || record.owner !== principal) return reject('PLAN_NOT_FOUND', `no plan ${planId}`, { field: 'plan_id' });
    return record;
  };

  /** @param {{ plans: Plan[] }} args @param {{ principal?: string }} ctx */
  const syncPlans = (args, ctx) => {
    const principal = ctx.principal ?? '';
    const synced = args.plans.map((supplied) => {
      const prior = plans.get(supplied.plan_id);
      if (prior !== undefined && prior.owner !== principal) return { plan_id: supplied.plan_id, status: 'error', version: 0 };
      const version = (prior?.plan.version ?? 0) + 1;
      const syncedAt = now().toISOString();
      const history = [...(prior?.plan.revisionHistory ?? []), { version, plan_hash: planHash(supplied), syncedAt }];
      /** @type {StoredPlan} */
      const plan = { ...supplied, version, status: 'active', syncedAt, revisionHistory: history, committedBudget: prior?.plan.committedBudget ?? 0, committedByType: prior?.plan.committedByType ?? {} };
      plans.set(supplied.plan_id, { plan, owner: principal });
      const categories = ['budget_authority', 'strategic_alignment', ...(supplied.custom_policies?.length ? ['brand_policy'] : [])].map((category_id) => ({ category_id, status: 'active' }));
      return { plan_id: supplied.plan_id, status: 'active', version, categories };
    });
    return { plans: synced };
  };

  return { get, syncPlans, all: () => plans };
}

// @ts-check
import { randomUUID } from 'node:crypto';
import { reject } from '../common/errors.js';

/**
 * report_plan_outcome and get_plan_audit_logs (the governance specification, "Audit logging" and "Evidence authority
 * and reconciliation"). A completed or failed outcome names the exact (check_id, plan_id, governance_context) of an
 * approved decision of one action, reported by the buyer that obtained the intent; each action settles once. The
 * ledger is the agent's own: a completed action commits what its execution check approved, else what its intent
 * authorized — the seller's reported figure is kept for reconciliation, never trusted for headroom.
 *
 * @param {{ plans: ReturnType<typeof import('./plans.js').createPlans>, checks: ReturnType<typeof import('./checks.js').createChecks>, now: () => Date }} deps
 */
export function createOutcomes({ plans, checks, now }) {
  /** @type {{ outcome_id: string, plan_id: string, action: string, at: string, outcome: string, committed: number, seller_reference?: string }[]} */
  const outcomes = [];

  /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
  const report = (args, ctx) => {
    const principal = ctx.principal ?? '';
    const record = plans.get(args.plan_id, principal);
    if (args.outcome !== 'completed' && args.outcome !== 'failed') reject('UNSUPPORTED_FEATURE', `outcome ${args.outcome} is not reported to this agent`, { field: 'outcome' });
    const action = checks.actions.get(args.governance_context);
    if (action === undefined || action.plan_id !== record.plan.plan_id || !action.checkIds.includes(args.check_id)) {
      return reject('VALIDATION_ERROR', 'check_id, plan_id and governance_context do not name one approved decision', { field: 'check_id' });
    }
    if (action.owner !== principal) reject('PERMISSION_DENIED', 'only the buyer that obtained the intent reports its outcome');
    if (args.purchase_type !== undefined && args.purchase_type !== action.purchase_type) reject('VALIDATION_ERROR', `purchase_type is not the intent's (${action.purchase_type})`, { field: 'purchase_type' });
    if (action.settled) reject('CONFLICT', 'this governed action has already settled');
    action.settled = true;
    const committed = args.outcome === 'completed' ? (action.execution?.amount ?? action.authorized.amount) : 0;
    action.committed = committed;
    record.plan.committedBudget += committed;
    record.plan.committedByType[action.purchase_type] = (record.plan.committedByType[action.purchase_type] ?? 0) + committed;
    const outcome_id = `out_${randomUUID()}`;
    outcomes.push({ outcome_id, plan_id: record.plan.plan_id, action: action.sub, at: now().toISOString(), outcome: args.outcome, committed, ...(args.seller_response?.seller_reference !== undefined ? { seller_reference: args.seller_response.seller_reference } : {}) });
    checks.audit.push({
      id: `ae_${randomUUID()}`,
      type: 'outcome',
      timestamp: now().toISOString(),
      plan_id: record.plan.plan_id,
      outcome: args.outcome,
      outcome_id,
      committed_budget: committed,
      ...(typeof args.seller_response?.committed_budget === 'number' ? { reported_committed_budget: args.seller_response.committed_budget } : {}),
      ...(args.seller_response?.seller_reference !== undefined ? { seller_reference: args.seller_response.seller_reference } : {}),
      governance_context: action.intentToken,
      purchase_type: action.purchase_type,
    });
    return { outcome_id, outcome_state: 'accepted', committed_budget: committed, plan_summary: { total_committed: record.plan.committedBudget, budget_remaining: record.plan.budget.total - record.plan.committedBudget } };
  };

  /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
  const auditLogs = (args, ctx) => {
    const principal = ctx.principal ?? '';
    const ids = args.plan_ids ?? reject('INVALID_REQUEST', 'name the plans (plan_ids)', { field: 'plan_ids' });
    return {
      plans: ids.map((/** @type {string} */ id) => {
        const { plan } = plans.get(id, principal);
        const entries = checks.audit.filter((e) => e.plan_id === id);
        const actions = [...checks.actions.values()].filter((a) => a.plan_id === id);
        const verdicts = entries.filter((e) => e.type === 'check').map((e) => String(e.verdict));
        const count = (/** @type {string} */ v) => verdicts.filter((x) => x === v).length;
        return {
          plan_id: id,
          plan_version: plan.version,
          status: plan.status,
          budget: { authorized: plan.budget.total, committed: plan.committedBudget, remaining: plan.budget.total - plan.committedBudget, utilization_pct: plan.budget.total > 0 ? (100 * plan.committedBudget) / plan.budget.total : 0 },
          governed_actions: actions.map((a) => ({ governance_context: a.intentToken, purchase_type: a.purchase_type, status: a.settled ? 'completed' : 'active', committed: a.committed, check_count: a.checkIds.length })),
          summary: { checks_performed: verdicts.length, outcomes_reported: outcomes.filter((o) => o.plan_id === id).length, statuses: { approved: count('approved'), denied: count('denied'), conditions: count('conditions') } },
          ...(args.include_entries === true ? { entries } : {}),
        };
      }),
    };
  };

  return { report, auditLogs };
}

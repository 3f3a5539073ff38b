// @ts-check
import { randomUUID } from 'node:crypto';
import { reject } from '../common/errors.js';
import { decide } from './policy.js';

/**
 * check_governance (the governance specification; security.mdx's JWS profile), both shapes:
 * - an intent check (`tool` + `payload` + `target_agent`, from the buyer): the plan decides (policy.js); `approved`
 *   answers a signed intent token (agent.governance.issue) whose audience is the target service byte for byte, whose
 *   caller is the authenticated buyer, binding the exact task, request and monetary ceiling; `conditions` answers a
 *   counterproposal and a non-authorizing consultation handle; `denied` its findings;
 * - an execution check (`governance_context` + `planned_delivery`, from a service before it commits): only a token this
 *   agent issued, presented by the service it was issued to, whose planned delivery stays within the approved ceiling
 *   and the plan's headroom — `approved` (a purchase/modification token bound to the same action) or `denied`.
 * The caller URL is never taken from the request: the authenticated credential resolves to it (callers.js), and a
 * request claiming another is refused. Every check is an audit entry (get_plan_audit_logs).
 *
 * @typedef {import('./plans.js').PlanRecord} PlanRecord
 * @typedef {{ sub: string, plan_id: string, owner: string, caller: string, audience: string, tool: string, purchase_type: string,
 *   intentCheckId: string, intentToken: string, authorized: { amount: number, currency: string }, execution?: { check_id: string, amount: number },
 *   checkIds: string[], settled: boolean, committed: number }} Action
 * @typedef {{ id: string, type: 'check' | 'outcome', timestamp: string, plan_id: string, [k: string]: unknown }} AuditEntry
 */

/**
 * @param {{ plans: ReturnType<typeof import('./plans.js').createPlans>, callerOf: (ctx: { principal?: string }, claimed: unknown) => string,
 *   governance: import('../../generated/index.js').GovernanceIssuer, planHash: (plan: Record<string, unknown>) => string,
 *   decisionHash: (decisions: unknown) => string, now: () => Date }} deps
 */
export function createChecks({ plans, callerOf, governance, planHash, decisionHash, now }) {
  /** @type {Map<string, Action>} by its intent token */
  const actions = new Map();
  /** @type {Map<string, { principal: string, caller: string, tool: string, target: string, plan_id: string }>} */
  const consultations = new Map();
  /** @type {AuditEntry[]} */
  const audit = [];

  /** @param {PlanRecord} record @param {Record<string, unknown>} entry */
  const log = (record, { check_id, ...entry }) => audit.push({ id: String(check_id), type: 'check', timestamp: now().toISOString(), plan_id: record.plan.plan_id, plan_hash: planHash(record.plan), ...entry });

  /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
  const intent = async (args, ctx) => {
    const principal = ctx.principal ?? '';
    const caller = callerOf(ctx, args.caller);
    if (args.plan_id === undefined || args.tool === undefined || args.payload === undefined || args.target_agent === undefined) reject('INVALID_REQUEST', 'an intent check names plan_id, tool, payload and target_agent', { field: 'target_agent' });
    const record = plans.get(args.plan_id, principal);
    if (args.consultation_context !== undefined) {
      const c = consultations.get(args.consultation_context);
      if (c === undefined || c.principal !== principal || c.caller !== caller || c.tool !== args.tool || c.target !== args.target_agent || c.plan_id !== args.plan_id) {
        reject('VALIDATION_ERROR', 'consultation_context does not match the authenticated caller, tool, target or plan', { field: 'consultation_context' });
      }
    }
    const decision = decide(record.plan, { payload: args.payload, proposed_commitment: args.proposed_commitment });
    const check_id = `chk_${randomUUID()}`;
    const purchase_type = args.purchase_type ?? 'media_buy';
    const common = { check_id, check_type: 'intent', plan_id: record.plan.plan_id, explanation: decision.explanation, categories_evaluated: decision.categories, policies_evaluated: decision.policies, mode: 'enforce' };
    const entry = { caller, tool: args.tool, verdict: decision.verdict, check_type: 'intent', check_id, explanation: decision.explanation, findings: decision.findings, purchase_type, categories_evaluated: decision.categories, policies_evaluated: decision.policies };
    if (decision.verdict === 'denied') {
      log(record, entry);
      return { ...common, verdict: 'denied', findings: decision.findings };
    }
    if (decision.verdict === 'conditions') {
      const handle = `cons_${randomUUID()}`;
      consultations.set(handle, { principal, caller, tool: args.tool, target: args.target_agent, plan_id: record.plan.plan_id });
      log(record, entry);
      return { ...common, verdict: 'conditions', conditions: decision.conditions, consultation_context: handle, findings: decision.findings };
    }
    const issued = await governance.issue({
      phase: 'intent',
      audience: args.target_agent,
      caller,
      checkId: check_id,
      plan: record.plan,
      authorizedTask: args.tool,
      authorizedPayload: args.payload,
      authorizedCommitment: decision.commitment,
      policyDecisionHash: decisionHash({ check_id, verdict: 'approved', findings: decision.findings, policies: decision.policies }),
    });
    actions.set(issued.token, {
      sub: String(issued.claims.sub),
      plan_id: record.plan.plan_id,
      owner: principal,
      caller,
      audience: args.target_agent,
      tool: args.tool,
      purchase_type,
      intentCheckId: check_id,
      intentToken: issued.token,
      authorized: decision.commitment,
      checkIds: [check_id],
      settled: false,
      committed: 0,
    });
    log(record, { ...entry, governance_context: issued.token });
    return { ...common, verdict: 'approved', governance_context: issued.token, expires_at: issued.expiresAt };
  };

  /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
  const execution = async (args, ctx) => {
    const caller = callerOf(ctx, args.caller);
    const action = actions.get(args.governance_context) ?? reject('PERMISSION_DENIED', 'governance_context is not an authorization this agent issued', { field: 'governance_context' });
    // The execution check's caller is the service the intent authorized: its audience.
    if (caller !== action.audience) reject('PERMISSION_DENIED', 'an execution check comes from the service the intent token names', { field: 'caller' });
    const record = plans.get(action.plan_id, action.owner);
    const planned = args.planned_delivery ?? {};
    const amount = Number(args.execution_commitment?.amount ?? planned.total_budget ?? action.authorized.amount);
    const currency = String(args.execution_commitment?.currency ?? planned.currency ?? action.authorized.currency);
    const phase = args.phase ?? 'purchase';
    const check_id = `chk_${randomUUID()}`;
    action.checkIds.push(check_id);
    const remaining = record.plan.budget.total - record.plan.committedBudget;
    const problem =
      currency !== action.authorized.currency
        ? `The planned delivery is in ${currency}; the intent authorized ${action.authorized.currency}.`
        : amount > action.authorized.amount
          ? `The planned commitment of ${amount} ${currency} exceeds the ${action.authorized.amount} ${currency} the intent authorized.`
          : amount > remaining
            ? `The planned commitment of ${amount} ${currency} exceeds the ${remaining} ${currency} the plan has left.`
            : undefined;
    const common = { check_id, check_type: 'execution', plan_id: action.plan_id };
    const entry = { caller, tool: action.tool, check_type: 'execution', check_id, purchase_type: action.purchase_type };
    if (problem !== undefined) {
      const findings = [{ category_id: 'budget_authority', severity: 'critical', explanation: problem }];
      log(record, { ...entry, verdict: 'denied', explanation: problem, findings });
      return { ...common, verdict: 'denied', explanation: problem, findings };
    }
    const issued = await governance.issue({
      phase,
      audience: action.audience,
      caller,
      checkId: check_id,
      plan: record.plan,
      sub: action.sub,
      ...(typeof planned.media_buy_id === 'string' ? { mediaBuyId: planned.media_buy_id } : {}),
      authorizedCommitment: { amount, currency },
      policyDecisionHash: decisionHash({ check_id, verdict: 'approved', amount }),
      lifetimeSeconds: 7 * 86_400,
    });
    action.execution = { check_id, amount };
    const explanation = `The planned delivery (${amount} ${currency}) is within the approved intent and the plan.`;
    log(record, { ...entry, verdict: 'approved', explanation, governance_context: issued.token });
    return { ...common, verdict: 'approved', explanation, governance_context: issued.token, expires_at: issued.expiresAt };
  };

  return {
    actions,
    audit,
    /** @param {Record<string, any>} args @param {{ principal?: string }} ctx */
    handler: (args, ctx) => (args.governance_context !== undefined ? execution(args, ctx) : intent(args, ctx)),
  };
}

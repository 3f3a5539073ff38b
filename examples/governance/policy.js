// @ts-check
/**
 * The governance agent's policy: how it decides an intent check against a plan. AdCP leaves this to the governance
 * agent; this one applies the plan's own terms, as a buyer's policy team would configure a simple deployment:
 * - budget authority: the commitment (the check's proposed_commitment, else the payload's total budget, else the sum
 *   of its package budgets) in the plan's currency, within what the plan has left (its total minus what completed
 *   outcomes committed);
 * - strategic alignment: a flight inside the plan's;
 * - brand policy: every `must` custom policy acknowledged in the exact request it authorizes
 *   (`payload.ext.governance_policy_acknowledgements`), else a `conditions` counterproposal naming the field and the
 *   value that would be approved — conditions never authorize anything themselves.
 *
 * @typedef {import('./plans.js').StoredPlan} StoredPlan
 * @typedef {{ category_id: string, severity: 'info' | 'warning' | 'critical', explanation: string, policy_id?: string, details?: Record<string, unknown> }} Finding
 * @typedef {{ field: string, required_value?: unknown, reason: string }} Condition
 * @typedef {{ verdict: 'approved' | 'denied' | 'conditions', explanation: string, findings: Finding[], conditions: Condition[], commitment: { amount: number, currency: string },
 *   categories: string[], policies: string[] }} Decision
 */

/** @param {Record<string, any>} payload @param {{ amount: number, currency: string } | undefined} proposed @param {string} planCurrency */
export function commitmentOf(payload, proposed, planCurrency) {
  if (proposed !== undefined) return { amount: proposed.amount, currency: proposed.currency };
  const total = payload.total_budget;
  if (total !== undefined && typeof total === 'object') return { amount: Number(total.amount ?? 0), currency: String(total.currency ?? planCurrency) };
  if (typeof total === 'number') return { amount: total, currency: planCurrency };
  const packages = Array.isArray(payload.packages) ? payload.packages : [];
  return { amount: packages.reduce((sum, p) => sum + (typeof p?.budget === 'number' ? p.budget : Number(p?.budget?.total ?? 0)), 0), currency: planCurrency };
}

/**
 * @param {StoredPlan} plan
 * @param {{ payload: Record<string, any>, proposed_commitment?: { amount: number, currency: string } }} intent
 * @returns {Decision}
 */
export function decide(plan, intent) {
  const commitment = commitmentOf(intent.payload, intent.proposed_commitment, plan.budget.currency);
  /** @type {Finding[]} */
  const findings = [];
  const remaining = plan.budget.total - plan.committedBudget;
  if (commitment.currency !== plan.budget.currency) {
    findings.push({ category_id: 'budget_authority', severity: 'critical', explanation: `The commitment is in ${commitment.currency}; the plan's budget is in ${plan.budget.currency}.` });
  } else if (commitment.amount > remaining) {
    findings.push({
      category_id: 'budget_authority',
      severity: 'critical',
      explanation: `The commitment of ${commitment.amount} ${commitment.currency} exceeds the ${remaining} ${commitment.currency} the plan has left of ${plan.budget.total}.`,
      details: { requested: commitment.amount, remaining, plan_total: plan.budget.total },
    });
  }
  const start = Date.parse(String(intent.payload.start_time ?? ''));
  const end = Date.parse(String(intent.payload.end_time ?? ''));
  const flightStart = Date.parse(String(plan.flight?.start ?? ''));
  const flightEnd = Date.parse(String(plan.flight?.end ?? ''));
  if ((Number.isFinite(start) && Number.isFinite(flightStart) && start < flightStart) || (Number.isFinite(end) && Number.isFinite(flightEnd) && end > flightEnd)) {
    findings.push({ category_id: 'strategic_alignment', severity: 'critical', explanation: 'The flight falls outside the plan\'s flight.', details: { plan_flight: plan.flight } });
  }
  const must = (plan.custom_policies ?? []).filter((p) => p.enforcement === 'must');
  const acknowledged = new Set(Array.isArray(intent.payload.ext?.governance_policy_acknowledgements) ? intent.payload.ext.governance_policy_acknowledgements : []);
  const missing = must.filter((p) => !acknowledged.has(p.policy_id));
  const base = { commitment, categories: ['budget_authority', 'strategic_alignment', ...(must.length > 0 ? ['brand_policy'] : [])], policies: must.map((p) => p.policy_id) };
  if (findings.length > 0) return { ...base, verdict: 'denied', explanation: findings.map((f) => f.explanation).join(' '), findings, conditions: [] };
  if (missing.length > 0) {
    return {
      ...base,
      verdict: 'conditions',
      explanation: `The plan requires acknowledging ${missing.map((p) => p.policy_id).join(', ')} in the request before approval.`,
      findings: missing.map((p) => ({ category_id: 'brand_policy', policy_id: p.policy_id, severity: 'warning', explanation: p.policy ?? `Policy ${p.policy_id} must be acknowledged.` })),
      conditions: [{ field: 'payload.ext.governance_policy_acknowledgements', required_value: must.map((p) => p.policy_id), reason: missing.map((p) => p.policy ?? p.policy_id).join(' ') }],
    };
  }
  return { ...base, verdict: 'approved', explanation: `Within the plan: ${commitment.amount} ${commitment.currency} of ${remaining} remaining.`, findings: [], conditions: [] };
}

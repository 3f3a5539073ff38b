// @ts-check
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { answering } from '../common/errors.js';
import { createCallers } from './callers.js';
import { createChecks } from './checks.js';
import { createLists } from './lists.js';
import { createOutcomes } from './outcomes.js';
import { createPlans } from './plans.js';

/**
 * The reference governance agent: campaign governance for a buyer — plans, intent and execution checks that issue
 * signed `governance_context` tokens, outcomes and the audit trail — and property and collection lists, in small
 * modules, in memory. The runtime signs (agent.governance: the governance-signing key, its JWKS, brand.json entry and
 * revocation list); this code decides.
 *
 *   plans.js      sync_plans: plans as supplied, versions, per-revision plan_hash, committed budget
 *   policy.js     how an intent is decided: budget authority, flight, must-policies (conditions)
 *   checks.js     check_governance: intent tokens for the target service, execution tokens for the service
 *   outcomes.js   report_plan_outcome (one settlement per action, the agent's own ledger), get_plan_audit_logs
 *   lists.js      property and collection lists, their change webhooks, validate_property_delivery
 *   callers.js    which agent URL each credential is (never the request's claim)
 *
 * @typedef {{ now?: () => Date, callers?: Readonly<Record<string, string>> }} GovernanceAgentOptions
 *   `callers`: principal → the agent URL it is (the buyer an API key belongs to; the service a credential registered
 *   through sync_governance belongs to).
 */

/** Tools the runtime answers itself. */
const RUNTIME_TOOLS = new Set(['get_adcp_capabilities', 'get_task_status', 'list_tasks', 'sync_agent_notification_configs']);

/**
 * @param {{ releases: readonly string[], tools(release?: string): readonly string[], governance?: import('../../generated/index.js').GovernanceIssuer,
 *   webhooks: import('../../generated/index.js').AgentWebhooks }} agent
 * @param {GovernanceAgentOptions} [options]
 */
export function createGovernance(agent, options = {}) {
  const now = options.now ?? (() => new Date());
  const governance = agent.governance;
  if (governance === undefined) throw new Error('the governance agent needs a profile that serves check_governance (agent.governance signs its tokens)');
  // RFC 8785 from the canonicalize package (the runtime's own choice): the hash of a decision record that stays private.
  const canonicalize = /** @type {(v: unknown) => string} */ (createRequire(import.meta.url)('canonicalize'));
  const decisionHash = (/** @type {unknown} */ decisions) => createHash('sha256').update(canonicalize(decisions), 'utf8').digest('hex');
  const plans = createPlans({ planHash: (plan) => governance.planHash(plan), now });
  const checks = createChecks({ plans, callerOf: createCallers(options.callers ?? {}), governance, planHash: (plan) => governance.planHash(plan), decisionHash, now });
  const outcomes = createOutcomes({ plans, checks, now });
  const lists = createLists({ webhooks: agent.webhooks, now });
  /** @type {Record<string, (args: any, ctx: any) => unknown>} */
  const implementations = {
    sync_plans: plans.syncPlans,
    check_governance: checks.handler,
    report_plan_outcome: outcomes.report,
    get_plan_audit_logs: outcomes.auditLogs,
    ...lists.handlers,
  };
  const served = [...new Set(agent.releases.flatMap((r) => agent.tools(r)))].filter((t) => !RUNTIME_TOOLS.has(t)).sort();
  /** @type {Record<string, unknown>} */
  const handlers = {};
  for (const tool of served) {
    const impl = implementations[tool];
    if (impl === undefined) throw new Error(`the reference governance agent does not implement ${tool}, which the profile serves`);
    handlers[tool] = answering(impl);
  }
  return { handlers, checks };
}

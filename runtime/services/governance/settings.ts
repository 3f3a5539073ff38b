import type { AgentOptions } from '../../api/agent-types.js';
import type { Served } from '../../artifacts/served.js';
import { WARNINGS, type RuntimeLog } from '../../ops/log.js';

/**
 * Which tasks a service enforces governance on, and how, from `adcp.governance_enforcement.tasks[]` of its profile's
 * highest release (what buyers read: the runtime keeps exactly what it says), checked at start against what
 * enforcing needs: one entry per task, `signed_context` among its modes, a task the profile serves whose request takes
 * an idempotency key under a replay window (a retried request's jti is bound to its key), a way to price it
 * (`governance.tasks[task].commitment`: the spec forbids advertising enforcement for a task the service cannot price
 * before commit), and for `online_execution_check` (media-buy tasks only) a way to prepare it.
 */
export interface EnforcementSettings {
  readonly tasks: ReadonlyMap<string, { readonly modes: readonly string[] }>;
  readonly sandbox: boolean;
  readonly skewSeconds: number;
  readonly retentionDays: number;
  readonly executionTimeoutMs: number;
}

const MODES = ['signed_context', 'online_execution_check'];
const ONLINE = ['create_media_buy', 'update_media_buy', 'buy_products', 'accept_proposal', 'control_media_buy'];

export function enforcementSettings(served: Served, options: AgentOptions, replayWindow: boolean, log: Pick<RuntimeLog, 'warn'> = WARNINGS): EnforcementSettings {
  const fail = (problem: string): never => {
    throw new Error(`adcp-codegen: ${served.name} advertises adcp.governance_enforcement, but ${problem}`);
  };
  const declared = (served.releases[0]!.capabilities.adcp as { governance_enforcement: { tasks: unknown[] } }).governance_enforcement.tasks;
  const tasks = new Map<string, { modes: readonly string[] }>();
  const hooks = options.governance?.tasks ?? {};
  for (const entry of declared) {
    const { task, modes } = (entry ?? {}) as { task?: unknown; modes?: unknown };
    if (typeof task !== 'string' || !Array.isArray(modes)) fail('an entry of its tasks[] has no task or modes');
    const name = task as string;
    if (tasks.has(name)) fail(`tasks[] names ${name} twice (one entry per task, its modes combined)`);
    const list = modes as string[];
    if (!list.includes('signed_context') || !list.every((m) => MODES.includes(m))) fail(`${name}'s modes ${JSON.stringify(list)} must include signed_context and name only ${MODES.join(' and ')}`);
    if (!served.releases.some((r) => r.tools.includes(name))) fail(`it does not serve ${name}`);
    if (!served.releases.some((r) => r.idempotency?.[name] !== undefined) || !replayWindow) fail(`${name} is not under the replay contract (adcp.idempotency): a retried governed request's token is bound to its idempotency_key`);
    const own = Object.hasOwn(hooks, name) ? hooks[name] : undefined;
    if (typeof own?.commitment !== 'function') fail(`AgentOptions.governance.tasks.${name}.commitment is not given: the service must price the action before commit to compare it with the signed ceiling`);
    if (list.includes('online_execution_check')) {
      if (!ONLINE.includes(name)) fail(`online_execution_check is defined for media-buy tasks only, not ${name}`);
      if (typeof own?.plannedDelivery !== 'function') fail(`AgentOptions.governance.tasks.${name}.plannedDelivery is not given: an online execution check presents the prepared planned_delivery`);
    }
    tasks.set(name, { modes: list });
  }
  for (const name of Object.keys(hooks)) if (!tasks.has(name)) fail(`AgentOptions.governance.tasks names ${name}, which it does not list`);
  const g = options.governance ?? {};
  const skew = g.clockSkewSeconds ?? 60;
  if (!Number.isInteger(skew) || skew < 0 || skew > 300) fail(`governance.clockSkewSeconds must be an integer from 0 to 300, not ${JSON.stringify(skew)}`);
  const retention = g.retentionDays ?? 2557;
  if (!Number.isInteger(retention) || retention < 1) fail(`governance.retentionDays must be a positive integer, not ${JSON.stringify(retention)}`);
  const timeout = g.executionTimeoutMs ?? 10_000;
  if (!Number.isInteger(timeout) || timeout < 100) fail(`governance.executionTimeoutMs must be an integer of at least 100, not ${JSON.stringify(timeout)}`);
  if (g.buyers === undefined) log.warn('no_governance_buyers', `adcp-codegen: ${served.name} enforces governance but AgentOptions.governance.buyers is not set: every governance_context will be refused (governance_issuer_not_authorized) — no buyer's brand.json is known`);
  return { tasks, sandbox: served.surface === 'sandbox' || served.mode === 'development', skewSeconds: skew, retentionDays: retention, executionTimeoutMs: timeout };
}

import { serviceUnavailable } from '../wire/idempotency-errors.js';
import { thrownBody } from '../wire/response.js';
import { faultFields, type Answer, type Call } from './call.js';

/**
 * Governance enforcement (services/governance/enforce.ts) for a task the profile lists in
 * `adcp.governance_enforcement.tasks[]`: after the idempotency claim and before the handler, the buyer's
 * `governance_context` verified by the seller checklist (and, where the task advertises it, the online execution
 * check). A refusal answers the call — no side effect, the claim released; an accepted authorization is the
 * handler's `ctx.governance`, and the token is spent when the call succeeds. A profile that enforces nothing, or a
 * tool it does not govern, costs a map lookup.
 */
export async function governance(call: Call): Promise<Answer | void> {
  if (governance.idle(call)) return;
  const enforcing = call.env.services.governanceEnforcement!;
  let outcome: Awaited<ReturnType<typeof enforcing.gate>>;
  try {
    outcome = await enforcing.gate({ tool: call.tool, args: call.args, value: call.value, principal: call.ctx.principal ?? '', ...(call.ctx.auth !== undefined ? { auth: call.ctx.auth } : {}) });
  } catch (e) {
    // The store unreachable (the replay set, the record of accepted tokens): never accepted unrecorded.
    if ((e as Error | undefined)?.name === 'StoreUnavailable') {
      call.env.log.error('store_unavailable', `adcp-codegen: ${call.tool}: the governance record failed: ${(e as Error).message}`, faultFields(call));
      return call.reject(serviceUnavailable(`${call.tool}: the agent cannot verify its governance authorization now; retry with the same idempotency_key`));
    }
    // A hook of the team's (pricing, preparing, the account's registration) refused or failed.
    return call.reject(thrownBody(call.tool, e, call.env.log, faultFields(call)));
  }
  if (outcome === undefined) return;
  if ('error' in outcome) return call.reject(outcome.error.toBody());
  call.governance = outcome.authorization;
  const { settle } = outcome;
  call.onAnswer.push(async (answer) => {
    if (answer.isError !== true && answer.structuredContent !== undefined) {
      await settle(answer.structuredContent).catch((e: unknown) => call.env.log.warn('governance_not_spent', `adcp-codegen: ${call.tool}: the accepted governance token could not be marked spent: ${String(e)}`, faultFields(call)));
    }
    return answer;
  });
}

/** A profile that enforces nothing, a tool it does not govern, a batch answered without its handler. */
governance.idle = (call: Call): boolean => {
  const enforcing = call.env.services.governanceEnforcement;
  return enforcing === undefined || !enforcing.settings.tasks.has(call.tool) || call.plan?.body !== undefined;
};

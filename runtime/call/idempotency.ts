import type { Outcome } from '../services/idempotency/service.js';
import { idempotencyConflict, idempotencyExpired, idempotencyInFlight, rateLimited, serviceUnavailable } from '../wire/idempotency-errors.js';
import { faultFields, success, type Answer, type Call } from './call.js';

/**
 * AdCP's replay contract for a tool whose request declares `idempotency_key` (the profile lists them per release),
 * when the buyer sent one: after schema validation (rule 1), before anything executes. A replay answers the first
 * success as it was, `replayed: true`, the caller's context echoed; a claim is completed by the answer if it is a
 * success, released otherwise (rules 2, 3). The store unreachable is SERVICE_UNAVAILABLE: the handler never runs
 * when its execution could not be recorded.
 */
export async function idempotency(call: Call): Promise<Answer | void> {
  if (idempotency.idle(call)) return;
  const kind = call.release.idempotency![call.tool]!;
  const key = call.args.idempotency_key as string;
  // Only now the service (and the store under it) is made: a call that takes no key never loads either.
  const service = call.env.services.idempotency;
  if (service === undefined) return;
  let outcome: Outcome;
  try {
    outcome = await service.begin({ principal: call.ctx.principal ?? '', account: call.args.account, tool: call.tool, key, kind, args: call.args });
  } catch (e) {
    call.env.log.error('store_unavailable', `adcp-codegen: ${call.tool}: the idempotency store failed: ${e instanceof Error ? e.message : String(e)}`, faultFields(call));
    return call.reject(serviceUnavailable(`${call.tool}: the agent cannot record this request now; retry with the same idempotency_key`));
  }
  switch (outcome.kind) {
    case 'replay': {
      call.replayed = true;
      const body: Record<string, unknown> = { ...outcome.body };
      if (call.echo !== undefined) body.context = call.echo.context;
      if (!(call.release.omitEnvelope?.[call.tool] ?? []).includes('replayed')) body.replayed = true;
      return success(body);
    }
    case 'conflict':
      return call.reject(idempotencyConflict());
    case 'expired':
      return call.reject(idempotencyExpired());
    case 'in-flight':
      return call.reject(idempotencyInFlight(outcome.retryAfter));
    case 'rate-limited':
      return call.reject(rateLimited(outcome.retryAfter));
    case 'claimed':
      call.onAnswer.push(async (answer) => {
        if (answer.isError === true || answer.structuredContent === undefined) await outcome.release();
        else {
          // The inner response is what is kept: the caller's context and `replayed` are the envelope's, per answer.
          const { context: _context, replayed: _replayed, ...body } = answer.structuredContent;
          await outcome.complete(body);
        }
        return answer;
      });
  }
}

/** A tool without the replay contract, or a call without a key (parse has refused one the tool requires). */
idempotency.idle = (call: Call): boolean => call.release.idempotency?.[call.tool] === undefined || typeof call.args.idempotency_key !== 'string';

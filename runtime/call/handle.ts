import { AdcpError, agentFault, type AdcpErrorBody } from '../wire/errors.js';
import { serviceUnavailable } from '../wire/idempotency-errors.js';
import { jsonCopy } from '../wire/json-copy.js';
import { isAdcpErrorBody, thrownBody } from '../wire/response.js';
import { faultFields, type Answer, type Call } from './call.js';

/**
 * The handler, and its answer read once: a JSON object body, or an AdCP error (returned, thrown, or `{ adcp_error }`).
 * A batch request with no valid item left is answered by the runtime's own rows (items.ts); the handler is not called.
 * A handler still running at the handler timeout is abandoned: `ctx.signal` aborts, the call answers
 * SERVICE_UNAVAILABLE, and an idempotency claim it held is released (security.mdx rule 9: an in-flight key lives no
 * longer than the handler timeout), so a retry may run it again.
 */
export async function handle(call: Call): Promise<Answer | void> {
  let result: unknown;
  let timer: NodeJS.Timeout | undefined;
  try {
    if (call.plan?.body !== undefined) result = call.plan.body;
    else {
      // The transport's context is copied inside the guard (handlerContext): a getter there is the host's bug.
      const hctx = call.handlerContext();
      const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), call.env.services.handlerTimeoutMs);
      });
      result = await Promise.race([call.fn(call.value, hctx), timedOut]);
      if (result === TIMED_OUT) {
        call.abandon.abort(new Error('the handler timeout passed'));
        call.env.log.warn('handler_timeout', `adcp-codegen: the handler for ${call.tool} did not finish within ${call.env.services.handlerTimeoutMs / 1000} s; its call was answered SERVICE_UNAVAILABLE`, faultFields(call));
        return call.reject(serviceUnavailable(`${call.tool}: the agent did not finish this request in time; retry with the same idempotency_key`));
      }
    }
    if (result instanceof AdcpError) throw result;
    // A result with throwing getters, cycles or BigInts is the agent's failure, answered as one.
    const copy = jsonCopy(result);
    if (!copy.ok) throw new Error('the handler returned a value that cannot be read as JSON');
    result = copy.value;
  } catch (e) {
    return call.reject(thrownBody(call.tool, e, call.env.log, faultFields(call)));
  } finally {
    clearTimeout(timer);
  }
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return call.reject(agentFault(call.tool, 'the handler returned no response object'));
  const body = result as Record<string, unknown>;
  if (isAdcpErrorBody(body.adcp_error)) return call.reject(body.adcp_error as AdcpErrorBody);
  call.body = body;
}

const TIMED_OUT: unique symbol = Symbol('timed out');

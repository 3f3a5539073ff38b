import { beforeDeadline, LATE } from '../wire/deadline.js';
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
 * longer than the handler timeout), so a retry may run it again. A handler that answers at once (a value, not a
 * promise) is read at once: nothing to time out, no timer and no promise (every promise of a call over HTTP is one
 * more hook to run once an operator's context manager is registered: docs/operating.md).
 */
export function handle(call: Call): Answer | void | Promise<Answer | void> {
  if (call.plan?.body !== undefined) return read(call, call.plan.body);
  let result: unknown;
  try {
    // The transport's context is copied inside the guard (handlerContext): a getter there is the host's bug.
    result = call.fn(call.value, call.handlerContext());
    if (!isThenable(result)) return read(call, result);
  } catch (e) {
    return call.reject(thrownBody(call.tool, e, call.env.log, faultFields(call)));
  }
  return beforeDeadline(result, call.env.services.handlerTimeoutMs).then(
    (settled) => (settled === LATE ? timedOut(call) : read(call, settled)),
    (e: unknown) => call.reject(thrownBody(call.tool, e, call.env.log, faultFields(call))),
  );
}

/** What the handler answered, read once: its body on the call, or the call's rejection. */
function read(call: Call, answered: unknown): Answer | void {
  let result: unknown;
  try {
    if (answered instanceof AdcpError) throw answered;
    // A result with throwing getters, cycles or BigInts is the agent's failure, answered as one.
    const copy = jsonCopy(answered);
    if (!copy.ok) throw new Error('the handler returned a value that cannot be read as JSON');
    result = copy.value;
  } catch (e) {
    return call.reject(thrownBody(call.tool, e, call.env.log, faultFields(call)));
  }
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return call.reject(agentFault(call.tool, 'the handler returned no response object'));
  const body = result as Record<string, unknown>;
  if (isAdcpErrorBody(body.adcp_error)) return call.reject(body.adcp_error as AdcpErrorBody);
  call.body = body;
}

function timedOut(call: Call): Answer {
  call.abandon.abort(new Error('the handler timeout passed'));
  call.env.log.warn('handler_timeout', `adcp-codegen: the handler for ${call.tool} did not finish within ${call.env.services.handlerTimeoutMs / 1000} s; its call was answered SERVICE_UNAVAILABLE`, faultFields(call));
  return call.reject(serviceUnavailable(`${call.tool}: the agent did not finish this request in time; retry with the same idempotency_key`));
}

/** A promise or any thenable (a handler may return one from another promise library). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
}

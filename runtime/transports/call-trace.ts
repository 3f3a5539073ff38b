import type { CallTrace } from '../api/ops-types.js';
import { isObject } from '../wire/json-copy.js';

/**
 * A call's trace context (`ctx.trace`: W3C `traceparent` and `tracestate`, `x-request-id`) from the request headers
 * its transport received: over MCP from the SDK's request info, over A2A carried from the HTTP entry on the call's
 * User, which is the one thing the A2A SDK hands from the request to the executor.
 */
export function traceOf(headers: unknown): CallTrace | undefined {
  if (!isObject(headers)) return undefined;
  const traceparent = one(headers.traceparent);
  const tracestate = one(headers.tracestate);
  const requestId = one(headers['x-request-id']);
  if (traceparent === undefined && requestId === undefined) return undefined;
  return { ...(traceparent !== undefined ? { traceparent } : {}), ...(tracestate !== undefined ? { tracestate } : {}), ...(requestId !== undefined ? { requestId } : {}) };
}

/** A header's one value, within a sane length (a longer one is not a trace context). */
function one(v: unknown): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s !== '' && s.length <= 1024 ? s : undefined;
}

const byUser = new WeakMap<object, CallTrace>();

/** The entry's A2A request: its trace context rides on the User it makes for the call. */
export function carryTrace(user: unknown, trace: CallTrace | undefined): void {
  if (trace !== undefined && isObject(user)) byUser.set(user, trace);
}

/** The executor's side: the trace context of the SDK's ServerCallContext's User. */
export function carriedTrace(context: unknown): CallTrace | undefined {
  const user = isObject(context) ? context.user : undefined;
  return isObject(user) ? byUser.get(user) : undefined;
}

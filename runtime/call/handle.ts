import { AdcpError, agentFault, type AdcpErrorBody } from '../wire/errors.js';
import { jsonCopy } from '../wire/json-copy.js';
import { isAdcpErrorBody, thrownBody } from '../wire/response.js';
import type { Answer, Call } from './call.js';

/**
 * The handler, and its answer read once: a JSON object body, or an AdCP error (returned, thrown, or `{ adcp_error }`).
 * A batch request with no valid item left is answered by the runtime's own rows (items.ts); the handler is not called.
 */
export async function handle(call: Call): Promise<Answer | void> {
  let result: unknown;
  try {
    // The transport's context is copied inside the guard (handlerContext): a getter there is the host's bug.
    result = call.plan?.body ?? (await call.fn(call.value, call.handlerContext()));
    if (result instanceof AdcpError) throw result;
    // A result with throwing getters, cycles or BigInts is the agent's failure, answered as one.
    const copy = jsonCopy(result);
    if (!copy.ok) throw new Error('the handler returned a value that cannot be read as JSON');
    result = copy.value;
  } catch (e) {
    return call.reject(thrownBody(call.tool, e));
  }
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return call.reject(agentFault(call.tool, 'the handler returned no response object'));
  const body = result as Record<string, unknown>;
  if (isAdcpErrorBody(body.adcp_error)) return call.reject(body.adcp_error as AdcpErrorBody);
  call.body = body;
}

import { thrownBody } from '../wire/response.js';
import { faultFields, type Answer, type Call } from './call.js';

/**
 * AgentOptions.authorize, with exactly what the handler will be given: authorization decides on what will be
 * executed, never on the raw arguments. It rejects by throwing (an AdcpError, or anything: the agent's fault).
 */
export async function authorize(call: Call): Promise<Answer | void> {
  if (authorize.idle(call)) return;
  try {
    await call.env.authorize!(call.tool, call.value, call.handlerContext());
  } catch (e) {
    return call.reject(thrownBody(call.tool, e, call.env.log, faultFields(call)));
  }
}

/** No authorize hook, or nothing will be executed (a batch with no valid item left is answered by the runtime). */
authorize.idle = (call: Call): boolean => call.env.authorize === undefined || call.plan?.body !== undefined;

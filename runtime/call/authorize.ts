import { thrownBody } from '../wire/response.js';
import { faultFields, type Answer, type Call } from './call.js';

/**
 * AgentOptions.authorize, with exactly what the handler will be given: authorization decides on what will be
 * executed, never on the raw arguments. It rejects by throwing (an AdcpError, or anything: the agent's fault).
 */
export async function authorize(call: Call): Promise<Answer | void> {
  const hook = call.env.authorize;
  if (hook === undefined || call.plan?.body !== undefined) return;
  try {
    await hook(call.tool, call.value, call.handlerContext());
  } catch (e) {
    return call.reject(thrownBody(call.tool, e, call.env.log, faultFields(call)));
  }
}

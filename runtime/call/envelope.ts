import { agentFault } from '../wire/errors.js';
import { responseEnvelope, statusDefined } from '../wire/response.js';
import type { Answer, Call } from './call.js';

/**
 * The envelope the runtime owns: `adcp_version` the answering release, `context` the caller's, `status` completed
 * unless the handler states another (response.ts). A field the tool's response schema refuses (a closed object that
 * does not declare it) is left out; a handler's own `status` (async, or domain state) stays.
 */
export function envelope(call: Call): Answer | void {
  const { served, slot, tool, release } = call;
  const sent = call.body;
  const domain = release.domainStatus?.[tool];
  const defines = (body: Record<string, unknown>): boolean => domain?.includes(body.status as string) === true || statusDefined(served.response(slot), body);
  const made = responseEnvelope(sent, call.echo?.context, release.key, defines, domain === undefined);
  if (!made.ok) return call.reject(agentFault(tool, made.message));
  const body = made.body;
  for (const field of release.omitEnvelope?.[tool] ?? []) if (field !== 'status' || sent.status === undefined) delete body[field];
  call.body = body;
}

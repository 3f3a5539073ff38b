import { CallGate, refusalError } from './admission.js';
import type { Answer, Call } from './call.js';

/**
 * Whether this caller may make this call, decided on the call itself: the tool the transport's SDK delivered (MCP
 * tools/call's name, the skill of the A2A message as that SDK read it) and the arguments the call read, never a
 * reading of the request body of the entry's own. The HTTP entry hands the request's Admission down with the call
 * (`ctx.admission`, call/admission.ts); a call without one (agent.call, a host's own server) is its host's to admit.
 *
 * - `admit`, first of all: by the tool's name — an anonymous caller where credentials are asked for reaches the
 *   public tools only, and the signing policy's `required_for` (or a failed, unshadowed signature) refuses it too.
 *   First, so a refused caller's arguments are never read, and a tool the profile does not serve (which `read` refuses)
 *   is refused like a protected one (wire/results.ts callBound, for a tool no handler is bound for, alike).
 * - `admitArgs`, right after `read`: an unsigned request registering webhook credentials is refused, whatever its
 *   other credentials (security.mdx, webhook downgrade resistance). Where request signing is verified, that refusal
 *   comes before any of credentials (AdCP's conformance vector 027), so there the credentials rule is applied here,
 *   after it, rather than in `admit`.
 * A refusal answers the call AUTH_REQUIRED, nothing after it runs, and the Admission keeps it: the transport answers
 * the whole request HTTP 401 with the challenge instead.
 */
export function admit(call: Call): Answer | void {
  const gate = gateOf(call);
  if (gate === undefined) return;
  const refused = gate.tool(call.tool);
  if (refused !== undefined) return call.reject(refusalError(call.tool, refused));
}

export function admitArgs(call: Call): Answer | void {
  if (admitArgs.idle(call)) return;
  const gate = gateOf(call)!;
  const refused = gate.args(call.tool, call.args);
  if (refused !== undefined) return call.reject(refusalError(call.tool, refused));
}

/** Only where the signing policy judges the request does a call's admission read its arguments. */
admitArgs.idle = (call: Call): boolean => gateOf(call)?.admission.signing !== true;

function gateOf(call: Call): CallGate | undefined {
  const gate = call.ctx.admission;
  return gate instanceof CallGate ? gate : undefined;
}

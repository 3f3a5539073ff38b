import { boundedIssue, clip, MAX_REJECTION_ISSUES } from '../wire/bounds.js';
import { agentFault } from '../wire/errors.js';
import type { Issue } from '../artifacts/contract.js';
import { faultFields, type Answer, type Call } from './call.js';

/**
 * Development validates every response; production only where tools/list advertises an outputSchema, because MCP
 * clients validate structuredContent against it and would throw on the buyer's side. An invalid response is never
 * sent as if it were valid: the agent has a bug, which a retry cannot fix. The pointers help the agent's developer;
 * a production buyer learns only that the call failed. Any other production answer is sent as the handler gave it,
 * and checked once it is on its way, off the call's time, when the log writes errors: a failing one is logged with
 * its issues, for the operator. Every answer of a tool's first `CHECK_ALL` in a release is checked, then one in
 * `CHECK_EVERY` (a handler's bug is there from its first answers; checking them all would cost each call a response
 * validation).
 */
const CHECK_ALL = 100;
const CHECK_EVERY = 100;
const answered = new WeakMap<object, number>();

export function verify(call: Call): Answer | void {
  const { served, slot, tool, release } = call;
  const problem = `the agent's response does not match the AdCP ${release.key} response schema`;
  if (served.mode !== 'development' && !served.outputAdvertised.has(tool)) {
    const n = answered.get(slot) ?? 0;
    answered.set(slot, n + 1);
    if ((n < CHECK_ALL || n % CHECK_EVERY === 0) && call.env.log.enabled('error')) setImmediate(checkSent, call, call.body, problem);
    return;
  }
  const verdict = served.response(slot)(call.body);
  if (verdict.ok) return;
  const first = verdict.issues[0]!;
  if (served.mode === 'production') {
    logInvalid(call, problem, verdict.issues, true);
    return call.reject(agentFault(tool, problem, { tool }));
  }
  const where = first.pointer === '' ? 'the response' : clip(first.pointer);
  return call.reject(agentFault(tool, `${problem}: ${where} ${clip(first.message)}`, { tool, response_issues: verdict.issues.slice(0, MAX_REJECTION_ISSUES).map(boundedIssue) }));
}

/** A production answer already sent, checked against its release's response schema. */
function checkSent(call: Call, body: Record<string, unknown>, problem: string): void {
  const verdict = call.served.response(call.slot)(body);
  if (!verdict.ok) logInvalid(call, problem, verdict.issues, false);
}

function logInvalid(call: Call, problem: string, issues: readonly Issue[], refused: boolean): void {
  const sent = refused ? '' : ' (sent as the handler returned it)';
  call.env.log.error('response_invalid', `adcp-codegen: ${call.tool}: ${problem}: ${JSON.stringify(issues)}${sent}`, { ...faultFields(call), sent: !refused, issues: issues.slice(0, MAX_REJECTION_ISSUES).map(boundedIssue) });
}

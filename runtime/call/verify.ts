import { boundedIssue, clip, MAX_REJECTION_ISSUES } from '../wire/bounds.js';
import { agentFault } from '../wire/errors.js';
import type { Answer, Call } from './call.js';

/**
 * Development validates every response; production only where tools/list advertises an outputSchema, because MCP
 * clients validate structuredContent against it and would throw on the buyer's side. An invalid response is never
 * sent as if it were valid: the agent has a bug, which a retry cannot fix. The pointers help the agent's developer;
 * a production buyer learns only that the call failed.
 */
export function verify(call: Call): Answer | void {
  const { served, slot, tool, release } = call;
  if (served.mode !== 'development' && !served.outputAdvertised.has(tool)) return;
  const verdict = served.response(slot)(call.body);
  if (verdict.ok) return;
  const first = verdict.issues[0]!;
  const problem = `the agent's response does not match the AdCP ${release.key} response schema`;
  if (served.mode === 'production') {
    process.emitWarning(`adcp-codegen: ${tool}: ${problem}: ${JSON.stringify(verdict.issues)}`);
    return call.reject(agentFault(tool, problem, { tool }));
  }
  const where = first.pointer === '' ? 'the response' : clip(first.pointer);
  return call.reject(agentFault(tool, `${problem}: ${where} ${clip(first.message)}`, { tool, response_issues: verdict.issues.slice(0, MAX_REJECTION_ISSUES).map(boundedIssue) }));
}

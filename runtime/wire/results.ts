import type { Agent, AnyToolHandler, CallContext, CallToolResult } from '../api/agent-types.js';
import { CallGate, refusalError } from '../call/admission.js';
import { agentFault, contextEcho, unsupportedTool, type AdcpErrorBody } from './errors.js';
import { serviceUnavailable } from './idempotency-errors.js';
import { readRequest } from './json-copy.js';
import { faultText } from './report.js';
import { logOf } from '../ops/log.js';

/**
 * The MCP CallToolResult of a rejection, shared by the agent's pipeline and both transports: an AdCP error with the
 * caller's context, and the "unknown tool" answer (UnknownToolError is what the pipeline throws for it).
 */

/** Raised for a tool the profile does not serve; transports map it to their "unknown tool" error and nothing else. */
export class UnknownToolError extends Error {
  readonly tool: string;
  constructor(tool: string) {
    super(`Tool ${tool} not found`);
    this.name = 'UnknownToolError';
    this.tool = tool;
  }
}

/**
 * A rejection: the AdCP error body as structuredContent (where AdCP's storyboard runner and MCP hosts read it) and
 * the same JSON in content[0].text. MCP clients validate structuredContent against a tool's outputSchema, errors
 * included: a profile advertising output schemas makes each one admit this body. The error is in both of AdCP's
 * layers, as a fatal failure should be (L3/error-handling.mdx): the transport envelope's `adcp_error`, and the
 * payload's `errors[]`, which a reader of the task payload checks (`errors[0].field`).
 */
export function errorResult(error: AdcpErrorBody, args: unknown, release: string): CallToolResult {
  // The caller's own context, measured only when there is a rejection to echo it on.
  const echo = contextEcho(args);
  const body: Record<string, unknown> = { adcp_error: error, errors: [payloadError(error)], ...(echo.present ? { context: echo.value } : {}), status: 'failed', adcp_version: release };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

/**
 * The error as the payload's errors[] carries it: the same code, message, field, recovery and details, without the
 * per-field issue lists (`issues`, and `details.issues` for pre-3.1 readers), which adcp_error carries once — a
 * rejection's size stays bounded however many issues a hostile request provokes.
 */
function payloadError(error: AdcpErrorBody): AdcpErrorBody {
  const { issues: _issues, details, ...summary } = error;
  if (details === undefined) return summary;
  const { issues: _mirror, ...rest } = details;
  return Object.keys(rest).length > 0 ? { ...summary, details: rest } : summary;
}

/**
 * The rejection of a call to a tool the agent does not serve: an AdCP error with the caller's context, labelled
 * with the release the caller pinned when it is served, else `fallback`: the agent's default release (what a call
 * pinning none is served), else the highest served (`releases`, highest first).
 */
export function unknownToolResult(tool: string, args: unknown, releases: readonly string[], fallback = releases[0]!): CallToolResult {
  return rejectionOf(unsupportedTool(tool), args, releases, fallback);
}

/** A rejection of a call the pipeline could not answer itself, labelled as unknownToolResult labels its own. */
function rejectionOf(error: AdcpErrorBody, args: unknown, releases: readonly string[], fallback: string): CallToolResult {
  // Read through the parse-once step like any call: an unreadable value is answered, never thrown.
  const request = readRequest(args);
  const value = request.ok ? request.value : request.context === undefined ? undefined : { context: request.context };
  const pinned = value !== null && typeof value === 'object' ? (value as Record<string, unknown>).adcp_version : undefined;
  return errorResult(error, value, typeof pinned === 'string' && releases.includes(pinned) ? pinned : fallback);
}

/** The AdCP body of a CallToolResult, success or rejection. */
export function resultBody(result: CallToolResult): Record<string, unknown> {
  return result.structuredContent ?? (JSON.parse(result.content[0]!.text) as Record<string, unknown>);
}

/**
 * A transport's call of `tool` (MCP tools/call, an A2A skill): through the agent with the handler bound to it, or
 * AdCP's "unknown tool" rejection, with the caller's context, when none is bound or the agent serves no such tool.
 * agent.call answers handler failures itself; anything else it throws (an artifact missing from the generated set,
 * say) is a fault of the agent, not of the buyer's request: logged on the server and answered as a
 * CONFIGURATION_ERROR with no detail, never a transport error or a crash of the process.
 */
export async function callBound(agent: Pick<Agent, 'call' | 'releases' | 'defaultRelease'>, handlers: Readonly<Record<string, AnyToolHandler>>, tool: string, args: unknown, ctx: CallContext): Promise<CallToolResult> {
  const handler = Object.prototype.hasOwnProperty.call(handlers, tool) ? handlers[tool] : undefined;
  const fallback = agent.defaultRelease ?? agent.releases[0]!;
  if (handler === undefined) {
    // Not a tool of the profile: admitted as any call is (an anonymous caller is refused it as a protected tool), then
    // refused as unknown.
    const refused = ctx.admission instanceof CallGate ? (ctx.admission.tool(tool) ?? ctx.admission.args(tool, undefined)) : undefined;
    return refused !== undefined ? rejectionOf(refusalError(tool, refused), args, agent.releases, fallback) : unknownToolResult(tool, args, agent.releases, fallback);
  }
  try {
    return await agent.call(tool, args, handler, ctx);
  } catch (e) {
    if (e instanceof UnknownToolError) return unknownToolResult(tool, args, agent.releases, fallback);
    // The store out of reach in a stage of the call: an outage, transient, never the agent's CONFIGURATION_ERROR.
    if (e instanceof Error && e.name === 'StoreUnavailable') {
      logOf(agent).error('store_unavailable', `adcp-codegen: the call of ${tool} met an unavailable store: ${e.message}`, { tool });
      return rejectionOf(serviceUnavailable(`${tool}: the agent cannot reach its store now; retry`), args, agent.releases, fallback);
    }
    logOf(agent).error('call_failed', `adcp-codegen: the call of ${tool} failed: ${faultText(e)}`, { tool });
    return rejectionOf(agentFault(tool, "the call failed on the agent (details are in the agent's log)"), args, agent.releases, fallback);
  }
}

import { agentPackage } from '../../artifacts/packages.js';
import type { GovernanceCommitment, GovernancePhase, GovernanceRegistration } from '../../api/governance-types.js';
import type { FetchLike } from '../webhooks/sdk.js';
import { firstLine, hostOf } from '../../wire/report.js';
import { refusalOf } from './fetch.js';

/**
 * The online execution check (the governance specification, "Media-buy online execution checks"): prepare → check →
 * commit. Before the governed side effect, the service presents the buyer's intent token and its prepared result
 * (`planned_delivery`) to the account's registered governance agent — `check_governance` over MCP (the official
 * client, Streamable HTTP, the registration's Bearer credential), through the pinned, SSRF-checked fetch — and commits
 * only on `approved`. Execution checks are binary: `denied` (or a `conditions` answer, which cannot authorize an
 * execution) blocks the commit; an agent that cannot be reached, answers an error or nothing usable within the
 * deadline is unavailable.
 */
export type ExecutionAnswer =
  | { readonly verdict: 'approved'; readonly token: string; readonly checkId: string }
  | { readonly verdict: 'denied'; readonly checkId?: string; readonly explanation: string; readonly findings?: unknown }
  | { readonly verdict: 'unavailable'; readonly reason: string };

export interface ExecutionRequest {
  readonly registration: GovernanceRegistration;
  /** The service's own URL: the execution check's caller, and the audience of the token it gets back. */
  readonly caller: string;
  readonly intentToken: string;
  readonly phase: Exclude<GovernancePhase, 'intent'>;
  readonly plannedDelivery: Record<string, unknown>;
  /** The positive incremental commitment of an update (modification checks). */
  readonly executionCommitment?: GovernanceCommitment;
}

interface McpClient {
  connect(transport: unknown): Promise<void>;
  callTool(params: { name: string; arguments: Record<string, unknown> }, schema?: unknown, options?: { signal?: AbortSignal; timeout?: number }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function executionCheck(request: ExecutionRequest, fetch: FetchLike, sandbox: boolean, timeoutMs: number): Promise<ExecutionAnswer> {
  const url = request.registration.url;
  const refused = await refusalOf(url, sandbox);
  if (refused !== undefined) return { verdict: 'unavailable', reason: `the registered governance agent at ${hostOf(url)} is refused by the SSRF rule (${refused})` };
  const { Client } = agentPackage<{ Client: new (info: { name: string; version: string }) => McpClient }>('@modelcontextprotocol/sdk/client/index.js', 'an online execution check (check_governance over MCP)');
  const { StreamableHTTPClientTransport } = agentPackage<{ StreamableHTTPClientTransport: new (url: URL, options: Record<string, unknown>) => unknown }>(
    '@modelcontextprotocol/sdk/client/streamableHttp.js',
    'an online execution check (check_governance over MCP)',
  );
  const headers: Record<string, string> = request.registration.credentials !== undefined ? { authorization: `Bearer ${request.registration.credentials}` } : {};
  const client = new Client({ name: 'adcp-governance-execution-check', version: '1' });
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch, requestInit: { headers, redirect: 'manual', signal } }));
    const args: Record<string, unknown> = {
      caller: request.caller,
      governance_context: request.intentToken,
      phase: request.phase,
      planned_delivery: request.plannedDelivery,
      ...(request.executionCommitment !== undefined ? { execution_commitment: request.executionCommitment } : {}),
    };
    const result = await client.callTool({ name: 'check_governance', arguments: args }, undefined, { signal, timeout: timeoutMs });
    return answerOf(result);
  } catch (e) {
    return { verdict: 'unavailable', reason: `check_governance at ${hostOf(url)} failed: ${(e as Error).name === 'TimeoutError' || signal.aborted ? 'timed out' : firstLine(e).slice(0, 200)}` };
  } finally {
    await client.close().catch(() => undefined);
  }
}

function answerOf(result: Record<string, unknown>): ExecutionAnswer {
  const body = (result.structuredContent ?? parseText(result.content)) as Record<string, unknown> | undefined;
  if (result.isError === true || body === undefined || body === null || typeof body !== 'object') {
    const code = (body?.adcp_error as { code?: unknown } | undefined)?.code;
    return { verdict: 'unavailable', reason: `check_governance answered an error${typeof code === 'string' ? ` (${code})` : ''}` };
  }
  const verdict = body.verdict ?? body.status;
  const checkId = typeof body.check_id === 'string' ? body.check_id : undefined;
  if (verdict === 'approved') {
    if (typeof body.governance_context !== 'string' || checkId === undefined) return { verdict: 'unavailable', reason: 'an approved execution check carried no governance_context or check_id' };
    return { verdict: 'approved', token: body.governance_context, checkId };
  }
  const explanation = typeof body.explanation === 'string' ? body.explanation : 'the governance agent did not approve the planned delivery';
  if (verdict === 'denied') return { verdict: 'denied', ...(checkId !== undefined ? { checkId } : {}), explanation, ...(body.findings !== undefined ? { findings: body.findings } : {}) };
  if (verdict === 'conditions') return { verdict: 'denied', ...(checkId !== undefined ? { checkId } : {}), explanation: `conditions cannot authorize an execution: ${explanation}` };
  return { verdict: 'unavailable', reason: `check_governance answered no verdict (${JSON.stringify(verdict)})` };
}

function parseText(content: unknown): unknown {
  const first = Array.isArray(content) ? (content[0] as { type?: unknown; text?: unknown } | undefined) : undefined;
  if (first?.type !== 'text' || typeof first.text !== 'string') return undefined;
  try {
    return JSON.parse(first.text);
  } catch {
    return undefined;
  }
}

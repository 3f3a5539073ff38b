import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Walk } from '../real/agent-walks.js';

/**
 * Drives a reference agent's walk (test/real/agent-walks.ts) with the official MCP client over Streamable HTTP: every
 * call must be answered with success, `structuredContent` the same JSON as the text content and the caller's
 * `context` echoed; then every tool the walk called gets an invalid variant of the request it answered (one declared
 * property given a value of the wrong type), which must be INVALID_REQUEST with the context echoed — the compliance
 * controller answers in its own vocabulary, `success: false` with INVALID_PARAMS. Returns the tools the walk reached,
 * for the caller to compare with what the profile serves, and the problems found (empty when all held).
 */
type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, any> };
type Validator = { validateRequest(tool: string, args: unknown): { ok: boolean } };

export async function walkOverMcp(url: string, apiKey: string, walk: Walk, agent: Validator): Promise<{ called: string[]; problems: string[] }> {
  const client = new Client({ name: 'reference-walk', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  const problems: string[] = [];
  const answered = new Map<string, Record<string, unknown>>();
  const invoke = async (tool: string, args: Record<string, unknown>): Promise<ToolResult> => (await client.callTool({ name: tool, arguments: args })) as ToolResult;
  try {
    let n = 0;
    await walk(async (tool, args) => {
      const context = { walk: tool, n: n++ };
      const r = await invoke(tool, { ...args, context });
      const body = r.structuredContent ?? {};
      if (r.isError === true || body.adcp_error !== undefined || body.success === false) throw new Error(`${tool}: ${r.content[0]?.text.slice(0, 1500)}`);
      if (JSON.stringify(body) !== JSON.stringify(JSON.parse(r.content[0]!.text))) problems.push(`${tool}: structuredContent differs from the text content`);
      if (JSON.stringify(body.context) !== JSON.stringify(context)) problems.push(`${tool}: context not echoed (${JSON.stringify(body.context)})`);
      if (!answered.has(tool)) answered.set(tool, args);
      return body;
    });
    for (const [tool, args] of answered) {
      const bad = invalidVariant(agent, tool, args);
      if (bad === undefined) {
        problems.push(`${tool}: no invalid variant of ${JSON.stringify(args).slice(0, 200)} found`);
        continue;
      }
      const context = { walk: `${tool}-invalid` };
      const r = await invoke(tool, { ...bad, context });
      const body = r.structuredContent ?? {};
      const code = tool === 'comply_test_controller' ? (body.success === false ? body.error : undefined) : body.adcp_error?.code;
      const expected = tool === 'comply_test_controller' ? 'INVALID_PARAMS' : 'INVALID_REQUEST';
      if (code !== expected) problems.push(`${tool}: an invalid request was answered ${r.content[0]?.text.slice(0, 400)}`);
      if (JSON.stringify(body.context) !== JSON.stringify(context)) problems.push(`${tool}: context not echoed on rejection`);
    }
  } finally {
    await client.close();
  }
  return { called: [...answered.keys()], problems };
}

/** The request with one property given a value of the wrong type, the first the generated validator refuses. */
function invalidVariant(agent: Validator, tool: string, args: Record<string, unknown>): Record<string, unknown> | undefined {
  const pins = new Set(['adcp_version', 'adcp_major_version', 'context']);
  for (const name of [...Object.keys(args).filter((k) => !pins.has(k)), 'ext']) {
    for (const wrong of [12345, 'not-a-valid-value', [12345]]) {
      const bad = { ...args, [name]: wrong };
      if (!agent.validateRequest(tool, bad).ok) return bad;
    }
  }
  return undefined;
}

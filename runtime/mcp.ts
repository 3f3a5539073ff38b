import { createRequire } from 'node:module';
import type { Agent, ToolHandler } from './agent-types.js';
import { callBound } from './results.js';

/**
 * Serves an agent's profile on an @modelcontextprotocol/sdk server. McpServer.registerTool takes zod schemas and
 * validates arguments itself (a bare -32602 on failure), so the registration goes underneath it, on the low-level
 * Server: tools/list answers with the precomputed entries (projected input and output schemas, annotations) and
 * tools/call runs the AdCP pipeline, which answers every schema failure as an AdCP INVALID_REQUEST and a call to a
 * tool the profile does not serve as an AdCP UNSUPPORTED_FEATURE.
 *
 * `handlers` is the set agent.registerMcp checked and completed (bindHandlers): one function per served tool.
 *
 * The SDK is the agent's own dependency: it is resolved when registerMcp is first used (agents that never serve MCP
 * need not install it), from the directory that holds the generated set, never from inside it. A set is committed
 * and reviewed as generated output; a `node_modules` planted in it (or in any of its directories) would otherwise
 * shadow the agent's SDK and run at registerMcp (issue 20). `--check` names such a directory too.
 */
export function registerMcp(agent: Agent, server: unknown, handlers: Record<string, ToolHandler<any, any, any>>): void {
  const low = lowLevelServer(server);
  const sdk = createRequire(new URL('../', import.meta.url))('@modelcontextprotocol/sdk/types.js') as McpTypes;

  low.registerCapabilities({ tools: { listChanged: false } });
  low.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: agent.endpointToolsList() }));
  low.setRequestHandler(sdk.CallToolRequestSchema, async (request: { params: { name: string; arguments?: unknown } }, extra: Record<string, unknown>) => {
    const { name, arguments: args } = request.params;
    // An unknown or unadvertised tool is an AdCP rejection (with the caller's context), not a bare JSON-RPC error.
    return callBound(agent, handlers, name, args ?? {}, { authInfo: extra.authInfo, sessionId: extra.sessionId, requestId: extra.requestId, signal: extra.signal });
  });
}

interface McpTypes {
  ListToolsRequestSchema: unknown;
  CallToolRequestSchema: unknown;
}

interface LowLevelServer {
  registerCapabilities(capabilities: Record<string, unknown>): void;
  setRequestHandler(schema: unknown, handler: (request: any, extra: any) => unknown): void;
}

function lowLevelServer(server: unknown): LowLevelServer {
  const candidate = server !== null && typeof server === 'object' && 'server' in server ? (server as { server: unknown }).server : server;
  if (candidate === null || typeof candidate !== 'object' || typeof (candidate as LowLevelServer).setRequestHandler !== 'function') {
    throw new Error('adcp-codegen: registerMcp needs an @modelcontextprotocol/sdk McpServer or Server');
  }
  return candidate as LowLevelServer;
}

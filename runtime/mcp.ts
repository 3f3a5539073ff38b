import { createRequire } from 'node:module';
import type { Agent, AnyToolHandler } from './agent-types.js';
import { callBound } from './results.js';

/**
 * Serves an agent's profile on an @modelcontextprotocol/sdk server. McpServer.registerTool takes zod schemas and
 * validates arguments itself (a bare -32602 on failure), so the registration goes underneath it, on the low-level
 * Server: tools/list answers with the precomputed entries (projected input and output schemas, annotations) and
 * tools/call runs the AdCP pipeline, which answers every schema failure as an AdCP INVALID_REQUEST and a call to a
 * tool the profile does not serve as an AdCP UNSUPPORTED_FEATURE.
 *
 * `handlers` is the set agent.registerMcp (or mcpServerFactory, once) checked and completed (bindHandlers): a handler
 * for every served tool.
 *
 * The SDK is the agent's own dependency: it is resolved from the generated set's location when registerMcp is
 * first used, so agents that never serve MCP need not install it.
 */
export function registerMcp(agent: Agent, server: unknown, handlers: Readonly<Record<string, AnyToolHandler>>): void {
  mcpRegistrar(agent, handlers)(server);
}

/**
 * What registers the agent on one server, made once: the SDK is resolved here, so a server factory made at start-up
 * fails then, not on the first request, when the agent's repository lacks it.
 */
export function mcpRegistrar(agent: Agent, handlers: Readonly<Record<string, AnyToolHandler>>): (server: unknown) => void {
  const sdk = createRequire(import.meta.url)('@modelcontextprotocol/sdk/types.js') as McpTypes;
  return (server) => register(agent, lowLevelServer(server), sdk, handlers);
}

function register(agent: Agent, low: LowLevelServer, sdk: McpTypes, handlers: Readonly<Record<string, AnyToolHandler>>): void {

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

import { createRequire } from 'node:module';
import type { Agent, AnyToolHandler } from '../api/agent-types.js';
import { isObject } from '../wire/json-copy.js';
import { callBound } from '../wire/results.js';
import { traceOf } from './call-trace.js';

/**
 * Serves an agent's profile on an @modelcontextprotocol/sdk server. McpServer.registerTool takes zod schemas and
 * validates arguments itself (a bare -32602 on failure), so the registration goes underneath it, on the low-level
 * Server: tools/list answers with the precomputed entries (projected input and output schemas, annotations) and
 * tools/call runs the AdCP pipeline, which answers every schema failure as an AdCP INVALID_REQUEST and a call to a
 * tool the profile does not serve as an AdCP UNSUPPORTED_FEATURE.
 *
 * `handlers` is the set agent.registerMcp (or mcpServerFactory, once) checked and completed (handlers.ts): a handler
 * for every served tool.
 *
 * The SDK is the agent's own dependency: it is resolved when registerMcp is first used (agents that never serve MCP
 * need not install it), from the directory that holds the generated set, never from inside it. A set is committed
 * and reviewed as generated output; a `node_modules` planted in it (or in any of its directories) would otherwise
 * shadow the agent's SDK and run at registerMcp (issue 20). `--check` names such a directory too.
 */
export function registerMcp(agent: Agent, server: unknown, handlers: Readonly<Record<string, AnyToolHandler>>): void {
  mcpRegistrar(agent, handlers)(server);
}

/**
 * What registers the agent on one server, made once: the SDK and its zod are resolved here, so a server factory made
 * at start-up (agent.mcpServerFactory) fails then, not on the first request, when the agent's repository lacks them.
 */
export function mcpRegistrar(agent: Agent, handlers: Readonly<Record<string, AnyToolHandler>>): (server: unknown) => void {
  const require = createRequire(new URL('../', import.meta.url));
  const sdk = require('@modelcontextprotocol/sdk/types.js') as McpTypes;
  const z = sdkZod(require.resolve('@modelcontextprotocol/sdk/types.js'));
  const callSchema = z.object({ method: z.literal('tools/call'), params: z.unknown().optional() });
  return (server) => register(agent, lowLevelServer(server), sdk, callSchema, handlers);
}

function register(agent: Agent, low: LowLevelServer, sdk: McpTypes, callSchema: unknown, handlers: Readonly<Record<string, AnyToolHandler>>): void {
  low.registerCapabilities({ tools: { listChanged: false } });
  low.setRequestHandler(sdk.ListToolsRequestSchema, () => ({ tools: agent.endpointToolsList() }));
  // The SDK's CallToolRequestSchema admits only an object as `arguments`: null, an array, a number or a string would
  // be refused before any of our code runs, as a JSON-RPC error carrying zod's dump (-32603 from the schema's parse,
  // -32602 from the Server's own re-validation of tools/call). AdCP wants that answered like any invalid request:
  // INVALID_REQUEST in a CallToolResult. So tools/call is registered with a schema that reads only the method, through
  // the Protocol's setRequestHandler (the Server's override is that re-validation and a check of the result, which
  // the pipeline's results pass by construction), and the pipeline reads params itself.
  protocolSetRequestHandler(low).call(low, callSchema, async (request: { params?: unknown }, extra: Record<string, unknown>) => {
    const params = request.params;
    const name = isObject(params) ? params.name : undefined;
    // No tool named: not a tool call at all, so not one AdCP can answer; the MCP error says what is missing, briefly.
    if (typeof name !== 'string') throw new sdk.McpError(sdk.ErrorCode.InvalidParams, 'tools/call: params.name must be the tool name (a string)');
    // Absent arguments are an empty object (MCP makes them optional); anything else, null included, goes to the
    // pipeline as sent, which answers a non-object with INVALID_REQUEST.
    const sent = (params as Record<string, unknown>).arguments;
    const args = sent === undefined ? {} : sent;
    // An unknown or unadvertised tool is an AdCP rejection (with the caller's context), not a bare JSON-RPC error.
    // The caller's trace context, from the request's headers (Streamable HTTP hands them over as requestInfo).
    const trace = traceOf((extra.requestInfo as { headers?: unknown } | undefined)?.headers);
    const ctx = { ...principalOf(extra.authInfo), authInfo: extra.authInfo, sessionId: extra.sessionId, requestId: extra.requestId, signal: extra.signal as AbortSignal | undefined };
    return callBound(agent, handlers, name, args, trace === undefined ? ctx : { ...ctx, trace });
  });
}

/**
 * The Protocol class's own setRequestHandler, beneath the Server's override: the deepest one on the server's
 * prototype chain, so it belongs to the very SDK copy the host's server was built from.
 */
function protocolSetRequestHandler(low: LowLevelServer): LowLevelServer['setRequestHandler'] {
  let found = low.setRequestHandler;
  for (let proto = Object.getPrototypeOf(low) as object | null; proto !== null; proto = Object.getPrototypeOf(proto) as object | null) {
    const own = Object.getOwnPropertyDescriptor(proto, 'setRequestHandler');
    if (own !== undefined && typeof own.value === 'function') found = own.value as LowLevelServer['setRequestHandler'];
  }
  return found;
}

/**
 * The SDK's own zod, resolved from the SDK (a schema of another zod copy is not one its parser knows): `zod/v4`, which
 * the SDK's schemas use and zod 3.25+ and 4 both ship, else an older zod's main export, which has the same three
 * constructors.
 */
function sdkZod(sdkTypes: string): ZodSubset {
  const fromSdk = createRequire(sdkTypes);
  try {
    return fromSdk('zod/v4') as ZodSubset;
  } catch {
    return fromSdk('zod') as ZodSubset;
  }
}

/** What registerMcp uses of zod: enough to say "tools/call, with any params". */
interface ZodSubset {
  object(shape: Record<string, unknown>): unknown;
  literal(value: string): unknown;
  unknown(): { optional(): unknown };
}

interface McpTypes {
  ListToolsRequestSchema: unknown;
  McpError: new (code: number, message: string) => Error;
  ErrorCode: { InvalidParams: number };
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

/**
 * The authenticated agent, from the MCP SDK's AuthInfo (the HTTP entry sets `clientId` to the authenticator's
 * principal, and `extra.principal` to the rest of what it said, the credential left out).
 */
function principalOf(authInfo: unknown): { principal?: string; auth?: Record<string, unknown> } {
  if (!isObject(authInfo) || typeof authInfo.clientId !== 'string' || authInfo.clientId === '') return {};
  const extra = isObject(authInfo.extra) && isObject(authInfo.extra.principal) ? authInfo.extra.principal : undefined;
  return { principal: authInfo.clientId, ...(extra !== undefined ? { auth: extra } : {}) };
}

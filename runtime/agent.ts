import { fileURLToPath } from 'node:url';
import type { Agent, AgentOptions, HandlerMap, Mode, ValidationResult } from './api/agent-types.js';
import type { ValidateFn } from './artifacts/contract.js';
import { declaredCredentialNames } from './artifacts/declared-names.js';
import { openServed } from './artifacts/served.js';
import { toolsLists } from './artifacts/tools-list.js';
import { Call, type CallEnv } from './call/call.js';
import { checkHandlers } from './call/handlers.js';
import { runCall } from './call/pipeline.js';
import { registerLog, runtimeLog } from './ops/log.js';
import { agentServices } from './services/agent-services.js';
import { builtinHandlers } from './services/builtins.js';
import { a2aSkills, createA2AExecutor } from './transports/a2a.js';
import { httpEntry } from './transports/http/entry.js';
import { serveHttp } from './transports/http/serve.js';
import { mcpRegistrar, registerMcp } from './transports/mcp.js';

// The Agent API's types and the rejection results, where the generated index.d.ts and earlier callers import them.
export type * from './api/agent-types.js';
export type * from './api/http-types.js';
export type * from './api/ops-types.js';
export type * from './api/signing-types.js';
export type * from './api/webhook-types.js';
export { errorResult, resultBody, UnknownToolError, unknownToolResult } from './wire/results.js';

/**
 * One profile of the generated set as an agent: its surface (releases, tools/list, capabilities, the artifacts one
 * by one) and `call`, the stages of call/pipeline.ts over it, which the transports serve.
 */
export async function createAgent(base: URL, name: string, options: AgentOptions = {}): Promise<Agent> {
  const mode: Mode = options.mode ?? 'production';
  if (mode !== 'production' && mode !== 'development') throw new Error(`adcp-codegen: mode must be "production" or "development"`);
  const served = openServed(fileURLToPath(base), name, mode);
  // Read on the first tools/list (a server's, at its start): a call alone never loads them.
  let made: ReturnType<typeof toolsLists> | undefined;
  const lists = () => (made ??= toolsLists(served));
  const log = runtimeLog(options.logger, name);
  const services = agentServices(served, options, log);
  const env: CallEnv = { served, authorize: options.authorize, log, services, declaredCredentials: declaredCredentialNames(served, { toolsList: (key) => lists().toolsList(key) }) };
  // Checked where a handler set is registered, once: a set that does not match the profile fails before any call.
  const bind = (handlers: HandlerMap<string>) =>
    checkHandlers(handlers, { name, tools: served.tools, releasesServing: served.releasesServing, builtins: builtinHandlers(served, services) });
  const agent: Agent = {
    name,
    mode,
    releases: served.releases.map((r) => r.key),
    defaultRelease: served.defaultRelease?.key,
    tools: (key) => [...served.release(key).tools],
    toolsList: (key) => lists().toolsList(key),
    endpointToolsList: () => lists().endpointToolsList(),
    capabilities: (key) => services.capabilities.of(served.release(key)),
    normalize: (tool, args, opts = {}) => served.normalize(served.requireTool(tool, opts.release))(args),
    strip: (tool, args, opts = {}) => served.strip(served.requireTool(tool, opts.release))(args),
    validateRequest: (tool, args, opts = {}) => validateWith(served.request(served.requireTool(tool, opts.release)), args),
    validateResponse: (tool, body, opts = {}) => validateWith(served.response(served.requireTool(tool, opts.release)), body),
    call: (tool, args, handler, ctx = {}) => runCall(new Call(env, tool, args, handler, ctx)),
    registerMcp: (server, handlers) => registerMcp(agent, server, bind(handlers as HandlerMap<string>)),
    mcpServerFactory(handlers, create) {
      const registerOn = mcpRegistrar(agent, bind(handlers as HandlerMap<string>));
      if (typeof create !== 'function') throw new Error('adcp-codegen: mcpServerFactory needs a function that creates an McpServer');
      return () => {
        const server = create();
        registerOn(server);
        return server;
      };
    },
    a2aExecutor: (handlers, a2aOptions) => createA2AExecutor(agent, bind(handlers as HandlerMap<string>), a2aOptions),
    a2aSkills: (release) => a2aSkills(agent, release),
    requestSignatures: services.requestSignatures,
    httpHandler: (handlers, httpOptions) => httpEntry(agent, services, () => lists().endpointToolsJson(), bind(handlers as HandlerMap<string>), httpOptions),
    serve: (handlers, serveOptions) => serveHttp(agent, () => agent.httpHandler(handlers, serveOptions), services, serveOptions),
    ready: services.ready,
    close: services.close,
    task: (taskId) => services.tasks.handle(taskId),
    webhooks: services.webhooks,
    wellKnown: async (path) => services.signing?.publication.wellKnown(path),
  };
  registerLog(agent, log);
  return agent;
}

function validateWith(validate: ValidateFn, value: unknown): ValidationResult {
  const result = validate(value); // wrapValidator turns a stack overflow on absurd nesting into ok: false
  return result.ok ? { ok: true, value: value as Record<string, unknown> } : { ok: false, issues: result.issues };
}

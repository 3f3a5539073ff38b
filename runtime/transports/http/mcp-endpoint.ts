import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent, AnyToolHandler } from '../../api/agent-types.js';
import type { HttpOptions } from '../../api/http-types.js';
import { mcpRegistrar } from '../mcp.js';
import { agentRequire } from './packages.js';
import { toolsListFastPath } from './tools-list-fast.js';

/**
 * MCP Streamable HTTP at `/mcp`, stateless: a fresh low-level Server and transport per POST (the SDK's stateless
 * pattern; a transport serves one request), registered through mcpRegistrar, which checked the handler set once
 * when the entry was made. JSON responses (`enableJsonResponse`): every AdCP call answers once, so an SSE stream
 * would only wrap one message. The body was read and parsed by the entry (authentication needed it): the transport
 * is handed the parsed message, and the principal as `req.auth`.
 */

export interface McpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, message: unknown): Promise<void>;
}

interface McpServerSdk {
  Server: new (info: { name: string; version: string }, options: Record<string, unknown>) => { connect(t: unknown): Promise<void>; close(): Promise<void> };
  StreamableHTTPServerTransport: new (options: Record<string, unknown>) => {
    handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
    close(): Promise<void>;
  };
}

export function mcpEndpoint(agent: Agent, toolsJson: () => string, handlers: Readonly<Record<string, AnyToolHandler>>, options: HttpOptions): McpEndpoint {
  const require = agentRequire();
  const { Server } = require('@modelcontextprotocol/sdk/server/index.js') as Pick<McpServerSdk, 'Server'>;
  const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js') as Pick<McpServerSdk, 'StreamableHTTPServerTransport'>;
  const registerOn = mcpRegistrar(agent, handlers);
  const info = { name: options.mcp?.name ?? agent.name, version: options.mcp?.version ?? '1.0.0' };
  const jsonSchemaValidator = sharedValidator(require);
  const fastPath = toolsListFastPath(require, toolsJson);
  return {
    async handle(req, res, message) {
      if (fastPath(req, res, message)) return;
      const server = new Server(info, { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator });
      registerOn(server);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close().catch(() => undefined);
        void server.close().catch(() => undefined);
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, message);
    },
  };
}

/**
 * One JSON Schema validator for every per-request Server. The SDK's Server otherwise makes its own Ajv instance in
 * its constructor (measured: 38% of the CPU of a stateless request), for elicitation, which an AdCP agent never
 * sends; this one makes the SDK's Ajv provider on first use, if ever.
 */
function sharedValidator(require: (id: string) => unknown): { getValidator(schema: unknown): unknown } {
  let provider: { getValidator(schema: unknown): unknown } | undefined;
  return {
    getValidator(schema) {
      if (provider === undefined) {
        const { AjvJsonSchemaValidator } = require('@modelcontextprotocol/sdk/validation/ajv') as { AjvJsonSchemaValidator: new () => { getValidator(schema: unknown): unknown } };
        provider = new AjvJsonSchemaValidator();
      }
      return provider.getValidator(schema);
    },
  };
}

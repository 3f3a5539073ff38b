import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent, AnyToolHandler } from '../../api/agent-types.js';
import type { HttpOptions } from '../../api/http-types.js';
import type { Admission, Refusal } from '../../call/admission.js';
import { mcpRegistrar } from '../mcp.js';
import { agentRequire } from './packages.js';
import { toolsListFastPath } from './tools-list-fast.js';

/**
 * MCP Streamable HTTP at `/mcp`, stateless: a fresh low-level Server and transport per POST (the SDK's stateless
 * pattern; a transport serves one request), registered through mcpRegistrar, which checked the handler set once
 * when the entry was made. JSON responses (`enableJsonResponse`): every AdCP call answers once, so an SSE stream
 * would only wrap one message. The body was read and parsed by the entry (a signature's digest needs its bytes): the
 * SDK's web-standard transport is handed the parsed message and the principal, and its Response is held until every
 * message of the request has been dispatched. What needs credentials is decided on the SDK's own reading: each
 * message as it dispatches it (`gateMessages`: a protocol method), and each tools/call in the call's stages, on the
 * tool its handler runs (call/admit.ts). When any part of the request was refused (a batch: any member), the request
 * is answered 401 instead of the SDK's Response, whose refused parts ran nothing.
 */

export interface McpEndpoint {
  handle(req: IncomingMessage, res: ServerResponse, message: unknown, admission: Admission): Promise<void>;
}

/** What answers a refused request (the entry's 401). */
export type Refuse = (res: ServerResponse, refusal: Refusal, label: string) => void;

/** What the web-standard transport reads of a request handed a parsed body: its method, URL and headers. */
type WebRequest = Pick<Request, 'method' | 'url' | 'headers'>;

interface Transport {
  onmessage?: (message: Record<string, unknown>, extra?: unknown) => void;
  send(message: unknown): Promise<void>;
  handleRequest(req: WebRequest, options: { parsedBody?: unknown; authInfo?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

interface McpServerSdk {
  Server: new (info: { name: string; version: string }, options: Record<string, unknown>) => { connect(t: unknown): Promise<void>; close(): Promise<void> };
  WebStandardStreamableHTTPServerTransport: new (options: Record<string, unknown>) => Transport;
}

/** The methods an anonymous caller may use: the handshake and discovery (tools/call is admitted by its tool). */
const PUBLIC_METHODS: ReadonlySet<string> = new Set(['initialize', 'ping', 'tools/list']);

export function mcpEndpoint(agent: Agent, toolsJson: () => string, handlers: Readonly<Record<string, AnyToolHandler>>, options: HttpOptions, refuse: Refuse): McpEndpoint {
  const require = agentRequire();
  const { Server } = require('@modelcontextprotocol/sdk/server/index.js') as Pick<McpServerSdk, 'Server'>;
  const { WebStandardStreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js') as Pick<McpServerSdk, 'WebStandardStreamableHTTPServerTransport'>;
  const registerOn = mcpRegistrar(agent, handlers);
  const info = { name: options.mcp?.name ?? agent.name, version: options.mcp?.version ?? '1.0.0' };
  const jsonSchemaValidator = sharedValidator(require);
  const fastPath = toolsListFastPath(require, toolsJson);
  return {
    async handle(req, res, message, admission) {
      const label = `${req.method ?? '?'} ${req.url ?? ''}`;
      const fast = fastPath(req, message, () => admission.method(['tools/list'], true) === undefined);
      if (fast === 'refused') return refuse(res, admission.refusal!, label);
      if (fast !== undefined) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(fast.reduce((n, b) => n + b.length, 0)) });
        for (const chunk of fast) res.write(chunk);
        return void res.end();
      }
      const server = new Server(info, { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator });
      registerOn(server, admission);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      // A client gone aborts the handlers still running (the SDK's Protocol aborts their signals when it closes). A
      // request answered has none left: its server and transport are garbage, and closing them would only have the
      // SDK build its "connection closed" error (a stack trace) for no one.
      res.on('close', () => {
        if (res.writableFinished) return;
        void transport.close().catch(() => undefined);
        void server.close().catch(() => undefined);
      });
      await server.connect(transport);
      gateMessages(transport, admission);
      const response = await unlessClosed(res, transport.handleRequest(webRequest(req), { parsedBody: message, authInfo: (req as IncomingMessage & { auth?: unknown }).auth }));
      // The client went away first: nobody to answer, and nothing left waiting on the SDK.
      if (response === undefined) return;
      const refusal = admission.settle();
      if (refusal !== undefined) return refuse(res, refusal, label);
      const body = Buffer.from(await response.arrayBuffer());
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      if (response.status !== 202 && response.status !== 204) headers['content-length'] = String(body.length);
      res.writeHead(response.status, headers).end(body);
    },
  };
}

/**
 * The SDK's Response, or undefined when the client goes away first. One promise, and the listener removed once the
 * Response comes (a race with a promise of the close would leave one of each behind a call).
 */
function unlessClosed(res: ServerResponse, answering: Promise<Response>): Promise<Response | undefined> {
  return new Promise((resolve, reject) => {
    const gone = (): void => resolve(undefined);
    res.once('close', gone);
    answering.then(
      (response) => {
        res.off('close', gone);
        resolve(response);
      },
      (e: unknown) => {
        res.off('close', gone);
        reject(e);
      },
    );
  });
}

/**
 * Each JSON-RPC message as the SDK's transport parsed it, on its way to the SDK's dispatch: a protocol method is
 * admitted here (the signing policy's methods; credentials for anything but the handshake and discovery), and a
 * refused request is answered with an error in its stead, never dispatched. tools/call goes on to its handler, which
 * admits the tool it runs. A refused notification is dropped, and so is every cancellation (see below).
 */
function gateMessages(transport: Transport, admission: Admission): void {
  const dispatch = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const method = message.method;
    // Stateless, a cancellation can only name a request of its own POST, which the SDK would then never answer: the
    // whole JSON response would wait for it forever. Every AdCP call answers once; a cancellation is ignored.
    if (method === 'notifications/cancelled') return;
    if (typeof method === 'string' && method !== 'tools/call') {
      const request = message.id !== undefined;
      if (admission.method([method], !request || PUBLIC_METHODS.has(method)) !== undefined) {
        if (request) void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: -32001, message: 'Unauthorized' } }).catch(() => undefined);
        return;
      }
    }
    dispatch?.(message, extra);
  };
}

/**
 * The request as the web-standard transport reads it when handed the parsed body: POST, the headers it checks (Accept,
 * Content-Type, the MCP protocol version) as received, in a real `Headers`, and a URL of its own (it reaches handlers
 * only as `requestInfo`, which no AdCP handler reads). Not a whole `Request`: constructing one costs ~25 µs a call for a
 * body and signal the transport never reads here (as @hono/node-server's listener, which the SDK's Node transport
 * wraps, makes its Request lazily for the same reason).
 */
function webRequest(req: IncomingMessage): WebRequest {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    try {
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    } catch {
      // A value node accepted and fetch's Headers does not: not one the transport reads.
    }
  }
  return { method: 'POST', url: new URL(req.url ?? '/', 'http://mcp.local').href, headers };
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

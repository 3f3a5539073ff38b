import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { A2ASkill, A2ATaskStore } from '../../api/a2a-types.js';
import type { Agent, AnyToolHandler } from '../../api/agent-types.js';
import type { AuthPrincipal, AuthScheme, HttpOptions } from '../../api/http-types.js';
import type { AgentServices } from '../../services/agent-services.js';
import { isObject } from '../../wire/json-copy.js';
import { createA2AExecutor } from '../a2a.js';
import { v03Card, v1Card } from './a2a-card.js';
import { dialectOf, type Dialect } from './a2a-dialects.js';
import { withoutToken } from './authenticate.js';
import { agentRequire, isMissing } from './packages.js';
import { sendJson } from './respond.js';
import { firstLine } from '../../wire/report.js';
import { logOf, type RuntimeLog } from '../../ops/log.js';
import { carryTrace, traceOf } from '../call-trace.js';

/**
 * A2A on the entry's port: JSON-RPC at `/a2a` through @a2a-js/sdk's JsonRpcTransportHandler and
 * DefaultRequestHandler (the agent's own SDK, 0.3.x or 1.x, resolved as the MCP SDK is), the executor of
 * agent.a2aExecutor, the agent's durable task store (services/tasks/a2a-tasks.ts), and the agent card at
 * `/.well-known/agent-card.json`. No Express: the entry already read and authenticated the request; this builds the
 * SDK's call context with the principal as its User (the executor reads it into `ctx.principal`) and answers JSON, or
 * SSE for message/stream.
 */

export interface A2AEndpoint {
  card(req: IncomingMessage, res: ServerResponse): void;
  handle(req: IncomingMessage, res: ServerResponse, message: unknown, principal: AuthPrincipal | undefined): Promise<void>;
  readonly store: A2ATaskStore;
  readonly major: 0 | 1;
}

/**
 * The SDK's User for an authenticated call: `userName` is the principal (the task store scopes Tasks by it), `auth`
 * what the authenticator said of it, the credential left out.
 */
export class PrincipalUser {
  constructor(
    readonly userName: string,
    readonly auth: Omit<AuthPrincipal, 'token'>,
  ) {}
  get isAuthenticated(): boolean {
    return true;
  }
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' };

export function a2aEndpoint(
  agent: Agent,
  services: Pick<AgentServices, 'a2aTaskStore'>,
  handlers: Readonly<Record<string, AnyToolHandler>>,
  options: HttpOptions,
  schemes: readonly AuthScheme[],
): A2AEndpoint | undefined {
  if (options.a2a === false) return undefined;
  const given = options.a2a ?? {};
  const pkg = given.package ?? '@a2a-js/sdk';
  const require = agentRequire();
  let server: Record<string, unknown>;
  try {
    server = require(`${pkg}/server`) as Record<string, unknown>;
  } catch (e) {
    // Not asked for and not installed: an MCP-only agent.
    if (options.a2a === undefined && isMissing(e, `${pkg}/server`)) return undefined;
    throw new Error(`adcp-codegen: A2A needs ${pkg} (^0.3.14 or ^1.3.0) installed beside the agent (or a2a: false): ${firstLine(e)}`);
  }
  const dialect = dialectOf(server, () => require(`${pkg}/compat/v0_3/server`) as Record<string, unknown>);
  const log = logOf(agent);
  const executor = createA2AExecutor(agent, handlers, { rejectedTaskState: given.rejectedTaskState });
  // The agent's own store, durable and bounded (an AdCP task settling later shows on its A2A Task); `taskStore` overrides it.
  const store = given.taskStore ?? services.a2aTaskStore({ maxTasks: given.maxTasks, ttlMs: given.taskTtlMs });
  let skills: A2ASkill[] | undefined;
  const cardAt = (base: string, legacy: boolean): Record<string, unknown> =>
    (legacy ? v03Card : v1Card)({ base, name: agent.name, skills: (skills ??= agent.a2aSkills()), schemes, given: given.card });
  // The request handler holds the card it serves under (its capabilities, its 1.0 interfaces): made on first use,
  // with the address the first request reached.
  let handlerCard: Record<string, unknown> | undefined;
  const ready = (req: IncomingMessage): Record<string, unknown> => {
    if (handlerCard === undefined) {
      handlerCard = cardAt(baseOf(req, options.publicUrl), dialect.major === 0);
      dialect.bind(new dialect.DefaultRequestHandler(handlerCard, store, executor));
    }
    return handlerCard;
  };
  return {
    store,
    major: dialect.major,
    card(req, res) {
      sendJson(res, 200, cardAt(baseOf(req, options.publicUrl), dialect.legacyCard(req)), dialect.major === 1 ? { vary: 'A2A-Version' } : {});
    },
    async handle(req, res, message, principal) {
      const card = ready(req);
      const user = principal === undefined ? new dialect.UnauthenticatedUser() : new PrincipalUser(principal.principal, withoutToken(principal));
      carryTrace(user, traceOf(req.headers));
      const id = isObject(message) && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : null;
      let out: unknown;
      try {
        out = await dialect.handle(req, message, user, card);
      } catch (e) {
        // Thrown before the SDK answered (1.x's version negotiation, a failure of the SDK itself): mapped as its Express
        // handler maps it, a fault of the server being a 500.
        const error = dialect.errorOf(req, e);
        sendJson(res, error.code === -32603 ? 500 : 200, withoutInternals({ jsonrpc: '2.0', id, error }, log));
        return;
      }
      if (isAsyncIterable(out)) await stream(req, res, out, id, dialect);
      else sendJson(res, 200, withoutInternals(out, log));
    },
  };
}

/**
 * A JSON-RPC internal error as the client may see it: the SDK puts the thrown error's own message there (a task
 * store's connection string, a path); the process's warnings get it, the client generic words.
 */
function withoutInternals(response: unknown, log: RuntimeLog): unknown {
  if (!isObject(response) || !isObject(response.error) || response.error.code !== -32603) return response;
  log.error('a2a_internal_error', `adcp-codegen: A2A internal error: ${String(response.error.message)}`);
  return { ...response, error: { code: -32603, message: 'Internal error' } };
}

/** message/stream and tasks/resubscribe: the first event (or the error before any) decides between SSE and a JSON error. */
async function stream(req: IncomingMessage, res: ServerResponse, events: AsyncIterable<unknown>, id: string | number | null, dialect: Dialect): Promise<void> {
  const iterator = events[Symbol.asyncIterator]();
  let next: IteratorResult<unknown>;
  try {
    next = await iterator.next();
  } catch (e) {
    sendJson(res, 200, { jsonrpc: '2.0', id, error: dialect.errorOf(req, e) });
    return;
  }
  res.writeHead(200, SSE_HEADERS);
  res.on('close', () => void iterator.return?.().catch(() => undefined));
  try {
    while (next.done !== true && !res.destroyed) {
      res.write(`data: ${JSON.stringify(next.value)}\n\n`);
      next = await iterator.next();
    }
  } catch (e) {
    if (!res.destroyed) res.write(`event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: dialect.errorOf(req, e) })}\n\n`);
  } finally {
    if (!res.writableEnded) res.end();
  }
}

/**
 * `publicUrl`, else the address the request reached (the socket's, never the Host header a client chose), over TLS
 * when the socket is.
 */
function baseOf(req: IncomingMessage, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return publicUrl.replace(/\/+$/, '');
  const { localAddress, localPort } = req.socket;
  let host = localAddress ?? '127.0.0.1';
  if (host.startsWith('::ffff:')) host = host.slice('::ffff:'.length); // an IPv4 client of a dual-stack socket
  const scheme = (req.socket as TLSSocket).encrypted === true ? 'https' : 'http';
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${localPort}`;
}

function isAsyncIterable(v: unknown): v is AsyncIterable<unknown> {
  return v !== null && typeof v === 'object' && typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';
}

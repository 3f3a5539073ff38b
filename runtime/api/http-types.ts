import type { A2AExecutorOptions, A2ATaskStore } from './a2a-types.js';

/**
 * The HTTP entry's API (transports/http/): one handler serving MCP Streamable HTTP at `/mcp` and A2A (JSON-RPC at
 * `/a2a`, the agent card at `/.well-known/agent-card.json`) on one port, with authentication before any pipeline
 * work. Types only, structural: the generated set imports nothing from node:http's users or @adcp/sdk, and its
 * declarations need no @types/node (an agent compiles them with `types: []` as well: test/helpers/typecheck.ts).
 */

/**
 * A request as the entry's callers hand it over: node:http's IncomingMessage, Express's Request, seen through what
 * an authenticator reads of it.
 */
export interface HttpRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly method?: string;
  readonly url?: string;
}

/** The response beside it: node:http's ServerResponse, Express's Response. */
export interface HttpResponse {
  readonly headersSent: boolean;
}

/**
 * Who is calling, as an authenticator says: @adcp/sdk/server's `AuthPrincipal` (`verifyApiKey`, `verifyBearer` and
 * `anyOf` return it), or what any function of the agent's own returns. `principal` identifies the authenticated
 * agent: it scopes idempotency keys and reaches `authorize` and every handler as `ctx.principal`.
 */
export interface AuthPrincipal {
  principal: string;
  /** The credential that authenticated the request. Never logged, never echoed. */
  token?: string;
  scopes?: string[];
  expiresAt?: number;
  [key: string]: unknown;
}

/**
 * Authenticates one HTTP request from its headers (the body is not read yet): a principal, `null` for "no
 * credentials of mine here" (the next authenticator, or 401), or a throw for "credentials presented and refused"
 * (401 `invalid_token`). @adcp/sdk/server's `verifyApiKey({ keys })`, `verifyBearer({ jwksUri, issuer, audience })`
 * and `anyOf(...)` are Authenticators, and so is `basicAuth(...)` from this runtime.
 */
export type Authenticator = {
  // A method's parameter is compared both ways: a function of node:http's IncomingMessage (verifyApiKey's) is an
  // Authenticator, and one written here reads `req.headers` without @types/node.
  authenticate(req: HttpRequest): AuthPrincipal | null | Promise<AuthPrincipal | null>;
}['authenticate'];

/** The HTTP authentication schemes a 401 may offer (`WWW-Authenticate`). */
export type AuthScheme = 'Bearer' | 'Basic';

/** basicAuth's users: user name → the password it must present and the principal it authenticates as. */
export type BasicUsers = Readonly<Record<string, { readonly password: string; readonly principal: string }>>;

/** Static API keys: key → the principal it authenticates (`apiKeyAuth`). */
export type ApiKeys = Readonly<Record<string, { readonly principal: string }>>;

export interface HttpLimits {
  /** Largest request body read, in bytes (default 4 MiB): larger is 413 before any pipeline work. */
  bodyBytes?: number;
  /** Time to receive a whole request body once its headers are in, in ms (default 30 s): slower is 408. */
  bodyTimeoutMs?: number;
}

/**
 * A2A at `/a2a` and its agent card. The executor options as agent.a2aExecutor takes them, and:
 * - `card`: fields merged over the card the entry builds (name, description, version, provider …);
 * - `package`: the module name @a2a-js/sdk is installed under in the agent (default `@a2a-js/sdk`; 0.3.x or 1.x);
 * - the A2A Tasks are kept in the agent's own store (PostgreSQL or the embedded one: durable, shared by every instance,
 *   scoped to the principal), bounded by `maxTasks` (default 10,000; a periodic purge keeps the newest) and
 *   `taskTtlMs` (default 24 hours after a Task's last save); an AdCP task an A2A call made (`ctx.task()`) shows its end
 *   on that call's Task once it settles; `taskStore`: another store instead (an in-memory one for tests).
 */
export interface A2AHttpOptions extends A2AExecutorOptions {
  card?: Record<string, unknown>;
  package?: string;
  maxTasks?: number;
  taskTtlMs?: number;
  taskStore?: A2ATaskStore;
}

export interface HttpOptions {
  /**
   * Authenticates every request before any pipeline work. Absent: no authentication (a development server; `serve`
   * warns). A protected call without credentials, or with refused ones, is HTTP 401 with `WWW-Authenticate`, over
   * MCP and A2A alike.
   */
  authenticate?: Authenticator;
  /**
   * The schemes a 401 offers in `WWW-Authenticate`. Default: Bearer, and Basic too when `authenticate` is
   * basicAuth(...) (or a function carrying its mark); name them when an authenticator of your own composes them.
   */
  challenges?: readonly AuthScheme[];
  /** The realm a 401's challenges name (default `adcp`). */
  realm?: string;
  /**
   * Tools a caller may use without credentials (AdCP's tiered model: discovery is public). Default
   * `['get_adcp_capabilities']`. MCP's initialize, tools/list and ping, and the A2A agent card, are public too.
   */
  publicTools?: readonly string[];
  /**
   * RFC 9728 protected-resource metadata, served at `/.well-known/oauth-protected-resource/mcp` and named in the 401's
   * `WWW-Authenticate` (`resource_metadata`), only when an OAuth authorization server really issues the bearer
   * tokens this agent accepts: `{ resource: 'https://agent.example/mcp', authorizationServers: ['https://issuer'] }`.
   */
  protectedResource?: { resource: string; authorizationServers: readonly string[]; scopesSupported?: readonly string[] };
  limits?: HttpLimits;
  /** The MCP server's name and version in its initialize answer (default: the profile's name, 1.0.0). */
  mcp?: { name?: string; version?: string };
  /**
   * A2A at `/a2a` and the agent card, with @a2a-js/sdk resolved from the agent's own dependencies; `false` serves
   * MCP alone. Default: served when @a2a-js/sdk is installed.
   */
  a2a?: false | A2AHttpOptions;
  /** The public base URL the agent card and the protected-resource metadata name (default: from the listening address). */
  publicUrl?: string;
}

/** A request handler for node:http's `createServer` and Express (`app.use(handler)`): `next` is called for paths it does not serve. */
export type HttpHandler = (req: HttpRequest, res: HttpResponse, next?: (error?: unknown) => void) => Promise<void>;

export interface ServeOptions extends HttpOptions {
  /** Default: `PORT`, else 3000. */
  port?: number;
  /** Default: `HOST`, else 127.0.0.1. */
  host?: string;
  /** Default 65 s: longer than the 60 s idle timeout of common proxies and load balancers, so they close first. */
  keepAliveTimeoutMs?: number;
  /** Default 10 s: a client slower than this to send its request headers is cut off (Node's own default is 60 s). */
  headersTimeoutMs?: number;
  /** Default 30 s: the whole request, headers and body (Node's own default is 300 s). */
  requestTimeoutMs?: number;
  /** Default 1,024 open connections; more are refused at accept. */
  maxConnections?: number;
  /**
   * Serve HTTPS with this certificate chain and private key (PEM), for an agent that terminates TLS itself rather
   * than behind a proxy. Default: the files `ADCP_TLS_CERT_FILE` and `ADCP_TLS_KEY_FILE` name, when both are set;
   * else plain HTTP.
   */
  tls?: { cert: string | Uint8Array; key: string | Uint8Array };
  /**
   * Default true: SIGTERM and SIGINT drain the server (as `close()` does), then the process exits 0. `false` for an
   * agent that owns its signals: it calls `close()` itself.
   */
  handleSignals?: boolean;
  /** Default 10 s: how long calls in flight may finish once a drain has closed the listener; the rest are cut. */
  drainTimeoutMs?: number;
  /**
   * Default 0: how long a drain keeps serving, readiness answering 503 `draining`, before it closes the listener — for
   * load balancers that stop routing only once a probe saw it (Kubernetes: a few seconds, or a preStop sleep).
   */
  drainDelayMs?: number;
}

/** A running server: where it listens, and how to stop it (docs/operating.md, the drain; the store released after). */
export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** Drains: readiness off, no new connections, calls in flight finished up to `drainTimeoutMs`, the store released. */
  close(): Promise<void>;
}

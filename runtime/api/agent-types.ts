import type { A2AExecutor, A2AExecutorOptions, A2ASkill } from './a2a-types.js';
import type { AuthPrincipal, HttpHandler, HttpOptions, RunningServer, ServeOptions } from './http-types.js';
import type { IdempotencyOptions, StoreOption } from './service-types.js';
import type { RequestSignatureVerifier, SigningOptions } from './signing-types.js';
import type { AdcpError } from '../wire/errors.js';
import type { AppliedNormalization, Issue, NormalizeResult, StripResult } from '../artifacts/contract.js';

/**
 * The Agent API: what createAgent returns, what a tool handler receives and returns, and the MCP shapes the
 * transports answer with. Types only, so the transports (mcp.ts, a2a.ts) and the agent (agent.ts) all depend on
 * this module, never on each other.
 */

export type Mode = 'production' | 'development';

export interface AgentOptions {
  /** production (default): unknown fields at closed objects are stripped. development: they are rejected, and every
   * response is validated against its schema before it is sent. */
  mode?: Mode;
  /**
   * Runs after validation with the parsed value (what the handler will see), before the handler. Throw an AdcpError
   * to reject. Never sees the raw arguments: authorization decides on exactly what will be executed.
   */
  authorize?: (tool: string, value: Record<string, unknown>, ctx: HandlerContext) => void | Promise<void>;
  /** Where durable protocol state lives (idempotency records …); default from `DATABASE_URL` / `ADCP_STATE_DIR`. */
  store?: StoreOption;
  idempotency?: IdempotencyOptions;
  /** Whose RFC 9421 signatures the agent accepts, when its profile advertises `request_signing` (docs/signing.md). */
  signing?: SigningOptions;
}

/** Per-call information from the transport (auth, request id …), passed through to the handler. */
export interface CallContext {
  /**
   * The authenticated agent calling (the HTTP entry's authenticator said so): idempotency keys are scoped to it.
   * Absent on an unauthenticated call.
   */
  principal?: string;
  /** What the authenticator returned, the credential itself left out. */
  auth?: Omit<AuthPrincipal, 'token'>;
  /** Aborted when the call is abandoned (the handler timeout, the client gone). */
  signal?: AbortSignal;
  [key: string]: unknown;
}

export interface HandlerContext<Release extends string = string> extends CallContext {
  readonly tool: string;
  /** The release that serves this call (`3.2`); it labels the response, and the body is checked against its schema. */
  readonly release: Release;
  readonly mode: Mode;
  /** Deprecated fields translated on the way in. */
  readonly normalized: readonly AppliedNormalization[];
  /** Unknown fields stripped on the way in (production). */
  readonly stripped: readonly string[];
  /**
   * Set when a batch tool answered some items itself, as failed rows (their own schema refused them): per such
   * array, the request index of each item this handler receives — `requestIndex.accounts[k]` for its k-th account.
   * The handler answers the items it receives one row each, in that order, first (runtime/items.ts); the runtime
   * puts the failed rows at their request positions.
   */
  readonly requestIndex?: Readonly<Record<string, readonly number[]>>;
}

/**
 * What a handler returns: the task's response body, or an AdcpError. The envelope (`status`, `adcp_version`,
 * `context`) is the runtime's: `adcp_version` names the release that answered, `context` is the caller's, and
 * `status` is `completed` unless the body is one the task defines with another status (an async `submitted`, a
 * typed `rejected` arm), which the handler states.
 */
export type ToolHandler<Args = Record<string, unknown>, Result = Record<string, unknown>, Release extends string = string> = (
  args: Args,
  ctx: HandlerContext<Release>,
) => Result | AdcpError | Promise<Result | AdcpError>;

/**
 * One handler per release the tool is served in (`{ '3.2-beta.5': …, '3.0': … }`, keyed by wire version), each typed by its own release's request
 * and response; the runtime calls the one for the release the buyer pinned.
 */
export type PerReleaseHandlers = { readonly [release: string]: ToolHandler<any, any, any> };

/** A tool's handler: one function for every release, or one per release. */
export type AnyToolHandler = ToolHandler<any, any, any> | PerReleaseHandlers;

export type ValidationResult<T = Record<string, unknown>> = { ok: true; value: T } | { ok: false; issues: Issue[] };

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolsListEntry {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  /** Present only when the profile advertises output schemas (`advertise.outputSchema`). */
  outputSchema?: Record<string, unknown>;
  annotations: ToolAnnotations;
}

/** The MCP CallToolResult shape (structural, so no MCP SDK import is needed here). */
export interface CallToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ReleaseOption {
  release?: string;
}

/**
 * `T` with the fields at `Paths` made optional: each path is property names joined by `/`, `*` standing for the
 * elements of an array (`packages/*\/bidding`). A handler written in a newer release's shape receives, from a buyer
 * pinned to an older release, the newer request with the fields the older one does not send made optional this way.
 */
export type Relax<T, Paths extends string> = [Paths] extends [never] ? T : RelaxAt<T, Paths>;
type RelaxAt<T, P extends string> = T extends readonly (infer E)[] ? Relax<E, Below<P, '*'>>[] : T extends object ? Optional<{ [K in keyof T]: K extends string ? Relax<T[K], Below<P, K>> : T[K] }, P> : T;
/** The rest of each path that starts with `K/`. */
type Below<P extends string, K extends string> = P extends `${K}/${infer Rest}` ? Rest : never;
/** `T` with the keys `K` optional; index signatures and the other keys' modifiers kept. */
type Optional<T, K> = { [Q in keyof T as Q extends K ? never : Q]: T[Q] } & { [Q in keyof T as Q extends K ? Q : never]?: T[Q] };

/** The handlers a profile's tools need, untyped; the generated entry narrows it with each release's types. */
export type HandlerMap<Tools extends string> = Partial<Record<Tools, AnyToolHandler>>;

export interface Agent<Tools extends string = string, Handlers = HandlerMap<Tools>> {
  readonly name: string;
  readonly mode: Mode;
  /** Release keys served, highest first. */
  readonly releases: readonly string[];
  /** Tools served in `release` (default: the highest). */
  tools(release?: string): readonly Tools[];
  toolsList(release?: string): ToolsListEntry[];
  /**
   * The tools/list of a single endpoint serving every release: each tool once (from the highest release serving it);
   * with `advertise.outputSchema`, an outputSchema admitting every body the tool returns in any served release (MCP
   * clients validate structured results against it whatever release a buyer pinned), precomputed at build time.
   */
  endpointToolsList(): ToolsListEntry[];
  capabilities(release?: string): Record<string, unknown>;
  normalize(tool: Tools, args: unknown, options?: ReleaseOption): NormalizeResult;
  strip(tool: Tools, args: unknown, options?: ReleaseOption): StripResult;
  validateRequest(tool: Tools, args: unknown, options?: ReleaseOption): ValidationResult;
  validateResponse(tool: Tools, body: unknown, options?: ReleaseOption): ValidationResult;
  /** The whole pipeline for one call → an MCP CallToolResult. Throws UnknownToolError for tools outside the profile. */
  call(tool: string, args: unknown, handler: AnyToolHandler, ctx?: CallContext): Promise<CallToolResult>;
  /**
   * Serves the profile on an @modelcontextprotocol/sdk McpServer (or its low-level Server). Throws when `handlers` do
   * not match the profile (naming the missing and extra tools). A server made per request should come from
   * mcpServerFactory, which checks the handlers once, at start-up.
   */
  registerMcp(server: unknown, handlers: Handlers): void;
  /**
   * For the stateless Streamable HTTP pattern (one McpServer per POST): checks `handlers` against the profile now —
   * throwing, before the server listens, with a message naming every missing or extra tool — and returns a function
   * that makes a server with `create` and registers the already-checked handlers on it, for each request.
   */
  mcpServerFactory<Server>(handlers: Handlers, create: () => Server): () => Server;
  /**
   * The same pipeline as an @a2a-js/sdk AgentExecutor (skill dispatch; either major, 1.x or 0.3.x), and the
   * agent-card skills to go with it.
   */
  a2aExecutor(handlers: Handlers, options?: A2AExecutorOptions): A2AExecutor;
  a2aSkills(release?: string): A2ASkill[];
  /**
   * Verifies signed requests (RFC 9421) composed with the other authenticators, for an HTTP entry: present when the
   * profile advertises `request_signing.supported: true`, configured by `signing.requests` (docs/signing.md).
   */
  readonly requestSignatures?: RequestSignatureVerifier;
  /**
   * The HTTP entry, for node:http's `createServer(handler)` or Express's `app.use(handler)`: MCP at `/mcp`, A2A at
   * `/a2a` and its agent card, authentication before any pipeline work. Checks `handlers` now, as mcpServerFactory does.
   */
  httpHandler(handlers: Handlers, options?: HttpOptions): HttpHandler;
  /**
   * The HTTP entry on its own node:http server, with the limits a deployment needs (timeouts, keep-alive, a
   * connection cap): opens and probes the store first (`ready`), so a bad DATABASE_URL fails the start, not a call.
   */
  serve(handlers: Handlers, options?: ServeOptions): Promise<RunningServer>;
  /**
   * Opens the store (runs its migration once, probes it): a `DATABASE_URL` that cannot be reached or a state
   * directory that cannot be opened fails here in one line naming the host or the directory. Calls open it on
   * first need without this.
   */
  ready(): Promise<void>;
  /** Releases the store (its pool, its file). */
  close(): Promise<void>;
}

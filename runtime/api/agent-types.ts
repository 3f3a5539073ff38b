import type { A2AExecutor, A2AExecutorOptions, A2ASkill } from './a2a-types.js';
import type { AuthPrincipal, HttpHandler, HttpOptions, RunningServer, ServeOptions } from './http-types.js';
import type { CallTrace, Logger } from './ops-types.js';
import type { IdempotencyOptions, StoreOption, TaskOptions } from './service-types.js';
import type { RequestSignatureVerifier, SigningOptions } from './signing-types.js';
import type { AgentWebhooks, PublicationOptions, WebhookOptions, WellKnownDocument } from './webhook-types.js';
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
  tasks?: TaskOptions;
  /**
   * The agent's public base URL (`https://seller.example`): its MCP URL is `<publicUrl>/mcp` (buyers compare it byte
   * for byte), its brand.json and JWKS are `<publicUrl>/.well-known/brand.json` and `…/jwks.json`, and
   * `identity.brand_json_url` is advertised from it (https only, where the release declares it). Default:
   * `ADCP_PUBLIC_URL`, else the HTTP entry's own public URL.
   */
  publicUrl?: string;
  /**
   * The agent's signatures: `key`, the key webhooks are signed with (default from `ADCP_SIGNING_KEY` /
   * `ADCP_SIGNING_KEY_FILE`); `requests`, whose RFC 9421 signed requests it accepts when its profile advertises
   * `request_signing` (docs/signing.md).
   */
  signing?: SigningOptions;
  /** brand.json's entry for this agent, or another brand.json to advertise. */
  publication?: PublicationOptions;
  /**
   * The webhook outbox and its delivery worker: on when the profile advertises `webhook_signing.supported`, or when
   * this option is given (`{}` turns it on with the defaults).
   */
  webhooks?: WebhookOptions;
  /**
   * Where the agent logs (docs/operating.md): a line per call at `info`, its warnings and faults at `warn` and
   * `error`. A pino logger (or one with its `(fields, message)` methods), or `false` for none. Default: pino, installed
   * beside the agent, writing JSON lines to stderr at `ADCP_LOG_LEVEL` (default `info`); without pino, warnings go to
   * `process.emitWarning` and calls are not logged.
   */
  logger?: Logger | false;
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
  /** The caller's trace context (`traceparent`, `tracestate`, `x-request-id`): the call's spans and log line continue it. */
  trace?: CallTrace;
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
  /**
   * Makes this call an async task: the runtime keeps it durably and assigns its `task_id` (or takes `taskId`, a
   * sandbox's forced id); answer with `task.submitted()`, then complete or fail it, now or later.
   */
  task(options?: { taskId?: string }): Promise<TaskHandle>;
}

/**
 * An async task (L3/async-operations.mdx), as its handler holds it: `ctx.task()` makes one (durable, in the agent's
 * store) and the handler answers `task.submitted()`; the task then ends by `complete` or `fail` — from this handler,
 * a worker, or another instance (`agent.task(taskId)`) — and the runtime serves its reads and sends its webhook.
 */
export interface TaskHandle {
  readonly taskId: string;
  /** The task's status now (`submitted`, `working`, … `completed`), or undefined when there is no such task. */
  status(): Promise<string | undefined>;
  /** The body to answer the call with: `{ status: 'submitted', task_id, message? }`. */
  submitted(message?: string): Record<string, unknown>;
  /** Still running: `working` (or `input-required`), with progress. False once the task is terminal. */
  progress(progress?: Record<string, unknown>, status?: 'working' | 'input-required'): Promise<boolean>;
  /** The terminal answer, in the handler's release's shape (converted for a buyer pinned to another). False when already terminal. */
  complete(result: Record<string, unknown>): Promise<boolean>;
  /** A terminal failure, with the AdCP error body (`code`, `message`, …). False when already terminal. */
  fail(error: Record<string, unknown>, status?: 'failed' | 'rejected' | 'canceled'): Promise<boolean>;
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
  /**
   * The release a call pinning none is served (no `adcp_version`; or only `adcp_major_version`, of its major): the
   * profile's `default_release`, else the highest stable release it serves; undefined when it serves only
   * pre-releases and names none (such calls are then VERSION_UNSUPPORTED). The default of the `release` arguments.
   */
  readonly defaultRelease: string | undefined;
  /** Tools served in `release` (default: the default release, else the highest). */
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
   * first need without this. An agent that signs webhooks gets its key here (a production agent whose profile
   * advertises `webhook_signing.supported` with no key configured fails in one line; a sandbox makes its development
   * key) and starts its delivery worker.
   */
  ready(): Promise<void>;
  /** Stops the webhook delivery worker (its attempts in flight finish) and releases the store (its pool, its file). */
  close(): Promise<void>;
  /** A task by id, to complete or fail it from anywhere (a worker, another instance, a controller). */
  task(taskId: string): TaskHandle;
  /**
   * The durable webhook outbox: enqueue an event (delivered signed, retried, once per logical event, by any instance
   * sharing the store), read what became of it, check a buyer's push registration when its call arrives.
   */
  readonly webhooks: AgentWebhooks;
  /**
   * The documents the HTTP entry serves under the agent's public URL, by pathname: `/.well-known/brand.json` (this
   * agent's brand.json entry: its MCP URL and `jwks_uri`) and `/.well-known/jwks.json` (its public signing keys).
   * Undefined for any other path, and for a document the agent has none of (no public URL known, no key).
   */
  wellKnown(path: string): Promise<WellKnownDocument | undefined>;
}

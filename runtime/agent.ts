import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ARTIFACT_PATHS,
  type AppliedNormalization,
  type Issue,
  type NormalizeFn,
  type NormalizeModule,
  type NormalizeResult,
  type RequestValidatorModule,
  type ResponseValidatorModule,
  type StripFn,
  type StripModule,
  type StripResult,
  type ValidateFn,
} from './contract.js';
import { driftIssues } from './drift.js';
import { escapeToken } from './pointer.js';
import { AdcpError, agentFault, contextEcho, invalidRequest, unsupportedTool, versionUnsupported, type AdcpErrorBody } from './errors.js';
import { wrapResponseValidator, wrapValidator } from './issues.js';
import { loadArtifact } from './loader.js';
import { registerMcp as registerMcpImpl } from './mcp.js';
import { a2aSkills, createA2AExecutor, type A2AExecutor, type A2AExecutorOptions, type A2ASkill } from './a2a.js';
import { selectRelease, type ServedRelease } from './release-select.js';

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
}

/** Per-call information from the transport (auth, request id …), passed through to the handler. */
export interface CallContext {
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
 * One handler per release the tool is served in (`{ '3.2': …, '3.0': … }`), each typed by its own release's request
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

/** Raised for a tool the profile does not serve; transports map it to their "unknown tool" error and nothing else. */
export class UnknownToolError extends Error {
  readonly tool: string;
  constructor(tool: string) {
    super(`Tool ${tool} not found`);
    this.name = 'UnknownToolError';
    this.tool = tool;
  }
}

export interface ReleaseOption {
  release?: string;
}

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
  /** Serves the profile on an @modelcontextprotocol/sdk McpServer (or its low-level Server). */
  registerMcp(server: unknown, handlers: Handlers): void;
  /**
   * The same pipeline as an @a2a-js/sdk AgentExecutor (skill dispatch; either major, 1.x or 0.3.x), and the
   * agent-card skills to go with it.
   */
  a2aExecutor(handlers: Handlers, options?: A2AExecutorOptions): A2AExecutor;
  a2aSkills(release?: string): A2ASkill[];
}

/** A tools/list entry in the profile file: schemas by generated path. */
interface ListEntryFile {
  name: string;
  description?: string;
  annotations: ToolAnnotations;
  inputSchema: string;
  outputSchema?: string;
}

/** The artifacts of one tool in one release, loaded on first use. */
interface ToolSlots {
  request?: ValidateFn;
  response?: ValidateFn;
  strip?: StripFn;
  normalize?: NormalizeFn;
}

interface ProfileRelease extends ServedRelease {
  readonly version: string;
  readonly tools: readonly string[];
  readonly capabilities: Record<string, unknown>;
  /** Per tool, envelope fields (`status`, `adcp_version`, `context`) its response schema refuses: never added. */
  readonly omitEnvelope?: Readonly<Record<string, readonly string[]>>;
}


export async function createAgent(base: URL, name: string, options: AgentOptions = {}): Promise<Agent> {
  const outDir = fileURLToPath(base);
  // A regeneration committed but not yet fully applied (killed midway): the files may be a mix of two sets.
  if (existsSync(join(outDir, '.adcp-codegen', 'commit.json'))) {
    throw new Error(`adcp-codegen: the generated set in ${outDir} is being replaced by an interrupted regeneration; run adcp-codegen generate to finish it`);
  }
  const mode: Mode = options.mode ?? 'production';
  if (mode !== 'production' && mode !== 'development') throw new Error(`adcp-codegen: mode must be "production" or "development"`);
  // Only what calls need: the tools/list entries (most of a profile's bytes) wait in their own file for the first list.
  const file = JSON.parse(readFileSync(join(outDir, 'profiles', `${name}.json`), 'utf8')) as {
    profile: { releases: Omit<ProfileRelease, 'major' | 'minor'>[]; outputAdvertised: string[] };
  };
  const served: ProfileRelease[] = file.profile.releases.map((r) => {
    const [major, minor] = r.key.split('.').map(Number) as [number, number];
    return { ...r, major, minor };
  });
  const byKey = new Map(served.map((r) => [r.key, r]));
  const outputAdvertised = new Set(file.profile.outputAdvertised);
  const allTools = new Set(served.flatMap((r) => r.tools));

  const releaseFor = (key: string | undefined): ProfileRelease => {
    if (key === undefined) return served[0]!;
    const r = byKey.get(key);
    if (r === undefined) throw new Error(`adcp-codegen: profile ${name} does not serve release ${key} (serves ${[...byKey.keys()].join(', ')})`);
    return r;
  };
  // Per release and tool, the loaded artifacts: one Map lookup per call on the hot path, no key strings built.
  const slots = new Map<ProfileRelease, Map<string, ToolSlots>>(served.map((r) => [r, new Map(r.tools.map((t) => [t, {}]))]));
  const slot = (r: ProfileRelease, tool: string): ToolSlots => slots.get(r)!.get(tool)!;
  const requireTool = (tool: string, release: ProfileRelease): void => {
    if (!slots.get(release)!.has(tool)) throw new UnknownToolError(tool);
  };

  const memo = new Map<string, unknown>();
  const cached = <T>(key: string, make: () => T): T => {
    if (!memo.has(key)) memo.set(key, make());
    return memo.get(key) as T;
  };
  // Callers check the tool first (requireTool, or the served tools in call), so a slot always exists.
  const requestValidator = (r: ProfileRelease, tool: string): ValidateFn =>
    (slot(r, tool).request ??= wrapValidator((loadArtifact(outDir, ARTIFACT_PATHS.request(r.key, tool)) as RequestValidatorModule).validate));
  // Picks the async variant by the body's `status`, as the response schemas intend.
  const responseValidator = (r: ProfileRelease, tool: string): ValidateFn =>
    (slot(r, tool).response ??= wrapResponseValidator(loadArtifact(outDir, ARTIFACT_PATHS.response(r.key, tool)) as ResponseValidatorModule));
  const stripFn = (r: ProfileRelease, tool: string): StripFn => (slot(r, tool).strip ??= (loadArtifact(outDir, ARTIFACT_PATHS.strip(r.key, tool)) as StripModule).strip);
  const normalizeFn = (r: ProfileRelease, tool: string): NormalizeFn =>
    (slot(r, tool).normalize ??= (loadArtifact(outDir, ARTIFACT_PATHS.normalize(r.key, tool)) as NormalizeModule).normalize);

  // Shared by every list returned: frozen, so one caller cannot change what the next one advertises.
  const schema = (path: string): Record<string, unknown> =>
    cached(`schema\0${path}`, () => deepFreeze((JSON.parse(readFileSync(join(outDir, path), 'utf8')) as { schema: Record<string, unknown> }).schema));
  const listFrom = (entries: readonly ListEntryFile[]): ToolsListEntry[] =>
    entries.map((e) => ({
      name: e.name,
      ...(e.description !== undefined ? { description: e.description } : {}),
      inputSchema: schema(e.inputSchema),
      ...(e.outputSchema !== undefined ? { outputSchema: schema(e.outputSchema) } : {}),
      annotations: { ...e.annotations },
    }));
  const copyList = (list: ToolsListEntry[]): ToolsListEntry[] => list.map((e) => ({ ...e, annotations: { ...e.annotations } }));
  const listFile = (): { releases: { key: string; toolsList: ListEntryFile[] }[]; endpoint: ListEntryFile[] } =>
    cached('listFile', () => (JSON.parse(readFileSync(join(outDir, 'profiles', `${name}.tools-list.json`), 'utf8')) as { toolsList: ReturnType<typeof listFile> }).toolsList);
  const toolsList = (key?: string): ToolsListEntry[] => {
    const r = releaseFor(key);
    return copyList(
      cached(`list\0${r.key}`, () => {
        const entries = listFile().releases.find((l) => l.key === r.key)?.toolsList;
        // Both files are written by one regeneration: a mismatch means a set edited by hand.
        if (entries === undefined) throw new Error(`adcp-codegen: profiles/${name}.tools-list.json has no tools/list for release ${r.key}; run adcp-codegen generate`);
        return listFrom(entries);
      }),
    );
  };
  const endpointToolsList = (): ToolsListEntry[] => copyList(cached('endpoint', () => listFrom(listFile().endpoint)));

  const validateWith = (validate: ValidateFn, value: unknown): ValidationResult => {
    const result = validate(value); // wrapValidator turns a stack overflow on absurd nesting into ok: false
    return result.ok ? { ok: true, value: value as Record<string, unknown> } : { ok: false, issues: result.issues };
  };

  /** The request pipeline after the parse-once copy: normalize → strip (production) or drift issues → validate. */
  const parse = (
    tool: string,
    r: ProfileRelease,
    input: unknown,
  ): { ok: true; value: Record<string, unknown>; normalized: AppliedNormalization[]; stripped: string[] } | { ok: false; issues: Issue[] } => {
    try {
      const normalized = normalizeFn(r, tool)(input);
      const stripped = stripFn(r, tool)(normalized.value);
      // Both modes validate the stripped value, so the validator reports every other problem; development then
      // rejects the unknown fields production would have dropped, one issue per field.
      const verdict = validateWith(requestValidator(r, tool), stripped.value);
      const issues = [...(mode === 'development' ? driftIssues(stripped) : []), ...(verdict.ok ? [] : verdict.issues)];
      if (issues.length > 0) return { ok: false, issues };
      return { ok: true, value: stripped.value as Record<string, unknown>, normalized: normalized.applied, stripped: stripped.removed };
    } catch (e) {
      // Strip bounds its recursion (a RangeError naming the place); so does every other stage, by the stack.
      if (e instanceof RangeError) return { ok: false, issues: [{ pointer: '', keyword: 'maxDepth', message: `nests too deeply to process: ${e.message}` }] };
      throw e;
    }
  };

  /**
   * The handlers as the transports take them: one function per tool, a per-release set dispatching on the release
   * that serves the call. The contract the generated types state is checked here, at registration, so a handler set
   * the types would reject (a tool the profile does not serve, a served tool or release without a handler) fails at
   * start rather than on a buyer's call. get_adcp_capabilities alone may be left out: the transports serve it from
   * the profile.
   */
  const bindHandlers = (handlers: HandlerMap<string>): Record<string, ToolHandler<any, any>> => {
    if (handlers === null || typeof handlers !== 'object') throw new Error(`adcp-codegen: handlers for profile ${name} must be an object of tool handlers`);
    const out: Record<string, ToolHandler<any, any>> = {};
    const extra: string[] = [];
    const missing: string[] = [];
    for (const tool of Object.keys(handlers)) {
      const h = handlers[tool];
      if (h === undefined) continue;
      if (!allTools.has(tool)) {
        extra.push(tool);
        continue;
      }
      if (typeof h === 'function') {
        out[tool] = h;
        continue;
      }
      const releases = served.filter((r) => r.tools.includes(tool)).map((r) => r.key);
      for (const key of releases) if (typeof ownHandler(h, key) !== 'function') missing.push(`${tool} (AdCP ${key})`);
      for (const key of Object.keys(h)) if (!releases.includes(key)) extra.push(`${tool} (AdCP ${key})`);
      out[tool] = (args, ctx) => ownHandler(h, ctx.release)!(args, ctx);
    }
    // The one handler the profile itself can give: its capabilities, as served in the answering release.
    if (allTools.has('get_adcp_capabilities') && !Object.prototype.hasOwnProperty.call(out, 'get_adcp_capabilities')) {
      out.get_adcp_capabilities = (_args, ctx) => structuredClone(releaseFor(ctx.release).capabilities);
    }
    for (const tool of [...allTools].sort()) if (!Object.prototype.hasOwnProperty.call(out, tool)) missing.push(tool);
    if (extra.length > 0) throw new Error(`adcp-codegen: handler(s) for tools profile ${name} does not serve: ${extra.sort().join(', ')}`);
    if (missing.length > 0) throw new Error(`adcp-codegen: profile ${name} serves tools without a handler: ${missing.sort().join(', ')}`);
    return out;
  };

  const agent: Agent = {
    name,
    mode,
    releases: served.map((r) => r.key),
    tools: (key) => [...releaseFor(key).tools],
    toolsList,
    endpointToolsList,
    capabilities: (key) => structuredClone(releaseFor(key).capabilities),
    normalize(tool, args, opts = {}) {
      const r = releaseFor(opts.release);
      requireTool(tool, r);
      return normalizeFn(r, tool)(args);
    },
    strip(tool, args, opts = {}) {
      const r = releaseFor(opts.release);
      requireTool(tool, r);
      return stripFn(r, tool)(args);
    },
    validateRequest(tool, args, opts = {}) {
      const r = releaseFor(opts.release);
      requireTool(tool, r);
      return validateWith(requestValidator(r, tool), args);
    },
    validateResponse(tool, body, opts = {}) {
      const r = releaseFor(opts.release);
      requireTool(tool, r);
      return validateWith(responseValidator(r, tool), body);
    },

    async call(tool, args, handler, ctx = {}) {
      if (typeof tool !== 'string' || !allTools.has(tool)) throw new UnknownToolError(typeof tool === 'string' ? tool : `(${typeof tool})`);
      // Parse once, before anything looks at the arguments: a private JSON copy, exactly what the wire would carry
      // (no getters, proxies, shared references or prototypes). Release selection, the context echo, normalizers,
      // strip, validation, authorization and the handler all see this copy; the caller's object is never read again.
      const request = readRequest(args);
      if (!request.ok) {
        return errorResult(invalidRequest(tool, [request.issue]), request.context === undefined ? undefined : { context: request.context }, served[0]!.key);
      }
      args = request.value;
      const choice = selectRelease(served, args);
      if (!choice.ok) {
        const body =
          choice.code === 'VERSION_UNSUPPORTED' ? versionUnsupported(choice.message, served.map((r) => r.key)) : invalidRequest(tool, choice.issues);
        return errorResult(body, args, served[0]!.key);
      }
      const r = byKey.get(choice.release.key)!;
      if (!slots.get(r)!.has(tool)) {
        return errorResult(
          {
            code: 'UNSUPPORTED_FEATURE',
            message: `${tool} is not served in AdCP ${r.key}; served in ${served.filter((x) => x.tools.includes(tool)).map((x) => x.key).join(', ')}`,
            recovery: 'correctable',
            details: { tool, supported_versions: served.filter((x) => x.tools.includes(tool)).map((x) => x.key) },
          },
          args,
          r.key,
        );
      }
      const parsed = parse(tool, r, args);
      if (!parsed.ok) return errorResult(invalidRequest(tool, parsed.issues), args, r.key);

      const fn = typeof handler === 'function' ? handler : ownHandler(handler, r.key);
      if (fn === undefined) return errorResult(agentFault(tool, `the agent has no handler for AdCP ${r.key}`), args, r.key);
      let result: unknown;
      try {
        // The transport's context is copied inside the guard: a getter there is the host's bug, not the buyer's.
        const hctx: HandlerContext = { ...ctx, tool, release: r.key, mode, normalized: parsed.normalized, stripped: parsed.stripped };
        if (options.authorize !== undefined) await options.authorize(tool, parsed.value, hctx);
        result = await fn(parsed.value, hctx);
        if (result instanceof AdcpError) throw result;
        // Read once too: a result with throwing getters, cycles or BigInts is the agent's failure, answered as one.
        const copy = jsonCopy(result);
        if (!copy.ok) throw new Error('the handler returned a value that cannot be read as JSON');
        result = copy.value;
      } catch (e) {
        return errorResult(thrownBody(tool, e), args, r.key);
      }
      if (result === null || typeof result !== 'object' || Array.isArray(result)) {
        return errorResult(agentFault(tool, 'the handler returned no response object'), args, r.key);
      }
      const resultBody = result as Record<string, unknown>;
      if (isAdcpErrorBody(resultBody.adcp_error)) return errorResult(resultBody.adcp_error, args, r.key);

      const envelope = responseEnvelope(resultBody, (parsed.value as Record<string, unknown>).context, r.key, (body) => statusDefined(responseValidator(r, tool), body));
      if (!envelope.ok) return errorResult(agentFault(tool, envelope.message), args, r.key);
      const body = envelope.body;
      // An envelope field the response schema refuses (a closed object that does not declare it) is left out; a
      // handler's own `status` (async, or domain state) stays.
      for (const field of r.omitEnvelope?.[tool] ?? []) if (field !== 'status' || resultBody.status === undefined) delete body[field];
      // Development validates every response; production only where tools/list advertises an outputSchema, because
      // MCP clients validate structuredContent against it and would throw on the buyer's side.
      if (mode === 'development' || outputAdvertised.has(tool)) {
        const verdict = validateWith(responseValidator(r, tool), body);
        if (!verdict.ok) {
          // Never send an invalid response as if it were valid: the agent has a bug, which a retry cannot fix. The
          // pointers help the agent's developer; a production buyer learns only that the call failed.
          const first = verdict.issues[0]!;
          const problem = `the agent's response does not match the AdCP ${r.key} response schema`;
          if (mode === 'production') process.emitWarning(`adcp-codegen: ${tool}: ${problem}: ${JSON.stringify(verdict.issues)}`);
          return errorResult(
            mode === 'development'
              ? agentFault(tool, `${problem}: ${first.pointer === '' ? 'the response' : first.pointer} ${first.message}`, { tool, response_issues: verdict.issues })
              : agentFault(tool, problem, { tool }),
            args,
            r.key,
          );
        }
      }
      return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
    },

    registerMcp(server, handlers) {
      registerMcpImpl(agent, server, bindHandlers(handlers as HandlerMap<string>));
    },
    a2aExecutor: (handlers, a2aOptions) => createA2AExecutor(agent, bindHandlers(handlers as HandlerMap<string>), a2aOptions),
    a2aSkills: (release) => a2aSkills(agent, release),
  };
  return agent;
}

/**
 * A rejection: the AdCP error body as structuredContent (where AdCP's storyboard runner and MCP hosts read it) and
 * the same JSON in content[0].text. MCP clients validate structuredContent against a tool's outputSchema, errors
 * included: a profile advertising output schemas makes each one admit this body.
 */
export function errorResult(error: AdcpErrorBody, args: unknown, release: string): CallToolResult {
  // The caller's own context, measured only when there is a rejection to echo it on.
  const echo = contextEcho(args);
  const body: Record<string, unknown> = { adcp_error: error, ...(echo.present ? { context: echo.value } : {}), status: 'failed', adcp_version: release };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

/**
 * The rejection of a call to a tool the agent does not serve: an AdCP error with the caller's context, labelled
 * with the release the caller pinned when it is served, else the highest served (`releases`, highest first).
 */
export function unknownToolResult(tool: string, args: unknown, releases: readonly string[]): CallToolResult {
  // Read through the parse-once step like any call: an unreadable value is answered, never thrown.
  const request = readRequest(args);
  const value = request.ok ? request.value : request.context === undefined ? undefined : { context: request.context };
  const pinned = value !== null && typeof value === 'object' ? (value as Record<string, unknown>).adcp_version : undefined;
  return errorResult(unsupportedTool(tool), value, typeof pinned === 'string' && releases.includes(pinned) ? pinned : releases[0]!);
}

/** The AdCP body of a CallToolResult, success or rejection. */
export function resultBody(result: CallToolResult): Record<string, unknown> {
  return result.structuredContent ?? (JSON.parse(result.content[0]!.text) as Record<string, unknown>);
}

/** A handler that threw: the buyer learns which tool failed, never the error itself (a stack, a path, a secret). */
function handlerFailed(tool: string, e: unknown): AdcpErrorBody {
  let text: string;
  try {
    text = e instanceof Error ? (e.stack ?? e.message) : String(e);
  } catch {
    text = 'a value that cannot be printed';
  }
  process.emitWarning(`adcp-codegen: handler for ${tool} failed: ${text}`);
  return agentFault(tool, 'the handler failed with an unexpected error (details are in the agent\'s log)');
}

/** The handler of a per-release set for one release, own properties only. */
function ownHandler(set: PerReleaseHandlers, release: string): ToolHandler<any, any, any> | undefined {
  const h = Object.prototype.hasOwnProperty.call(set, release) ? set[release] : undefined;
  return typeof h === 'function' ? h : undefined;
}

/**
 * The response as it goes on the wire: the handler's body with the envelope the runtime owns. `adcp_version` is the
 * release that answered and `context` the caller's (a handler's own values are dropped); `status` defaults to
 * `completed`. A handler may state another AdCP task status (an async `submitted`, a `rejected` arm), or a status its
 * release's response schema itself defines (3.0's create_media_buy carries the media buy's status there); any other
 * value is the agent's bug, answered as one instead of being sent.
 */
function responseEnvelope(
  result: Record<string, unknown>,
  sentContext: unknown,
  release: string,
  schemaDefinesStatus: (body: Record<string, unknown>) => boolean,
): { ok: true; body: Record<string, unknown> } | { ok: false; message: string } {
  const { status, adcp_version: _version, adcp_major_version: _major, context: _context, ...rest } = result;
  const body: Record<string, unknown> = { ...rest, status: status ?? 'completed', adcp_version: release };
  if (sentContext !== undefined) body.context = sentContext;
  if (status !== undefined && !(typeof status === 'string' && TASK_STATUSES.has(status)) && !schemaDefinesStatus(body)) {
    return { ok: false, message: `the handler set status ${jsonText(status)}, which is neither an AdCP task status (${[...TASK_STATUSES].join(', ')}) nor one the AdCP ${release} response defines` };
  }
  return { ok: true, body };
}

/**
 * Whether the response schema itself defines the body's `status`: the body validates, and the same body with a
 * status no schema can define does not. (Only asked for a status outside the task statuses, so production pays for
 * the response validator only when a handler answers that way.)
 */
function statusDefined(validate: ValidateFn, body: Record<string, unknown>): boolean {
  return validate(body).ok && !validate({ ...body, status: '\u0000' }).ok;
}

/** AdCP's task statuses (enums/task-status.json, the same from 3.0 to 3.2) a response body may carry. */
const TASK_STATUSES: ReadonlySet<string> = new Set(['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown']);

function jsonText(v: unknown): string {
  try {
    return (JSON.stringify(v) ?? String(v)).slice(0, 64);
  } catch {
    return String(v);
  }
}

function isAdcpErrorBody(v: unknown): v is AdcpErrorBody {
  return v !== null && typeof v === 'object' && typeof (v as Record<string, unknown>).code === 'string' && typeof (v as Record<string, unknown>).message === 'string';
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

type Read = { ok: true; value: unknown } | { ok: false; issue: Issue; context?: unknown };
type Copy = { ok: true; value: unknown } | { ok: false; tooDeep: boolean };

/**
 * The parse-once step. AdCP payloads are JSON: a copy through JSON is the value a buyer could have sent, whatever
 * object the caller passed. Anything that cannot be read that way (a throwing getter or toJSON, a proxy trap, a
 * cycle, a BigInt, nesting deep enough to overflow the serializer) is an INVALID_REQUEST naming the top-level field
 * it is in, never an exception; the caller's `context` is then echoed only when it alone can be read.
 */
function readRequest(args: unknown): Read {
  const whole = jsonCopy(args);
  if (whole.ok) return whole;
  let pointer = '';
  let tooDeep = whole.tooDeep;
  let context: unknown;
  try {
    if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
      for (const key of Object.keys(args)) {
        let field: Copy;
        try {
          field = jsonCopy((args as Record<string, unknown>)[key]);
        } catch {
          field = { ok: false, tooDeep: false }; // the getter itself threw
        }
        if (key === 'context' && field.ok) context = field.value;
        if (!field.ok && pointer === '') {
          pointer = `/${escapeToken(key)}`;
          tooDeep = field.tooDeep;
        }
      }
    }
  } catch {
    // The object itself cannot be inspected (a proxy whose traps throw): the request as a whole, and no echo.
    pointer = '';
    context = undefined;
  }
  const issue: Issue = tooDeep
    ? { pointer, keyword: 'maxDepth', message: 'nests too deeply to process' }
    : { pointer, keyword: 'type', message: 'is not a JSON value: it cannot be read (a throwing getter or proxy), or it holds a cycle or a BigInt' };
  return { ok: false, issue, ...(context !== undefined ? { context } : {}) };
}

function jsonCopy(value: unknown): Copy {
  try {
    const text = JSON.stringify(value);
    return { ok: true, value: text === undefined ? undefined : JSON.parse(text) };
  } catch (e) {
    // Only classified, never read: the thrown value may itself be a hostile object.
    let tooDeep = false;
    try {
      tooDeep = e instanceof RangeError;
    } catch {
      /* a proxy that refuses even instanceof */
    }
    return { ok: false, tooDeep };
  }
}

/** The AdcpErrorBody of a value a handler or authorize hook threw; anything unreadable is the agent's failure. */
function thrownBody(tool: string, e: unknown): AdcpErrorBody {
  try {
    if (e instanceof AdcpError) {
      const body = jsonCopy(e.toBody());
      if (body.ok && isAdcpErrorBody(body.value)) return body.value;
    }
  } catch {
    /* fall through */
  }
  return handlerFailed(tool, e);
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ARTIFACT_PATHS,
  type AppliedNormalization,
  type Issue,
  type NormalizeModule,
  type NormalizeResult,
  type RequestValidatorModule,
  type ResponseValidatorModule,
  type StripModule,
  type StripResult,
  type ValidateFn,
} from './contract.js';
import { driftIssues } from './drift.js';
import { AdcpError, agentFault, contextEcho, invalidRequest, versionUnsupported, type AdcpErrorBody } from './errors.js';
import { wrapResponseValidator, wrapValidator } from './issues.js';
import { loadArtifact } from './loader.js';
import { registerMcp as registerMcpImpl } from './mcp.js';
import { a2aSkills, createA2AExecutor, type A2AExecutor, type A2ASkill } from './a2a.js';
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
  outputSchema: Record<string, unknown>;
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
   * The tools/list of a single endpoint serving every release: each tool once (from the highest release serving it),
   * and where releases answer in different shapes, an outputSchema admitting each release's (`anyOf`), because MCP
   * clients validate structured results against it whatever release a buyer pinned.
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
  /** The same pipeline as an @a2a-js/sdk AgentExecutor (skill dispatch), and the agent-card skills to go with it. */
  a2aExecutor(handlers: Handlers): A2AExecutor;
  a2aSkills(release?: string): A2ASkill[];
}

interface ProfileRelease extends ServedRelease {
  readonly version: string;
  readonly tools: readonly string[];
  readonly capabilities: Record<string, unknown>;
  readonly toolsList: readonly { name: string; description?: string; annotations: ToolAnnotations; inputSchema: string; outputSchema: string }[];
}


export async function createAgent(base: URL, name: string, options: AgentOptions = {}): Promise<Agent> {
  const outDir = fileURLToPath(base);
  const mode: Mode = options.mode ?? 'production';
  if (mode !== 'production' && mode !== 'development') throw new Error(`adcp-codegen: mode must be "production" or "development"`);
  const file = JSON.parse(readFileSync(join(outDir, 'profiles', `${name}.json`), 'utf8')) as { profile: { releases: Omit<ProfileRelease, 'major' | 'minor'>[] } };
  const served: ProfileRelease[] = file.profile.releases.map((r) => {
    const [major, minor] = r.key.split('.').map(Number) as [number, number];
    return { ...r, major, minor };
  });
  const byKey = new Map(served.map((r) => [r.key, r]));
  const allTools = new Set(served.flatMap((r) => r.tools));

  const releaseFor = (key: string | undefined): ProfileRelease => {
    if (key === undefined) return served[0]!;
    const r = byKey.get(key);
    if (r === undefined) throw new Error(`adcp-codegen: profile ${name} does not serve release ${key} (serves ${[...byKey.keys()].join(', ')})`);
    return r;
  };
  const requireTool = (tool: string, release: ProfileRelease): void => {
    if (!release.tools.includes(tool)) throw new UnknownToolError(tool);
  };

  const memo = new Map<string, unknown>();
  const cached = <T>(key: string, make: () => T): T => {
    if (!memo.has(key)) memo.set(key, make());
    return memo.get(key) as T;
  };
  const requestValidator = (r: ProfileRelease, tool: string): ValidateFn =>
    cached(`req\0${r.key}\0${tool}`, () => wrapValidator((loadArtifact(outDir, ARTIFACT_PATHS.request(r.key, tool)) as RequestValidatorModule).validate));
  // Picks the async variant by the body's `status`, as the response schemas intend.
  const responseValidator = (r: ProfileRelease, tool: string): ValidateFn =>
    cached(`res\0${r.key}\0${tool}`, () => wrapResponseValidator(loadArtifact(outDir, ARTIFACT_PATHS.response(r.key, tool)) as ResponseValidatorModule));
  const stripFn = (r: ProfileRelease, tool: string) => cached(`strip\0${r.key}\0${tool}`, () => (loadArtifact(outDir, ARTIFACT_PATHS.strip(r.key, tool)) as StripModule).strip);
  const normalizeFn = (r: ProfileRelease, tool: string) =>
    cached(`norm\0${r.key}\0${tool}`, () => (loadArtifact(outDir, ARTIFACT_PATHS.normalize(r.key, tool)) as NormalizeModule).normalize);

  const toolsListCache = new Map<string, ToolsListEntry[]>();
  const toolsList = (key?: string): ToolsListEntry[] => {
    const r = releaseFor(key);
    let list = toolsListCache.get(r.key);
    if (list === undefined) {
      const schema = (path: string): Record<string, unknown> =>
        // Shared by every list returned: frozen, so one caller cannot change what the next one advertises.
        cached(`schema\0${path}`, () => deepFreeze((JSON.parse(readFileSync(join(outDir, path), 'utf8')) as { schema: Record<string, unknown> }).schema));
      list = r.toolsList.map((e) => ({
        name: e.name,
        ...(e.description !== undefined ? { description: e.description } : {}),
        inputSchema: schema(e.inputSchema),
        outputSchema: schema(e.outputSchema),
        annotations: { ...e.annotations },
      }));
      toolsListCache.set(r.key, list);
    }
    return list.map((e) => ({ ...e, annotations: { ...e.annotations } }));
  };

  let endpointList: ToolsListEntry[] | undefined;
  const endpointToolsList = (): ToolsListEntry[] => {
    if (endpointList === undefined) {
      const names = [...allTools].sort();
      endpointList = names.map((name) => {
        const serving = served.filter((r) => r.tools.includes(name));
        const entries = serving.map((r) => ({ release: r, raw: r.toolsList.find((e) => e.name === name)!, full: toolsList(r.key).find((e) => e.name === name)! }));
        const top = entries[0]!;
        const distinct = entries.filter((e, i) => entries.findIndex((x) => x.raw.outputSchema === e.raw.outputSchema) === i);
        if (distinct.length === 1) return top.full;
        return { ...top.full, outputSchema: releaseUnion(distinct.map((e) => ({ key: e.release.key, schema: e.full.outputSchema }))) };
      });
    }
    return endpointList.map((e) => ({ ...e, annotations: { ...e.annotations } }));
  };

  const validateWith = (validate: ValidateFn, value: unknown): ValidationResult => {
    const result = validate(value); // wrapValidator turns a stack overflow on absurd nesting into ok: false
    return result.ok ? { ok: true, value: value as Record<string, unknown> } : { ok: false, issues: result.issues };
  };

  /** The request pipeline up to the parsed value: parse → normalize → strip (production) or drift issues → validate. */
  const parse = (
    tool: string,
    r: ProfileRelease,
    args: unknown,
  ): { ok: true; value: Record<string, unknown>; normalized: AppliedNormalization[]; stripped: string[] } | { ok: false; issues: Issue[] } => {
    try {
      // Parse once: a private JSON copy, exactly what the wire would carry (no getters, no shared references, no
      // prototypes). Every later stage — normalizers, strip, validation, authorization, the handler — sees this value.
      const copy = jsonCopy(args);
      if (!copy.ok) return { ok: false, issues: [copy.issue] };
      const normalized = normalizeFn(r, tool)(copy.value);
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
    for (const tool of [...allTools].sort()) if (tool !== 'get_adcp_capabilities' && !Object.prototype.hasOwnProperty.call(out, tool)) missing.push(tool);
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
      if (!allTools.has(tool)) throw new UnknownToolError(tool);
      const choice = selectRelease(served, args);
      if (!choice.ok) {
        const body =
          choice.code === 'VERSION_UNSUPPORTED' ? versionUnsupported(choice.message, served.map((r) => r.key)) : invalidRequest(tool, choice.issues);
        return errorResult(body, args, served[0]!.key);
      }
      const r = byKey.get(choice.release.key)!;
      if (!r.tools.includes(tool)) {
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
      const hctx: HandlerContext = { ...ctx, tool, release: r.key, mode, normalized: parsed.normalized, stripped: parsed.stripped };
      let result: unknown;
      try {
        if (options.authorize !== undefined) await options.authorize(tool, parsed.value, hctx);
        result = await fn(parsed.value, hctx);
      } catch (e) {
        return errorResult(e instanceof AdcpError ? e.toBody() : handlerFailed(tool, e), args, r.key);
      }
      if (result instanceof AdcpError) return errorResult(result.toBody(), args, r.key);
      if (result === null || typeof result !== 'object' || Array.isArray(result)) {
        return errorResult(agentFault(tool, 'the handler returned no response object'), args, r.key);
      }
      const resultBody = result as Record<string, unknown>;
      if (isAdcpErrorBody(resultBody.adcp_error)) return errorResult(resultBody.adcp_error, args, r.key);

      const envelope = responseEnvelope(resultBody, (parsed.value as Record<string, unknown>).context, r.key, (body) => statusDefined(responseValidator(r, tool), body));
      if (!envelope.ok) return errorResult(agentFault(tool, envelope.message), args, r.key);
      const body = envelope.body;
      if (mode === 'development') {
        const verdict = validateWith(responseValidator(r, tool), body);
        if (!verdict.ok) {
          // Never send an invalid response as if it were valid: the agent has a bug, which a retry cannot fix.
          const first = verdict.issues[0]!;
          return errorResult(
            agentFault(tool, `the agent's response does not match the AdCP ${r.key} response schema: ${first.pointer === '' ? 'the response' : first.pointer} ${first.message}`, {
              tool,
              response_issues: verdict.issues,
            }),
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
    a2aExecutor: (handlers) => createA2AExecutor(agent, bindHandlers(handlers as HandlerMap<string>)),
    a2aSkills: (release) => a2aSkills(agent, release),
  };
  return agent;
}

/**
 * A rejection carries its JSON in content[0].text only: MCP clients validate any structuredContent against the
 * tool's outputSchema, which describes the task's results, not AdCP errors.
 */
function errorResult(error: AdcpErrorBody, args: unknown, release: string): CallToolResult {
  // The caller's own context, measured only when there is a rejection to echo it on.
  const echo = contextEcho(args);
  const body: Record<string, unknown> = { adcp_error: error, ...(echo.present ? { context: echo.value } : {}), status: 'failed', adcp_version: release };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], isError: true };
}

/** The AdCP body of a CallToolResult, success or rejection. */
export function resultBody(result: CallToolResult): Record<string, unknown> {
  return result.structuredContent ?? (JSON.parse(result.content[0]!.text) as Record<string, unknown>);
}

/** A handler that threw: the buyer learns which tool failed, never the error itself (a stack, a path, a secret). */
function handlerFailed(tool: string, e: unknown): AdcpErrorBody {
  process.emitWarning(`adcp-codegen: handler for ${tool} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
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

/**
 * One schema admitting the responses of several releases. Each release's document is embedded as its own resource
 * (a `$id` of its own, so its internal `#/$defs/…` references keep resolving inside it) under `$defs`.
 */
function releaseUnion(docs: { key: string; schema: Record<string, unknown> }[]): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (const { key, schema } of docs) {
    const { $schema: _dialect, ...rest } = schema;
    defs[`adcp-${key}`] = { ...rest, $id: `urn:adcp-codegen:release:${key}:${typeof schema.$id === 'string' ? schema.$id : 'output'}` };
  }
  return {
    $schema: docs[0]!.schema.$schema ?? 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    description: `The response of any served AdCP release (${docs.map((d) => d.key).join(', ')}); the body's adcp_version names which.`,
    anyOf: docs.map((d) => ({ $ref: `#/$defs/adcp-${d.key}` })),
    $defs: defs,
  };
}


function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * AdCP payloads are JSON: a copy through JSON is the value a buyer could have sent, whatever object the caller
 * passed. Cycles and BigInts are not JSON; absurd nesting overflows the serializer's stack (a RangeError).
 */
function jsonCopy(value: unknown): { ok: true; value: unknown } | { ok: false; issue: Issue } {
  try {
    const text = JSON.stringify(value);
    return { ok: true, value: text === undefined ? undefined : JSON.parse(text) };
  } catch (e) {
    if (e instanceof RangeError) throw e;
    return { ok: false, issue: { pointer: '', keyword: 'type', message: `is not a JSON value (${(e as Error).message})` } };
  }
}


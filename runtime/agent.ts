import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ARTIFACT_PATHS,
  type AppliedNormalization,
  type Issue,
  type NormalizeFn,
  type NormalizeModule,
  type RequestValidatorModule,
  type ResponseValidatorModule,
  type StripFn,
  type StripModule,
  type ValidateFn,
} from './contract.js';
import { driftIssues } from './drift.js';
import { AdcpError, agentFault, invalidRequest, versionUnsupported } from './errors.js';
import { COMPLIANCE_CONTROLLER, controllerRejection } from './controller-rejection.js';
import { wrapResponseValidator, wrapValidator } from './issues.js';
import { loadArtifact } from './loader.js';
import { registerMcp as registerMcpImpl } from './mcp.js';
import { a2aSkills, createA2AExecutor } from './a2a.js';
import { selectRelease, type ServedRelease } from './release-select.js';
import type {
  Agent,
  AgentOptions,
  HandlerContext,
  HandlerMap,
  Mode,
  PerReleaseHandlers,
  ToolAnnotations,
  ToolHandler,
  ToolsListEntry,
  ValidationResult,
} from './agent-types.js';
import { readRequest, jsonCopy } from './json-copy.js';
import { isAdcpErrorBody, responseEnvelope, statusDefined, thrownBody } from './response.js';
import { errorResult, UnknownToolError } from './results.js';

// The Agent API's types and the rejection results, where the generated index.d.ts and earlier callers import them.
export type {
  Agent,
  AgentOptions,
  AnyToolHandler,
  CallContext,
  CallToolResult,
  HandlerContext,
  HandlerMap,
  Mode,
  PerReleaseHandlers,
  ReleaseOption,
  ToolAnnotations,
  ToolHandler,
  ToolsListEntry,
  ValidationResult,
} from './agent-types.js';
export { errorResult, resultBody, UnknownToolError, unknownToolResult } from './results.js';

/** A tools/list entry in the profile file: schemas by generated path. */
interface ListEntryFile {
  name: string;
  description?: string;
  annotations: ToolAnnotations;
  inputSchema: string;
  outputSchema?: string;
}

/** One tool in one release, and its artifacts, loaded on first use. */
interface ToolSlots {
  readonly release: ProfileRelease;
  readonly tool: string;
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
  // Per release and tool, the loaded artifacts: found once per call (the tool check is that lookup), no key strings
  // built, and passed down the pipeline.
  const slots = new Map<ProfileRelease, Map<string, ToolSlots>>(served.map((r) => [r, new Map(r.tools.map((tool) => [tool, { release: r, tool }]))]));
  /** The tool's slot in release `r`, undefined when `r` does not serve it. */
  const slotIn = (r: ProfileRelease, tool: string): ToolSlots | undefined => slots.get(r)!.get(tool);
  /** The tool's slot in the release `key` names (default: the highest); UnknownToolError when it does not serve it. */
  const requireTool = (tool: string, key: string | undefined): ToolSlots => {
    const s = slotIn(releaseFor(key), tool);
    if (s === undefined) throw new UnknownToolError(tool);
    return s;
  };
  /** The served releases that serve `tool`, highest first. */
  const releasesServing = (tool: string): string[] => served.filter((r) => r.tools.includes(tool)).map((r) => r.key);

  const memo = new Map<string, unknown>();
  const cached = <T>(key: string, make: () => T): T => {
    if (!memo.has(key)) memo.set(key, make());
    return memo.get(key) as T;
  };
  const requestValidator = (s: ToolSlots): ValidateFn =>
    (s.request ??= wrapValidator((loadArtifact(outDir, ARTIFACT_PATHS.request(s.release.key, s.tool)) as RequestValidatorModule).validate));
  // Picks the async variant by the body's `status`, as the response schemas intend.
  const responseValidator = (s: ToolSlots): ValidateFn =>
    (s.response ??= wrapResponseValidator(loadArtifact(outDir, ARTIFACT_PATHS.response(s.release.key, s.tool)) as ResponseValidatorModule));
  const stripFn = (s: ToolSlots): StripFn => (s.strip ??= (loadArtifact(outDir, ARTIFACT_PATHS.strip(s.release.key, s.tool)) as StripModule).strip);
  const normalizeFn = (s: ToolSlots): NormalizeFn => (s.normalize ??= (loadArtifact(outDir, ARTIFACT_PATHS.normalize(s.release.key, s.tool)) as NormalizeModule).normalize);

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
    s: ToolSlots,
    input: unknown,
  ): { ok: true; value: Record<string, unknown>; normalized: AppliedNormalization[]; stripped: string[] } | { ok: false; issues: Issue[] } => {
    try {
      const normalized = normalizeFn(s)(input);
      const stripped = stripFn(s)(normalized.value);
      // Both modes validate the stripped value, so the validator reports every other problem; development then
      // rejects the unknown fields production would have dropped, one issue per field.
      const verdict = validateWith(requestValidator(s), stripped.value);
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
      const releases = releasesServing(tool);
      for (const key of releases) if (typeof ownHandler(h, key) !== 'function') missing.push(`${tool} (AdCP ${key})`);
      for (const key of Object.keys(h)) if (!releases.includes(key)) extra.push(`${tool} (AdCP ${key})`);
      out[tool] = (args, ctx) => ownHandler(h, ctx.release)!(args, ctx);
    }
    // The one handler the profile itself can give: its capabilities, as served in the answering release.
    if (allTools.has('get_adcp_capabilities') && !Object.prototype.hasOwnProperty.call(out, 'get_adcp_capabilities')) {
      // The profile's own object: `call` copies every handler result before anything reads it.
      out.get_adcp_capabilities = (_args, ctx) => releaseFor(ctx.release).capabilities;
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
    normalize: (tool, args, opts = {}) => normalizeFn(requireTool(tool, opts.release))(args),
    strip: (tool, args, opts = {}) => stripFn(requireTool(tool, opts.release))(args),
    validateRequest: (tool, args, opts = {}) => validateWith(requestValidator(requireTool(tool, opts.release)), args),
    validateResponse: (tool, body, opts = {}) => validateWith(responseValidator(requireTool(tool, opts.release)), body),

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
      const s = slotIn(r, tool);
      if (s === undefined) {
        const supported = releasesServing(tool);
        return errorResult(
          {
            code: 'UNSUPPORTED_FEATURE',
            message: `${tool} is not served in AdCP ${r.key}; served in ${supported.join(', ')}`,
            recovery: 'correctable',
            details: { tool, supported_versions: supported },
          },
          args,
          r.key,
        );
      }
      const parsed = parse(s, args);
      if (!parsed.ok) return tool === COMPLIANCE_CONTROLLER ? controllerRejection(parsed.issues, args, r.key) : errorResult(invalidRequest(tool, parsed.issues), args, r.key);

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

      const envelope = responseEnvelope(resultBody, parsed.value.context, r.key, (body) => statusDefined(responseValidator(s), body));
      if (!envelope.ok) return errorResult(agentFault(tool, envelope.message), args, r.key);
      const body = envelope.body;
      // An envelope field the response schema refuses (a closed object that does not declare it) is left out; a
      // handler's own `status` (async, or domain state) stays.
      for (const field of r.omitEnvelope?.[tool] ?? []) if (field !== 'status' || resultBody.status === undefined) delete body[field];
      // Development validates every response; production only where tools/list advertises an outputSchema, because
      // MCP clients validate structuredContent against it and would throw on the buyer's side.
      if (mode === 'development' || outputAdvertised.has(tool)) {
        const verdict = validateWith(responseValidator(s), body);
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

/** The handler of a per-release set for one release, own properties only. */
function ownHandler(set: PerReleaseHandlers, release: string): ToolHandler<any, any, any> | undefined {
  const h = Object.prototype.hasOwnProperty.call(set, release) ? set[release] : undefined;
  return typeof h === 'function' ? h : undefined;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}


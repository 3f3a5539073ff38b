import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ARTIFACT_PATHS,
  type AppliedNormalization,
  type Issue,
  type ItemOutcomesModule,
  type NormalizeFn,
  type NormalizeModule,
  type RawValidateFn,
  type RequestValidatorModule,
  type ResponseStripModule,
  type ResponseValidatorModule,
  type StripFn,
  type StripModule,
  type ValidateFn,
} from './contract.js';
import { boundedIssue, clip, MAX_REJECTION_ISSUES } from './bounds.js';
import { driftIssues, driftOf } from './drift.js';
import { AdcpError, agentFault, invalidRequest, versionUnsupported, type AdcpErrorBody } from './errors.js';
import { COMPLIANCE_CONTROLLER, controllerRejection } from './controller-rejection.js';
import { conversionFailed, conversions } from './conversions.js';
import { checkHandlers, ownHandler } from './handlers.js';
import { wrapResponseValidator, wrapValidator } from './issues.js';
import { wireIssues } from './issue-wire.js';
import { planBatch, type ItemsPlan } from './items.js';
import { loadArtifact } from './loader.js';
import { mcpRegistrar, registerMcp as registerMcpImpl } from './mcp.js';
import { a2aSkills, createA2AExecutor } from './a2a.js';
import { selectRelease, type ServedRelease } from './release-select.js';
import { parseWireVersion } from './versions.js';
import type {
  Agent,
  AgentOptions,
  AnyToolHandler,
  HandlerContext,
  HandlerMap,
  Mode,
  ToolAnnotations,
  ToolsListEntry,
  ValidationResult,
} from './agent-types.js';
import { isObject, jsonCopy, readRequest } from './json-copy.js';
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
  Relax,
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
  raw?: RawValidateFn;
  request?: ValidateFn;
  items?: ItemOutcomesModule | null;
  response?: ValidateFn;
  strip?: StripFn;
  normalize?: NormalizeFn;
  responseStrip?: ResponseStripModule;
}

interface ProfileRelease extends ServedRelease {
  readonly version: string;
  readonly tools: readonly string[];
  readonly capabilities: Record<string, unknown>;
  /** Per tool, envelope fields (`status`, `adcp_version`, `context`) its response schema refuses: never added. */
  readonly omitEnvelope?: Readonly<Record<string, readonly string[]>>;
  /** Tools whose `status` is the response's own state in this release (3.0's create_media_buy): never defaulted. */
  readonly domainStatus?: readonly string[];
  /** The `$id` prefix of the release's schemas (issues name the one that rejected), and whether they are AdCP's published ones. */
  readonly schemaIds?: { readonly base: string; readonly published: boolean };
  /** Batch tools that answer items one by one (`ARTIFACT_PATHS.items`). */
  readonly itemOutcomes?: readonly string[];
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
    profile: { releases: Omit<ProfileRelease, 'major' | 'minor' | 'prerelease'>[]; outputAdvertised: string[] };
  };
  const served: ProfileRelease[] = file.profile.releases.map((r) => {
    const version = parseWireVersion(r.key);
    // Written by the generator from the same parser: anything else is a set edited by hand.
    if (version === undefined) throw new Error(`adcp-codegen: profiles/${name}.json names release ${JSON.stringify(r.key)}, not an AdCP wire version; run adcp-codegen generate`);
    return { ...r, ...version };
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
  /**
   * The release a single function handler of `tool` is written in: the highest serving it. A buyer pinned to
   * another gets the request converted up to it and the answer converted down (docs/conversions.md).
   */
  const handlerRelease = new Map([...allTools].map((tool) => [tool, served.find((r) => r.tools.includes(tool))!]));

  const memo = new Map<string, unknown>();
  const cached = <T>(key: string, make: () => T): T => {
    if (!memo.has(key)) memo.set(key, make());
    return memo.get(key) as T;
  };
  const rawRequest = (s: ToolSlots): RawValidateFn => (s.raw ??= (loadArtifact(outDir, ARTIFACT_PATHS.request(s.release.key, s.tool)) as RequestValidatorModule).validate);
  const requestValidator = (s: ToolSlots): ValidateFn => (s.request ??= wrapValidator(rawRequest(s), { idBase: s.release.schemaIds?.base }));
  // Picks the async variant by the body's `status`, as the response schemas intend.
  const responseValidator = (s: ToolSlots): ValidateFn =>
    (s.response ??= wrapResponseValidator(loadArtifact(outDir, ARTIFACT_PATHS.response(s.release.key, s.tool)) as ResponseValidatorModule, { idBase: s.release.schemaIds?.base }));
  const itemsModule = (s: ToolSlots): ItemOutcomesModule | null =>
    (s.items ??= s.release.itemOutcomes?.includes(s.tool) === true ? (loadArtifact(outDir, ARTIFACT_PATHS.items(s.release.key, s.tool)) as ItemOutcomesModule) : null);
  /** The issues a rejection sends, under error-handling.mdx's production-emit rules (issue-wire.ts). */
  const wire = (s: ToolSlots, issues: readonly Issue[]): Issue[] => wireIssues(issues, mode, s.release.schemaIds?.published === true);
  const stripFn = (s: ToolSlots): StripFn => (s.strip ??= (loadArtifact(outDir, ARTIFACT_PATHS.strip(s.release.key, s.tool)) as StripModule).strip);
  const normalizeFn = (s: ToolSlots): NormalizeFn => (s.normalize ??= (loadArtifact(outDir, ARTIFACT_PATHS.normalize(s.release.key, s.tool)) as NormalizeModule).normalize);
  const { convertUp, convertDown } = conversions<ProfileRelease, ToolSlots>({ outDir, cached, slotIn, normalize: normalizeFn, strip: stripFn });

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

  /**
   * The request pipeline after the parse-once copy: normalize → strip (production) or drift issues → validate. A
   * request that fails keeps what it was parsed into: a batch tool may still answer its valid items (items.ts).
   */
  const parse = (
    s: ToolSlots,
    input: unknown,
  ):
    | { ok: true; value: Record<string, unknown>; normalized: AppliedNormalization[]; stripped: string[] }
    | { ok: false; issues: Issue[]; found: number; value?: Record<string, unknown>; normalized?: AppliedNormalization[]; stripped?: string[]; drift?: readonly string[] } => {
    try {
      const normalized = normalizeFn(s)(input);
      const stripped = stripFn(s)(normalized.value);
      // Both modes validate the stripped value, so the validator reports every other problem; development then
      // rejects the unknown fields production would have dropped, one issue per field — as many as a rejection
      // carries, the rest only counted (a million unknown fields make fifty issues, not a million).
      const verdict = validateWith(requestValidator(s), stripped.value);
      const drifted = mode === 'development' ? driftOf(stripped) : [];
      const drift = drifted.length;
      const issues = [...(drift > 0 ? driftIssues(drifted) : []), ...(verdict.ok ? [] : verdict.issues)];
      const value = stripped.value as Record<string, unknown>;
      if (issues.length > 0) {
        const found = drift + (verdict.ok ? 0 : verdict.issues.length);
        return { ok: false, issues, found, ...(isObject(value) ? { value, normalized: normalized.applied, stripped: stripped.removed, drift: drifted } : {}) };
      }
      return { ok: true, value, normalized: normalized.applied, stripped: stripped.removed };
    } catch (e) {
      // Strip bounds its recursion (a RangeError naming the place); so does every other stage, by the stack.
      if (e instanceof RangeError) return { ok: false, issues: [{ pointer: '', keyword: 'maxDepth', message: `nests too deeply to process: ${e.message}` }], found: 1 };
      throw e;
    }
  };

  /** The per-item plan of a failed batch request (items.ts), or undefined: it is rejected as a whole. */
  const itemsPlan = (s: ToolSlots, failed: { value?: Record<string, unknown>; drift?: readonly string[] }): ItemsPlan | undefined => {
    const module = failed.value === undefined ? null : itemsModule(s);
    if (module === null) return undefined;
    return planBatch(module, failed.value!, { tool: s.tool, raw: rawRequest(s), idBase: s.release.schemaIds?.base, drift: failed.drift ?? [], wire: (issues) => wire(s, issues) });
  };

  const bindHandlers = (handlers: HandlerMap<string>): Readonly<Record<string, AnyToolHandler>> =>
    checkHandlers(handlers, { name, tools: allTools, releasesServing, capabilities: (key) => releaseFor(key).capabilities });

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
      // An AdCP tool's arguments are one JSON object: null, an array, a number, a string or a boolean is a request
      // no schema can accept, and one with no context to echo.
      if (!isObject(args)) {
        return errorResult(invalidRequest(tool, [{ pointer: '', keyword: 'type', message: `must be an object (the tool's arguments), not ${jsonType(args)}` }]), undefined, served[0]!.key);
      }
      // The context to echo, copied now: whatever runs later (authorize, the handler) may change the parsed value,
      // which shares its objects with the arguments, or return a context of its own; the buyer gets back what it sent.
      const echo = contextSnapshot(args);
      const choice = selectRelease(served, args);
      if (!choice.ok) {
        const body =
          choice.code === 'VERSION_UNSUPPORTED' ? versionUnsupported(choice.message, choice.details) : invalidRequest(tool, choice.issues);
        return errorResult(body, echo, served[0]!.key);
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
          echo,
          r.key,
        );
      }
      const parsed = parse(s, args);
      // A batch tool whose only defects are inside some items answers those as failed rows (items.ts).
      const plan = parsed.ok ? undefined : itemsPlan(s, parsed);
      if (!parsed.ok && plan === undefined) {
        const issues = wire(s, parsed.issues);
        return tool === COMPLIANCE_CONTROLLER
          ? controllerRejection(issues, parsed.found, echo, r.key)
          : errorResult(invalidRequest(tool, issues, parsed.found), echo, r.key);
      }
      const asked = plan?.value ?? (parsed.value as Record<string, unknown>);
      const applied = { normalized: parsed.normalized ?? [], stripped: parsed.stripped ?? [] };

      const fn = typeof handler === 'function' ? handler : ownHandler(handler, r.key);
      if (fn === undefined) return errorResult(agentFault(tool, `the agent has no handler for AdCP ${r.key}`), echo, r.key);
      // One function is written in the highest release serving the tool; a per-release handler in its own.
      const shape = typeof handler === 'function' ? handlerRelease.get(tool)! : r;
      let value = asked;
      if (shape !== r && plan?.body === undefined) {
        try {
          value = convertUp(shape, r, tool, value);
        } catch (e) {
          return errorResult(conversionFailed(tool, `the AdCP ${r.key} request to AdCP ${shape.key}`, e), echo, r.key);
        }
      }
      let result: unknown;
      try {
        // The transport's context is copied inside the guard: a getter there is the host's bug, not the buyer's.
        if (plan?.body !== undefined) {
          // No valid item left: the runtime's own answer, in this release already; the handler is not called.
          result = plan.body;
        } else {
          const hctx: HandlerContext = { ...ctx, tool, release: r.key, mode, ...applied, ...(plan !== undefined ? { requestIndex: plan.requestIndex } : {}) };
          if (options.authorize !== undefined) await options.authorize(tool, value, hctx);
          result = await fn(value, hctx);
        }
        if (result instanceof AdcpError) throw result;
        // Read once too: a result with throwing getters, cycles or BigInts is the agent's failure, answered as one.
        const copy = jsonCopy(result);
        if (!copy.ok) throw new Error('the handler returned a value that cannot be read as JSON');
        result = copy.value;
      } catch (e) {
        return errorResult(thrownBody(tool, e), echo, r.key);
      }
      if (result === null || typeof result !== 'object' || Array.isArray(result)) {
        return errorResult(agentFault(tool, 'the handler returned no response object'), echo, r.key);
      }
      let resultBody = result as Record<string, unknown>;
      if (isAdcpErrorBody(resultBody.adcp_error)) return errorResult(resultBody.adcp_error as AdcpErrorBody, echo, r.key);
      if (shape !== r && plan?.body === undefined) {
        try {
          const down = convertDown(shape, r, tool, resultBody, asked);
          if ('refused' in down) {
            const message = `${tool}: this answer has no AdCP ${r.key} form (${down.refused}); AdCP ${shape.key} carries it`;
            return errorResult({ code: 'UNSUPPORTED_FEATURE', message, recovery: 'correctable', details: { tool, supported_versions: [shape.key] } }, echo, r.key);
          }
          resultBody = down.body;
        } catch (e) {
          return errorResult(conversionFailed(tool, `the AdCP ${shape.key} answer to AdCP ${r.key}`, e), echo, r.key);
        }
      }
      // The failed items' rows, at their request positions among the handler's (now in this release's shape).
      if (plan !== undefined && plan.body === undefined) resultBody = plan.merge(resultBody);

      const envelope = responseEnvelope(resultBody, echo?.context, r.key, (body) => statusDefined(responseValidator(s), body), !(r.domainStatus ?? []).includes(tool));
      if (!envelope.ok) return errorResult(agentFault(tool, envelope.message), echo, r.key);
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
              ? agentFault(tool, `${problem}: ${first.pointer === '' ? 'the response' : clip(first.pointer)} ${clip(first.message)}`, { tool, response_issues: verdict.issues.slice(0, MAX_REJECTION_ISSUES).map(boundedIssue) })
              : agentFault(tool, problem, { tool }),
            echo,
            r.key,
          );
        }
      }
      return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
    },

    registerMcp(server, handlers) {
      registerMcpImpl(agent, server, bindHandlers(handlers as HandlerMap<string>));
    },
    mcpServerFactory(handlers, create) {
      // Checked once, here, before the caller's server listens: a set that does not match the profile never reaches
      // a request.
      const bound = bindHandlers(handlers as HandlerMap<string>);
      if (typeof create !== 'function') throw new Error('adcp-codegen: mcpServerFactory needs a function that creates an McpServer');
      const registerOn = mcpRegistrar(agent, bound);
      return () => {
        const server = create();
        registerOn(server);
        return server;
      };
    },
    a2aExecutor: (handlers, a2aOptions) => createA2AExecutor(agent, bindHandlers(handlers as HandlerMap<string>), a2aOptions),
    a2aSkills: (release) => a2aSkills(agent, release),
  };
  return agent;
}

function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : v === undefined ? 'nothing' : `a ${typeof v}`;
}

/**
 * `{ context }` holding a private copy of the arguments' context (they are the parse-once JSON copy, so the copy
 * cannot fail), or undefined when there is none: what every answer to this call echoes.
 */
function contextSnapshot(args: Record<string, unknown>): { context: unknown } | undefined {
  if (!Object.prototype.hasOwnProperty.call(args, 'context') || args.context === undefined) return undefined;
  const copy = jsonCopy(args.context);
  return copy.ok ? { context: copy.value } : undefined;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}


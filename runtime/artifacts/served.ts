import type { Mode } from '../api/agent-types.js';
import { conversions } from './conversions.js';
import { wrapResponseValidator, wrapValidator } from '../issues/issues.js';
import { wireIssues } from '../issues/issue-wire.js';
import { UnknownToolError } from '../wire/results.js';
import {
  ARTIFACT_PATHS,
  type Issue,
  type ItemOutcomesModule,
  type NormalizeFn,
  type NormalizeModule,
  type RawValidateFn,
  type ToolValidators,
  type ResponseStripModule,
  type ValidatorsModule,
  type StripFn,
  type StripModule,
  type ValidateFn,
} from './contract.js';
import { loadArtifact } from './loader.js';
import { readProfile, type ProfileRelease } from './profile.js';

/**
 * A profile of the generated set as the call stages see it: its served releases and, per release and tool, the
 * compiled artifacts, each loaded on first use and kept. Nothing here compiles: every function is a file of the set.
 */

/** One tool in one release, and its artifacts, loaded on first use. */
export interface ToolSlots {
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

export interface Served {
  readonly name: string;
  readonly outDir: string;
  readonly mode: Mode;
  /** The profile's surface: a sandbox deployment (conformance runs) or production. */
  readonly surface: 'production' | 'sandbox';
  /** Served releases, highest first. */
  readonly releases: readonly ProfileRelease[];
  /** What a call pinning no release is served (profile.ts); undefined: such calls are refused. */
  readonly defaultRelease: ProfileRelease | undefined;
  /** Every tool the profile serves in some release. */
  readonly tools: ReadonlySet<string>;
  /** Tools advertised with an outputSchema: their responses are validated in production too. */
  readonly outputAdvertised: ReadonlySet<string>;
  /** The release `key` names (default: the default release, else the highest); an Error naming the served ones when it serves no such release. */
  release(key?: string): ProfileRelease;
  /** The served release with exactly this key. */
  byKey(key: string): ProfileRelease | undefined;
  /** The tool's slot in release `r`, undefined when `r` does not serve it. */
  slot(r: ProfileRelease, tool: string): ToolSlots | undefined;
  /** The tool's slot in the release `key` names; UnknownToolError when it does not serve it. */
  requireTool(tool: string, key: string | undefined): ToolSlots;
  /** The served releases that serve `tool`, highest first. */
  releasesServing(tool: string): string[];
  /**
   * The release a single function handler of `tool` is written in: the highest serving it. A buyer pinned to
   * another gets the request converted up to it and the answer converted down (docs/conversions.md).
   */
  handlerRelease(tool: string): ProfileRelease;
  rawRequest(s: ToolSlots): RawValidateFn;
  request(s: ToolSlots): ValidateFn;
  /** Picks the async variant by the body's `status`, as the response schemas intend. */
  response(s: ToolSlots): ValidateFn;
  items(s: ToolSlots): ItemOutcomesModule | null;
  strip(s: ToolSlots): StripFn;
  normalize(s: ToolSlots): NormalizeFn;
  /** The issues a rejection sends, under error-handling.mdx's production-emit rules (issue-wire.ts). */
  wire(s: ToolSlots, issues: readonly Issue[]): Issue[];
  readonly convertUp: (newer: ProfileRelease, older: ProfileRelease, tool: string, request: Record<string, unknown>) => Record<string, unknown>;
  /** Request places `newer` requires that an `older` request of `tool` may lack: their absence is no defect. */
  readonly requestGaps: (newer: ProfileRelease, older: ProfileRelease, tool: string) => readonly string[];
  readonly convertDown: (
    newer: ProfileRelease,
    older: ProfileRelease,
    tool: string,
    body: Record<string, unknown>,
    request: Record<string, unknown>,
  ) => { body: Record<string, unknown> } | { refused: string };
  /** A value made once per profile and key (the tools/list, conversion modules). */
  cached<T>(key: string, make: () => T): T;
}

export function openServed(outDir: string, name: string, mode: Mode): Served {
  const file = readProfile(outDir, name);
  const releases = file.releases;
  const byKey = new Map(releases.map((r) => [r.key, r]));
  const slots = new Map<ProfileRelease, Map<string, ToolSlots>>(releases.map((r) => [r, new Map(r.tools.map((tool) => [tool, { release: r, tool }]))]));
  const tools = new Set(releases.flatMap((r) => r.tools));
  const handlerRelease = new Map([...tools].map((tool) => [tool, releases.find((r) => r.tools.includes(tool))!]));
  const memo = new Map<string, unknown>();
  const cached = <T>(key: string, make: () => T): T => {
    if (!memo.has(key)) memo.set(key, make());
    return memo.get(key) as T;
  };
  const release = (key?: string): ProfileRelease => {
    if (key === undefined) return file.defaultRelease ?? releases[0]!;
    const r = byKey.get(key);
    if (r === undefined) throw new Error(`adcp-codegen: profile ${name} does not serve release ${key} (serves ${[...byKey.keys()].join(', ')})`);
    return r;
  };
  const slot = (r: ProfileRelease, tool: string): ToolSlots | undefined => slots.get(r)!.get(tool);
  const load = <T>(path: string): T => loadArtifact(outDir, path) as T;
  const idBase = (s: ToolSlots): { idBase?: string } => ({ idBase: s.release.schemaIds?.base });
  const validators = (s: ToolSlots): ToolValidators => {
    const all = load<ValidatorsModule>(ARTIFACT_PATHS.validators(s.release.key));
    if (!Object.hasOwn(all, s.tool)) throw new Error(`adcp-codegen: the set's ${s.release.key} validators have no ${s.tool}: regenerate`);
    return all[s.tool]!;
  };
  const rawRequest = (s: ToolSlots): RawValidateFn => (s.raw ??= validators(s).request);
  const strip = (s: ToolSlots): StripFn => (s.strip ??= load<StripModule>(ARTIFACT_PATHS.strip(s.release.key, s.tool)).strip);
  const normalize = (s: ToolSlots): NormalizeFn => (s.normalize ??= load<NormalizeModule>(ARTIFACT_PATHS.normalize(s.release.key, s.tool)).normalize);
  // Made on the first converted call: a set serving one release never loads the conversions' module.
  let made: ReturnType<typeof conversions<ProfileRelease, ToolSlots>> | undefined;
  const converting = () => (made ??= conversions<ProfileRelease, ToolSlots>({ outDir, cached, slotIn: slot, normalize, strip }));
  return {
    name,
    outDir,
    mode,
    surface: file.surface,
    releases,
    defaultRelease: file.defaultRelease,
    tools,
    outputAdvertised: file.outputAdvertised,
    release,
    byKey: (key) => byKey.get(key),
    slot,
    requireTool(tool, key) {
      const s = slot(release(key), tool);
      if (s === undefined) throw new UnknownToolError(tool);
      return s;
    },
    releasesServing: (tool) => releases.filter((r) => r.tools.includes(tool)).map((r) => r.key),
    handlerRelease: (tool) => handlerRelease.get(tool)!,
    rawRequest,
    request: (s) => (s.request ??= wrapValidator(rawRequest(s), idBase(s))),
    response: (s) => {
      if (s.response !== undefined) return s.response;
      const v = validators(s);
      return (s.response = wrapResponseValidator({ validate: v.response, validateAsync: v.responseAsync }, idBase(s)));
    },
    items: (s) => (s.items ??= s.release.itemOutcomes?.includes(s.tool) === true ? load<ItemOutcomesModule>(ARTIFACT_PATHS.items(s.release.key, s.tool)) : null),
    strip,
    normalize,
    wire: (s, issues) => wireIssues(issues, mode, s.release.schemaIds?.published === true),
    convertUp: (...a) => converting().convertUp(...a),
    convertDown: (...a) => converting().convertDown(...a),
    requestGaps: (...a) => converting().gaps(...a),
    cached,
  };
}

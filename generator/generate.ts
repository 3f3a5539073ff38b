import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CompileResult } from './compile/index.js';
import type { ProfileData } from './emit/index.js';
import { load, readInputs, displayPath, loadConversionRules, loadNormalizationRules, loadOverlays, MANIFEST, readManifest, type ConfigOverrides, type ConversionRuleFile, type EmittedFile, type InputFiles, type InputRef, type Inputs, type NormalizationRule, type Overlay, type OutputManifest } from './load/index.js';
import { recordSet, recordUnits, reusable, upToDate } from './previous-set.js';
import type { Selection } from './select/index.js';
import { buildCache, generatorCodeHash, generatorVersion, CodegenError, sha256, createLogger, type BuildCache, type Logger } from './shared/index.js';
import { diffOutput, loadableForeignFiles, manifestFile, openOutput, pathList, write } from './write/index.js';

export interface GenerateOptions extends ConfigOverrides {
  /**
   * Compare instead of writing: compile everything from scratch (no build cache read, no file reused), report every
   * file that differs, is missing, or could be loaded without being generated; change nothing.
   */
  readonly check?: boolean;
  /** Write into an existing, non-empty `out` that holds no adcp-codegen manifest (its other files are kept). */
  readonly adopt?: boolean;
  /**
   * Reuse what this user's generator recorded producing: the whole set when nothing changed, else the files of
   * compile units whose inputs are unchanged (default). `false` compiles everything, as a cold run would.
   */
  readonly reuse?: boolean;
  readonly logger?: Logger;
}

export interface GenerateResult {
  readonly out: string;
  /** Every generated file, relative to `out`. */
  readonly files: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
  /** True when inputs and output were already in step and nothing was compiled. */
  readonly upToDate: boolean;
  /** --check: files whose content differs, that are missing, or that should not be there. */
  readonly drift: readonly string[];
  readonly warnings: readonly string[];
  /** Notes on the inputs that are not wrong (a served tool a release deprecates), said again when nothing changed. */
  readonly notes: readonly string[];
}

/** What every stage of one run reports to, and where it writes. */
interface Run {
  readonly out: string;
  /** `out` as messages name it (relative to the working directory when inside it). */
  readonly shown: string;
  readonly log: Logger;
  /** A warning, logged and returned in the result. */
  warn(message: string): void;
  readonly warnings: string[];
  /** A note, logged, returned in the result and recorded with the set. */
  note(message: string): void;
  readonly notes: string[];
  /** The time since the previous lap (or the start), for each stage's line. */
  lap(): number;
}

/**
 * The whole pipeline: load → select → project → compile → emit → format → write (or, with --check, compare). Each
 * stage is a function of the previous stage's output; only `write` touches the output directory, and only with a
 * complete set.
 */
export async function generate(options: GenerateOptions = {}): Promise<GenerateResult> {
  const check = options.check === true;
  const started = performance.now();
  const files = readInputs(options);
  const run = startRun(files.config.out, options.logger ?? createLogger(), started);
  // One writer per output directory, and what killed runs left is finished or cleared first (write/open-output.ts):
  // before the previous manifest is read, so a pending commit is never mistaken for the set.
  using output = check ? undefined : openOutput(run.out, { adopt: options.adopt === true, display: run.shown });
  for (const r of output?.recovered ?? []) run.log.info(`${run.shown}: ${r}`);
  const sources = hashInputs(files);
  // --check trusts nothing it did not derive in this run: it reads no build cache and reuses no file.
  const cache = buildCache({ read: !check });
  if (cache.unusable !== undefined) run.log.info(cache.unusable);
  const reuse = !check && options.reuse !== false;
  // Read once: under the lock when writing (openOutput read it after recovery), plainly for --check.
  const previous = output !== undefined ? output.manifest : readManifest(run.out);
  const record = reuse && previous !== undefined ? upToDate(run.out, previous, sources.inputsHash, cache) : undefined;
  if (previous !== undefined && record !== undefined) {
    for (const n of record.notes) run.note(n);
    run.log.info(`${run.shown} is up to date: nothing changed`);
    // The up-to-date path reads only what the manifest owns: a file left beside them (a `git checkout` reverting a
    // regeneration leaves its new files) is still warned about, as a writing run does.
    warnLoadable(run, new Set([...Object.keys(previous.files), MANIFEST]));
    return { out: run.out, files: Object.keys(previous.files), changed: [], removed: [], upToDate: true, drift: [], warnings: run.warnings, notes: run.notes };
  }

  const stages = await importStages();
  const inputs = load(files, cache);
  run.log.stage('load', `${inputs.releases.map((r) => `AdCP ${r.version}`).join(', ')}; ${inputs.profiles.length} profile(s); ${sources.rules.length} normalization rule(s); ${sources.overlays.length} overlay(s)`, run.lap());
  const selections = stages.select(inputs.profiles, inputs.served);
  const selected = [...selections.values()].flat();
  run.log.stage('select', selected.map((s) => `${s.tools.length}`).join('+') + ` tools over ${selected.length} profile×release surface(s)`, run.lap());
  for (const d of stages.deprecations(selections)) run.note(stages.deprecationNote(d));
  const releaseKeys = inputs.releases.filter((r) => selected.some((s) => s.release === r && s.tools.length > 0)).map((r) => r.key);
  const projected = project(run, stages, inputs, selections, sources, releaseKeys);

  // Each unit's files people read are formatted on another thread while the next units compile.
  const ahead = new stages.FormatAhead(cache);
  try {
    const fresh: EmittedFile[] = [...projected];
    const compiled = await compileUnits(run, stages, inputs, selections, sources, { ahead, fresh, reuse: reuse ? (key) => reusable(run.out, key, cache) : () => undefined });
    if (releaseKeys.join() !== [...compiled.tools.keys()].join()) throw new Error('adcp-codegen bug: compiled releases differ from the selected ones');
    run.log.stage('emit', `${fresh.length} file(s)`, run.lap());
    const all = await formatSet(run, stages, fresh, compiled, sources.inputsHash, ahead, cache);
    recordUnits(cache, compiled.units, all);
    return check ? checkOutput(run, all, previous, cache) : writeOutput(run, all, previous, cache);
  } finally {
    await ahead.close();
  }
}

function startRun(out: string, log: Logger, started: number): Run {
  const warnings: string[] = [];
  const notes: string[] = [];
  let t = started;
  return {
    out,
    shown: out.startsWith(process.cwd() + '/') ? out.slice(process.cwd().length + 1) : out,
    log,
    warn: (m) => {
      warnings.push(m);
      log.warn(m);
    },
    warnings,
    note: (m) => {
      notes.push(m);
      log.note(m);
    },
    notes,
    lap: () => {
      const now = performance.now();
      const ms = now - t;
      t = now;
      return ms;
    },
  };
}

interface Sources {
  readonly rules: readonly NormalizationRule[];
  readonly overlays: readonly Overlay[];
  readonly conversionRules: readonly ConversionRuleFile[];
  /** Per rule file, as the loaders hashed them, named as the compiled modules' headers name them. */
  readonly ruleHashes: readonly (readonly [string, string])[];
  /** The generator's own code, templates and output-shaping dependencies. */
  readonly code: string;
  /** Everything an output depends on: equal means a regeneration would write the same bytes. */
  readonly inputsHash: string;
}

/**
 * Every input hashed from the files' bytes before any release is parsed: an unchanged regeneration costs reading and
 * hashing, nothing more. Rule and overlay files are named by their path from the working directory: in error
 * messages and in the headers of generated files, never an absolute path.
 */
function hashInputs(files: InputFiles): Sources {
  const { config } = files;
  const cwd = process.cwd();
  const rules = loadNormalizationRules(config.normalizations.map((f) => displayPath(f, cwd)));
  const overlays = loadOverlays(config.overlays.map((f) => displayPath(f, cwd)));
  const conversionRules = loadConversionRules(config.conversions.map((f) => displayPath(f, cwd)));
  const code = generatorCodeHash();
  const ruleHashes = [...new Map(rules.map((r) => [r.file, r.fileHash])).entries()];
  const inputsHash = sha256(
    JSON.stringify({
      generator: generatorVersion,
      code,
      releases: config.releaseDirs.map((r, i) => ({ name: r.display, hash: files.digests[i]!.hash })),
      profiles: files.profiles.map((p) => ({ name: `profile:${p.file}`, hash: p.hash })),
      rules: ruleHashes,
      conversions: conversionRules.map((f) => ({ name: `conversion:${f.file}`, hash: f.fileHash })),
      overlays: overlays.map((o) => ({ name: `overlay:${o.file}`, hash: o.hash })),
      acceptedRecords: config.acceptedRecords,
      strict: config.strict,
    }),
  );
  return { rules, overlays, conversionRules, ruleHashes, code, inputsHash };
}

/**
 * The compile stages and their dependencies (Ajv's code generation, json-schema-to-typescript, handlebars), loaded
 * only when there is something to generate: a no-op run never pays for them.
 */
async function importStages() {
  const [project, compile, emit, format, select] = await Promise.all([
    import('./project/index.js'),
    import('./compile/index.js'),
    import('./emit/index.js'),
    import('./format/index.js'),
    import('./select/index.js'),
  ]);
  return { ...project, ...compile, ...emit, ...format, ...select };
}

type Stages = Awaited<ReturnType<typeof importStages>>;
type Selections = ReadonlyMap<string, readonly Selection[]>;

/**
 * Projection, and every file that is not a compile unit's: entry modules, the runtime, per-profile data and the
 * advertised schemas. In its own function so the projected schema objects (tens of MB for 3.2), rendered to text
 * here, can be collected before the compile stage, which is where a cold run peaks in memory.
 */
function project(run: Run, stages: Stages, inputs: Inputs, selections: Selections, sources: Sources, releaseKeys: readonly string[]): EmittedFile[] {
  const { config } = inputs;
  const advertised = new stages.AdvertisedSources(sources.overlays);
  const profiles: ProfileData[] = inputs.profiles.map((profile) => {
    const ss = selections.get(profile.name)!;
    stages.servedCapabilities(profile, ss.map((s) => s.release)); // a stated supported_versions must match: fail before compiling
    return { profile, selections: ss, advertised: stages.advertise(profile, ss, advertised, config.acceptedRecords) };
  });
  // A capability key no served release defines is advertised as written: a warning (a misspelling, usually), an
  // error with --strict.
  for (const p of profiles) {
    const releases = p.selections.map((s) => s.release);
    const [first, ...others] = releases.map((r) => stages.undeclaredCapabilities(p.profile.capabilities, r));
    for (const u of first!) {
      if (!others.every((undeclared) => undeclared.some((o) => o.pointer === u.pointer))) continue;
      const message = `capability ${JSON.stringify(u.key)} is not defined by ${releases.map((r) => `AdCP ${r.version}`).join(' or ')}'s get_adcp_capabilities response; it is advertised as written`;
      if (config.strict) throw new CodegenError(p.profile.file, u.pointer, `${message} (--strict)`);
      run.warn(`${p.profile.file}#${u.pointer}: ${message}`);
    }
  }
  // A profile serving only pre-releases and naming none as its default refuses every buyer that pins no release.
  for (const { profile, selections: ss } of profiles) {
    if (profile.defaultRelease !== undefined || ss.some((s) => s.release.prerelease === undefined)) continue;
    const message = `serves only pre-releases (${ss.map((s) => s.release.key).join(', ')}) and names no default_release: a call without adcp_version is refused (VERSION_UNSUPPORTED), as a pre-release is matched only by an exact pin; name the one to serve such calls as default_release`;
    if (config.strict) throw new CodegenError(profile.file, '/default_release', `${message} (--strict)`);
    run.warn(`${profile.file}#/default_release: ${message}`);
  }
  // A shared definition appears in many tools' documents: report each finding once.
  for (const f of new Map(advertised.findings.map((f) => [`${f.pointer}\0${f.message}`, f])).values()) {
    if (config.strict) throw new CodegenError(f.file, f.pointer, `${f.message} (--strict)`);
    run.warn(`${f.file}#${f.pointer}: ${f.message}`);
  }
  const schemaFiles = new Map<string, EmittedFile>();
  for (const p of profiles) {
    for (const entries of [...p.advertised.releases.map((r) => r.entries), p.advertised.endpoint]) {
      for (const e of entries) {
        for (const s of [e.inputSchema, e.outputSchema]) {
          if (s !== undefined && !schemaFiles.has(s.path)) schemaFiles.set(s.path, stages.jsonFile(s.path, 'schema', s.schema, s.inputs));
        }
      }
    }
  }
  // What the MCP SDK's own client will accept, checked before anything is written (skipped without the SDK).
  const checked = stages.checkToolsLists(profiles, resolve(process.cwd(), config.file ?? 'adcp-codegen.config.json'));
  run.log.stage(
    'project',
    `${schemaFiles.size} advertised schema document(s); ${checked === undefined ? 'tools/list not checked (no @modelcontextprotocol/sdk)' : `${checked} tools/list(s) accepted by the MCP SDK`}`,
    run.lap(),
  );
  const inputRefs: InputRef[] = [
    ...inputs.releases.map((r) => ({ name: r.label, hash: r.hash })),
    ...inputs.profiles.map((p) => ({ name: `profile:${p.file}`, hash: p.hash })),
    ...sources.ruleHashes.map(([file, hash]) => ({ name: `normalization:${file}`, hash })),
    ...sources.conversionRules.map((f) => ({ name: `conversion:${f.file}`, hash: f.fileHash })),
    ...sources.overlays.map((o) => ({ name: `overlay:${o.file}`, hash: o.hash })),
  ];
  return [...stages.entryFiles(profiles, releaseKeys, inputRefs), ...stages.runtimeFiles(), ...profiles.flatMap(stages.profileFiles), ...schemaFiles.values()];
}

/**
 * The compile units (compile/compile.ts): each reused when `reuse` vouches for its files, else compiled, headed
 * once, added to `fresh` (the files to format and write) and submitted to the formatting thread as it comes.
 */
async function compileUnits(
  run: Run,
  stages: Stages,
  inputs: Inputs,
  selections: Selections,
  sources: Sources,
  to: { ahead: InstanceType<Stages['FormatAhead']>; fresh: EmittedFile[]; reuse: (key: string) => EmittedFile[] | undefined },
): Promise<CompileResult> {
  const compiled = await stages.compile(inputs.releases, selections, sources.rules, {
    generatorHash: sources.code,
    conversionRules: sources.conversionRules,
    reuse: (_id, key) => to.reuse(key),
    onUnit: (id, ms, files) => {
      run.log.detail(`compiled ${id} in ${Math.round(ms)} ms`);
      const headed = files.map((f) => stages.withHeader(f));
      to.fresh.push(...headed);
      to.ahead.submit(headed);
    },
  });
  stages.reportSkippedRules(compiled.skippedRules, run.log);
  stages.reportConversions(compiled.conversions, run.log, inputs.config.strict, run.warn);
  const reused = compiled.units.filter((u) => u.reused);
  run.log.stage(
    'compile',
    [...compiled.tools].map(([k, ts]) => `${ts.length} tools for ${k}`).join(', ') +
      `; ${compiled.units.length - reused.length} unit(s) compiled` +
      (reused.length > 0 ? `, ${reused.length} reused from ${run.shown} (${reused.map((u) => u.id).join(', ')})` : ''),
    run.lap(),
  );
  return compiled;
}

/** Prettier over the fresh files people read, the reused units' finished files beside them, and the manifest last. */
async function formatSet(run: Run, stages: Stages, fresh: readonly EmittedFile[], compiled: CompileResult, inputsHash: string, ahead: InstanceType<Stages['FormatAhead']>, cache: BuildCache): Promise<EmittedFile[]> {
  const pretty = fresh.filter(stages.formatted);
  run.log.detail(`prettier over ${pretty.length} file(s), ${(pretty.reduce((n, f) => n + f.contents.length, 0) / 1e6).toFixed(2)} MB: ${[...new Set(pretty.map((f) => f.path.replace(/[^/]*$/, '')))].join(', ')}`);
  const formatted = await stages.format(fresh, cache, ahead);
  const all = stages.dedupe([...formatted, ...compiled.units.filter((u) => u.reused).flatMap((u) => u.files)]).sort((a, b) => (a.path < b.path ? -1 : 1));
  const units = Object.fromEntries(compiled.units.map((u) => [u.id, { key: u.key, files: [...new Set(u.files.map((f) => f.path))].sort() }]));
  all.push(manifestFile(all, `adcp-codegen ${generatorVersion}`, inputsHash, units));
  run.log.stage('format', `${(all.reduce((n, f) => n + f.contents.length, 0) / 1e6).toFixed(2)} MB`, run.lap());
  return all;
}

/**
 * --check: every file of the set compiled from scratch against `out`, byte for byte (the manifest too: a generator
 * change that alters no file still changes what a regeneration writes there), and every file in `out` Node or the
 * runtime could load that the set does not own. A set found in step is recorded as this generator's own.
 */
function checkOutput(run: Run, all: readonly EmittedFile[], previous: OutputManifest | undefined, cache: BuildCache): GenerateResult {
  const d = diffOutput(run.out, all, previous);
  const foreign = loadableForeignFiles(run.out, new Set(all.map((f) => f.path)));
  const drift = [
    ...d.stale,
    ...d.missing.map((p) => `${p} (missing)`),
    ...d.extra.filter((p) => p !== MANIFEST).map((p) => `${p} (not generated)`),
    ...foreign.map((p) => `${p} (not generated, and Node or the runtime could load it: remove it)`),
  ];
  if (drift.length === 0) recordSet(cache, all.find((f) => f.path === MANIFEST)!, run.notes);
  run.log.stage('check', drift.length === 0 ? `${run.shown} is in step` : `${drift.length} file(s) out of step`, run.lap());
  return { out: run.out, files: all.map((f) => f.path), changed: [], removed: [], upToDate: drift.length === 0, drift, warnings: run.warnings, notes: run.notes };
}

function writeOutput(run: Run, all: readonly EmittedFile[], previous: OutputManifest | undefined, cache: BuildCache): GenerateResult {
  const report = write(run.out, all, previous);
  recordSet(cache, all.find((f) => f.path === MANIFEST)!, run.notes);
  const summary = report.changed.length + report.removed.length === 0 ? `nothing changed in ${run.shown}` : `${report.changed.length} written, ${report.removed.length} removed, ${report.unchanged} unchanged in ${run.shown}`;
  run.log.stage('write', summary, run.lap());
  if (report.replaced.length > 0) run.log.warn(`replaced ${report.replaced.length} file(s) adcp-codegen had not written: ${pathList(report.replaced)}`);
  const loadable = warnLoadable(run, new Set(all.map((f) => f.path)));
  const inert = report.kept.filter((p) => !loadable.includes(p));
  if (inert.length > 0) run.log.info(`left ${inert.length} file(s) adcp-codegen does not own as they are: ${pathList(inert)}`);
  return { out: run.out, files: all.map((f) => f.path), changed: report.changed, removed: report.removed, upToDate: false, drift: [], warnings: run.warnings, notes: run.notes };
}

/** Warns about the files in `out` Node or the runtime could load that the set does not own (--check fails on them). */
function warnLoadable(run: Run, owned: ReadonlySet<string>): string[] {
  const loadable = loadableForeignFiles(run.out, owned);
  if (loadable.length > 0) run.log.warn(`${loadable.length} file(s) in ${run.shown} that Node or the runtime could load are not adcp-codegen's (--check fails on them): ${pathList(loadable)}`);
  return loadable;
}

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Advertisement } from './project/index.js';
import type { ProfileData } from './emit/index.js';
import { generatorCodeHash, generatorVersion, CodegenError, sha256, createLogger, type Logger } from './shared/index.js';
import { load, readInputs, displayPath, loadConversionRules, loadNormalizationRules, loadOverlays, MANIFEST, readManifest, type ConfigOverrides, type EmittedFile, type InputRef, type OutputManifest } from './load/index.js';
import { diffOutput, manifestFile, openOutput, outputIntact, pathList, write } from './write/index.js';

export interface GenerateOptions extends ConfigOverrides {
  /** Compare instead of writing: report drift, change nothing. */
  readonly check?: boolean;
  /** Write into an existing, non-empty `out` that holds no adcp-codegen manifest (its other files are kept). */
  readonly adopt?: boolean;
  /**
   * Reuse the previous set's files of compile units whose inputs are unchanged (default). `false` compiles
   * everything, as a cold run would.
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
}

/**
 * The whole pipeline: load → select → project → compile → emit → format → write. Each stage is a function of the
 * previous stage's output; only `write` touches the output directory, and only with a complete set.
 */
export async function generate(options: GenerateOptions = {}): Promise<GenerateResult> {
  const log = options.logger ?? createLogger();
  const warnings: string[] = [];
  const warn = (m: string): void => {
    warnings.push(m);
    log.warn(m);
  };
  let t = performance.now();
  const lap = (): number => {
    const now = performance.now();
    const ms = now - t;
    t = now;
    return ms;
  };

  // Everything an output depends on, hashed from the files' bytes before any release is parsed: an unchanged
  // regeneration costs reading and hashing, nothing more.
  const files = readInputs(options);
  const { config } = files;
  // One writer per output directory, and what killed runs left is finished or cleared first (write/open-output.ts): before the
  // previous manifest is read, so a pending commit is never mistaken for the set.
  using output = options.check === true ? undefined : openOutput(config.out, { adopt: options.adopt === true, display: displayOut(config.out) });
  for (const r of output?.recovered ?? []) log.info(`${displayOut(config.out)}: ${r}`);
  // Rule and overlay files are named by their path from the working directory: in error messages and in the
  // headers of generated files, never an absolute path.
  const cwd = process.cwd();
  const rules = loadNormalizationRules(config.normalizations.map((f) => displayPath(f, cwd)));
  const overlays = loadOverlays(config.overlays.map((f) => displayPath(f, cwd)));
  const conversionRules = loadConversionRules(config.conversions.map((f) => displayPath(f, cwd)));
  const code = generatorCodeHash();
  // As the loaders hashed them, named as the compiled modules' headers name them: no file is read twice.
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
  // Read once: under the lock when writing (openOutput read it after recovery), plainly for --check.
  const previous = output !== undefined ? output.manifest : readManifest(config.out);
  if (options.reuse !== false && previous !== undefined && previous.inputsHash === inputsHash && outputIntact(config.out, previous)) {
    log.info(`${displayOut(config.out)} is up to date: nothing changed`);
    return { out: config.out, files: Object.keys(previous.files), changed: [], removed: [], upToDate: true, drift: [], warnings };
  }

  // The compile stages and their dependencies (Ajv's code generation, json-schema-to-typescript, handlebars) load
  // only when there is something to generate: a no-op run never pays for them.
  const [
    { advertise, AdvertisedSources, servedCapabilities },
    { compile, dedupe, reportConversions, reportSkippedRules },
    { checkToolsLists, entryFiles, jsonFile, profileFiles, runtimeFiles, withHeader },
    { format, formatted: formattedByPrettier, FormatAhead },
    { select },
  ] = await Promise.all([
    import('./project/index.js'),
    import('./compile/index.js'),
    import('./emit/index.js'),
    import('./format/index.js'),
    import('./select/index.js'),
  ]);
  const inputs = load(files);
  log.stage('load', `${inputs.releases.map((r) => `AdCP ${r.version}`).join(', ')}; ${inputs.profiles.length} profile(s); ${rules.length} normalization rule(s); ${overlays.length} overlay(s)`, lap());
  const inputRefs: InputRef[] = [
    ...inputs.releases.map((r) => ({ name: r.label, hash: r.hash })),
    ...inputs.profiles.map((p) => ({ name: `profile:${p.file}`, hash: p.hash })),
    ...ruleHashes.map(([file, hash]) => ({ name: `normalization:${file}`, hash })),
    ...conversionRules.map((f) => ({ name: `conversion:${f.file}`, hash: f.fileHash })),
    ...overlays.map((o) => ({ name: `overlay:${o.file}`, hash: o.hash })),
  ];

  const selections = select(inputs.profiles, inputs.served);
  const selected = [...selections.values()].flat();
  log.stage('select', selected.map((s) => `${s.tools.length}`).join('+') + ` tools over ${selected.length} profile×release surface(s)`, lap());

  // Projection in its own scope: the projected schema objects (tens of MB for 3.2) are rendered to text here and
  // can be collected before the compile stage, which is where a cold run peaks in memory.
  const releaseKeys = inputs.releases.filter((r) => selected.some((s) => s.release === r && s.tools.length > 0)).map((r) => r.key);
  const projected = ((): EmittedFile[] => {
    const sources = new AdvertisedSources(overlays);
    const profiles: ProfileData[] = inputs.profiles.map((profile) => {
      const ss = selections.get(profile.name)!;
      servedCapabilities(profile, ss.map((s) => s.release)); // a stated supported_versions must match: fail before compiling
      const advertised: Advertisement = advertise(profile, ss, sources, config.acceptedRecords);
      return { profile, selections: ss, advertised };
    });
    // A shared definition appears in many tools' documents: report each finding once.
    const findings = [...new Map(sources.findings.map((f) => [`${f.pointer}\0${f.message}`, f])).values()];
    for (const f of findings) {
      const message = `${f.file}#${f.pointer}: ${f.message}`;
      if (config.strict) throw new CodegenError(f.file, f.pointer, `${f.message} (--strict)`);
      warn(message);
    }
    const advertisedFiles = new Map<string, EmittedFile>();
    for (const p of profiles) {
      for (const entries of [...p.advertised.releases.map((r) => r.entries), p.advertised.endpoint]) {
        for (const e of entries) {
          for (const s of [e.inputSchema, e.outputSchema]) {
            if (s !== undefined && !advertisedFiles.has(s.path)) advertisedFiles.set(s.path, jsonFile(s.path, 'schema', s.schema, s.inputs));
          }
        }
      }
    }
    // What the MCP SDK's own client will accept, checked before anything is written (skipped without the SDK).
    const checked = checkToolsLists(profiles, resolve(cwd, config.file ?? 'adcp-codegen.config.json'));
    log.stage(
      'project',
      `${advertisedFiles.size} advertised schema document(s); ${checked === undefined ? 'tools/list not checked (no @modelcontextprotocol/sdk)' : `${checked} tools/list(s) accepted by the MCP SDK`}`,
      lap(),
    );
    return [...entryFiles(profiles, releaseKeys, inputRefs), ...runtimeFiles(), ...profiles.flatMap(profileFiles), ...advertisedFiles.values()];
  })();

  // Each unit's files people read are formatted on another thread while the next units compile.
  // The files to format and write: the projection's, then each compiled (not reused) unit's, headed once, as it
  // comes.
  const ahead = new FormatAhead();
  const fresh: EmittedFile[] = [...projected];
  try {
    const compiled = await compile(inputs.releases, selections, rules, {
      generatorHash: code,
      conversionRules,
      reuse: (id, key) => (options.reuse === false ? undefined : reusable(config.out, previous, id, key)),
      onUnit: (id, ms, files) => {
        log.detail(`compiled ${id} in ${Math.round(ms)} ms`);
        const headed = files.map((f) => withHeader(f));
        fresh.push(...headed);
        ahead.submit(headed);
      },
    });
    reportSkippedRules(compiled.skippedRules, log);
    reportConversions(compiled.conversions, log, config.strict, warn);
    const reused = compiled.units.filter((u) => u.reused);
    log.stage(
      'compile',
      [...compiled.tools].map(([k, ts]) => `${ts.length} tools for ${k}`).join(', ') +
        `; ${compiled.units.length - reused.length} unit(s) compiled` +
        (reused.length > 0 ? `, ${reused.length} reused from ${displayOut(config.out)} (${reused.map((u) => u.id).join(', ')})` : ''),
      lap(),
    );

    if (releaseKeys.join() !== [...compiled.tools.keys()].join()) throw new Error('adcp-codegen bug: compiled releases differ from the selected ones');
    log.stage('emit', `${fresh.length} file(s)`, lap());

    const pretty = fresh.filter(formattedByPrettier);
    log.detail(`prettier over ${pretty.length} file(s), ${(pretty.reduce((n, f) => n + f.contents.length, 0) / 1e6).toFixed(2)} MB: ${[...new Set(pretty.map((f) => f.path.replace(/[^/]*$/, '')))].join(', ')}`);
    const formatted = await format(fresh, undefined, ahead);
    const all = dedupe([...formatted, ...reused.flatMap((u) => u.files)]).sort((a, b) => (a.path < b.path ? -1 : 1));
    const units = Object.fromEntries(compiled.units.map((u) => [u.id, { key: u.key, files: [...new Set(u.files.map((f) => f.path))].sort() }]));
    const manifest = manifestFile(all, `adcp-codegen ${generatorVersion}`, inputsHash, units);
    all.push(manifest);
    log.stage('format', `${(all.reduce((n, f) => n + f.contents.length, 0) / 1e6).toFixed(2)} MB`, lap());

    if (options.check === true) {
      const d = diffOutput(config.out, all.filter((f) => f.path !== MANIFEST), previous);
      // The whole manifest, its input hash and unit keys included: a generator change that alters no file still
      // changes what a regeneration writes there (and a stale key would make the next run recompile for nothing).
      const manifestDrift = previous === undefined || JSON.stringify(previous) !== JSON.stringify(JSON.parse(manifest.contents) as OutputManifest);
      const drift = [...d.stale, ...d.missing.map((p) => `${p} (missing)`), ...d.extra.filter((p) => p !== MANIFEST).map((p) => `${p} (not generated)`), ...(manifestDrift ? [MANIFEST] : [])];
      log.stage('check', drift.length === 0 ? `${displayOut(config.out)} is in step` : `${drift.length} file(s) out of step`, lap());
      return { out: config.out, files: all.map((f) => f.path), changed: [], removed: [], upToDate: drift.length === 0, drift, warnings };
    }

    const report = write(config.out, all, previous);
    log.stage('write', report.changed.length + report.removed.length === 0 ? `nothing changed in ${displayOut(config.out)}` : `${report.changed.length} written, ${report.removed.length} removed, ${report.unchanged} unchanged in ${displayOut(config.out)}`, lap());
    if (report.replaced.length > 0) log.warn(`replaced ${report.replaced.length} file(s) adcp-codegen had not written: ${pathList(report.replaced)}`);
    if (report.kept.length > 0) log.info(`left ${report.kept.length} file(s) adcp-codegen does not own as they are: ${pathList(report.kept)}`);
    return { out: config.out, files: all.map((f) => f.path), changed: report.changed, removed: report.removed, upToDate: false, drift: [], warnings };
  } finally {
    await ahead.close();
  }
}

/**
 * The previous set's files of one compile unit, when its manifest recorded the same key and every one of those
 * files is still there byte for byte (a hand-edited or deleted file means the unit is compiled again). They were
 * written by the same generator from the same inputs, so they are exactly what compiling would produce.
 */
function reusable(out: string, previous: OutputManifest | undefined, id: string, key: string): EmittedFile[] | undefined {
  const record = previous?.units?.[id];
  if (previous === undefined || record === undefined || record.key !== key) return undefined;
  const files: EmittedFile[] = [];
  for (const path of record.files) {
    const expected = previous.files[path];
    if (expected === undefined) return undefined;
    let contents: string;
    try {
      contents = readFileSync(join(out, path), 'utf8');
    } catch {
      return undefined;
    }
    if (sha256(contents) !== expected) return undefined;
    files.push({ path, contents, inputs: [] });
  }
  return files;
}

function displayOut(out: string): string {
  return out.startsWith(process.cwd() + '/') ? out.slice(process.cwd().length + 1) : out;
}

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { advertise, AdvertisedSources, type Advertisement } from './advertise.js';
import { servedCapabilities } from './capabilities.js';
import { checkToolsLists } from './check-tools-list.js';
import { compile } from './compile.js';
import { entryFiles, GENERATOR_VERSION, jsonFile, profileFile, runtimeFiles, withHeader, type ProfileData } from './emit.js';
import { CodegenError } from './errors.js';
import { format } from './format.js';
import { sha256 } from './hash.js';
import { load } from './load.js';
import { displayPath } from './load-release.js';
import type { ConfigOverrides } from './load-config.js';
import { createLogger, type Logger } from './log.js';
import type { EmittedFile, InputRef } from './model.js';
import { loadNormalizationRules } from './normalize-rules.js';
import { loadOverlays } from './overlay.js';
import { packageRoot } from './package-root.js';
import { select } from './select.js';
import { diffOutput, MANIFEST, manifestFile, openOutput, outputIntact, readManifest, write, type OutputManifest } from './write.js';

export interface GenerateOptions extends ConfigOverrides {
  /** Compare instead of writing: report drift, change nothing. */
  readonly check?: boolean;
  /** Write into an existing, non-empty `out` that holds no adcp-codegen manifest (its other files are kept). */
  readonly adopt?: boolean;
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

  const inputs = load(options);
  const { config } = inputs;
  // One writer per output directory, and what killed runs left is finished or cleared first (write.ts).
  using output = options.check === true ? undefined : openOutput(config.out, { adopt: options.adopt === true, display: displayOut(config.out) });
  for (const r of output?.recovered ?? []) log.info(`${displayOut(config.out)}: ${r}`);
  // Rule and overlay files are named by their path from the working directory: in error messages and in the
  // headers of generated files, never an absolute path.
  const cwd = process.cwd();
  const rules = loadNormalizationRules(config.normalizations.map((f) => displayPath(f, cwd)));
  const overlays = loadOverlays(config.overlays.map((f) => displayPath(f, cwd)));
  log.stage('load', `${inputs.releases.map((r) => `AdCP ${r.version}`).join(', ')}; ${inputs.profiles.length} profile(s); ${rules.length} normalization rule(s); ${overlays.length} overlay(s)`, lap());

  const inputRefs: InputRef[] = [
    ...inputs.releases.map((r) => ({ name: r.label, hash: r.hash })),
    ...inputs.profiles.map((p) => ({ name: `profile:${p.file}`, hash: p.hash })),
    // As the loaders hashed them, named as the compiled modules' headers name them: no file is read twice.
    ...[...new Map(rules.map((r) => [r.file, r.fileHash])).entries()].map(([file, hash]) => ({ name: `normalization:${file}`, hash })),
    ...overlays.map((o) => ({ name: `overlay:${o.file}`, hash: o.hash })),
  ];
  const inputsHash = sha256(
    JSON.stringify({ generator: GENERATOR_VERSION, code: generatorCodeHash(), inputs: inputRefs, acceptedRecords: config.acceptedRecords, strict: config.strict }),
  );
  const previous = readManifest(config.out);
  if (previous !== undefined && previous.inputsHash === inputsHash && outputIntact(config.out, previous)) {
    log.info(`${displayOut(config.out)} is up to date: nothing changed`);
    return { out: config.out, files: Object.keys(previous.files), changed: [], removed: [], upToDate: true, drift: [], warnings };
  }

  const selections = select(inputs.profiles, inputs.served);
  const selected = [...selections.values()].flat();
  log.stage('select', selected.map((s) => `${s.tools.length}`).join('+') + ` tools over ${selected.length} profile×release surface(s)`, lap());

  const sources = new AdvertisedSources(overlays);
  const profiles: ProfileData[] = inputs.profiles.map((profile) => {
    const ss = selections.get(profile.name)!;
    servedCapabilities(profile, ss.map((s) => s.release.key)); // a stated supported_versions must match: fail before compiling
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
  log.stage('project', `${advertisedFiles.size} advertised schema document(s); ${checked === undefined ? 'tools/list not checked (no @modelcontextprotocol/sdk)' : `${checked} tools/list(s) accepted by the MCP SDK`}`, lap());

  const compiled = await compile(inputs.releases, selections, rules);
  for (const s of compiled.skippedRules) log.info(`normalization ${s.rule} not emitted for ${s.tool} (${s.release}): ${s.reason}`);
  log.stage('compile', [...compiled.tools].map(([k, ts]) => `${ts.length} tools for ${k}`).join(', ') + `; ${compiled.files.length} module(s)`, lap());

  const emitted: EmittedFile[] = [
    ...entryFiles(profiles, [...compiled.tools.keys()], inputRefs),
    ...runtimeFiles(),
    ...profiles.map(profileFile),
    ...advertisedFiles.values(),
    ...compiled.files.map((f) => withHeader(f)),
  ].sort((a, b) => (a.path < b.path ? -1 : 1));
  log.stage('emit', `${emitted.length} file(s)`, lap());

  const formatted = await format(emitted);
  const manifest = manifestFile(formatted, `adcp-codegen ${GENERATOR_VERSION}`, inputsHash);
  const all = [...formatted, manifest];
  log.stage('format', `${(all.reduce((n, f) => n + f.contents.length, 0) / 1e6).toFixed(2)} MB`, lap());

  if (options.check === true) {
    const d = diffOutput(config.out, all.filter((f) => f.path !== MANIFEST));
    const manifestDrift = previous === undefined || JSON.stringify(previous.files) !== JSON.stringify((JSON.parse(manifest.contents) as OutputManifest).files);
    const drift = [...d.stale, ...d.missing.map((p) => `${p} (missing)`), ...d.extra.filter((p) => p !== MANIFEST).map((p) => `${p} (not generated)`), ...(manifestDrift ? [MANIFEST] : [])];
    log.stage('check', drift.length === 0 ? `${displayOut(config.out)} is in step` : `${drift.length} file(s) out of step`, lap());
    return { out: config.out, files: all.map((f) => f.path), changed: [], removed: [], upToDate: drift.length === 0, drift, warnings };
  }

  const report = write(config.out, all);
  log.stage('write', report.changed.length + report.removed.length === 0 ? `nothing changed in ${displayOut(config.out)}` : `${report.changed.length} written, ${report.removed.length} removed, ${report.unchanged} unchanged in ${displayOut(config.out)}`, lap());
  if (report.replaced.length > 0) log.warn(`replaced ${report.replaced.length} file(s) adcp-codegen had not written: ${listed(report.replaced)}`);
  if (report.kept.length > 0) log.info(`left ${report.kept.length} file(s) adcp-codegen does not own as they are: ${listed(report.kept)}`);
  return { out: config.out, files: all.map((f) => f.path), changed: report.changed, removed: report.removed, upToDate: false, drift: [], warnings };
}


function listed(paths: readonly string[]): string {
  return paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, … ${paths.length - 5} more` : '');
}

function displayOut(out: string): string {
  const rel = out.startsWith(process.cwd() + '/') ? out.slice(process.cwd().length + 1) : out;
  return rel;
}

let codeHash: string | undefined;
/** The generator's own code and templates: a changed generator must not be mistaken for an up-to-date output. */
function generatorCodeHash(): string {
  if (codeHash !== undefined) return codeHash;
  const parts: string[] = [];
  for (const dir of ['dist/generator', 'dist/runtime', 'templates', 'schemas']) {
    const walk = (rel: string): void => {
      for (const name of readdirSync(join(packageRoot, rel)).sort()) {
        const path = join(rel, name);
        if (statSync(join(packageRoot, path)).isDirectory()) {
          if (rel === 'schemas' && name === 'profiles') continue;
          walk(path);
        } else if (!name.endsWith('.map')) parts.push(`${path}:${sha256(readFileSync(join(packageRoot, path)))}`);
      }
    };
    walk(dir);
  }
  codeHash = sha256(parts.join('\n'));
  return codeHash;
}

import { candidateCoverage, compileConversions, filesFor, planConversions, type CandidateCoverage } from './convert/index.js';
import { compileNormalizers, planNormalizations, type NormalizationPlan } from './normalize/index.js';
import { conversionPairs, type PairTools } from './pairs.js';
import { compileStripModules } from './strip/index.js';
import { compileTypes } from './types/index.js';
import { compileValidatorSets } from './validators/index.js';
import { sha256 } from '../shared/index.js';
import type { ConversionRuleFile, EmittedFile, NormalizationRule, Release } from '../load/index.js';
import type { Selection } from '../select/index.js';

export interface SkippedRule {
  readonly release: string;
  readonly rule: string;
  /** The rule file as given (the shipped ones are summarised, a team's own are reported one by one). */
  readonly file: string;
  readonly tool: string;
  readonly reason: string;
}

/**
 * One artifact kind of one release (`3.2/validate`): the granularity of reuse. Its key hashes everything its bytes
 * depend on — the generator's code and dependencies, the release, the tools selected for it and, for the
 * normalizers, the rules planned for them — so equal keys mean equal files.
 */
export interface CompileUnit {
  readonly id: string;
  readonly key: string;
  /** Compiled files (header and format still to add), or the previous set's finished files when `reused`. */
  readonly files: readonly EmittedFile[];
  readonly reused: boolean;
}

/** What compiling one pair's conversions found: rules that do not apply, and diff candidates nothing accounts for. */
export interface ConversionReport {
  /** `3.2>3.0`: the newer release's key, then the older one's. */
  readonly pair: string;
  readonly skipped: readonly SkippedRule[];
  /** Every diff candidate of the pair, with what accounts for each occurrence (nothing: a lint). */
  readonly candidates: readonly CandidateCoverage[];
  /** Rule files written for the pair; with none, deep-strip alone converts and the diff is not asked. */
  readonly ruleFiles: number;
}

export interface CompileResult {
  readonly units: readonly CompileUnit[];
  readonly skippedRules: SkippedRule[];
  /** Per pair whose conversions were compiled (not reused) in this run. */
  readonly conversions: readonly ConversionReport[];
  /** Per release key, the tools compiled (the union of every profile's selection). */
  readonly tools: ReadonlyMap<string, readonly string[]>;
}

export interface CompileOptions {
  /** Hash of the generator's code, templates and output-shaping dependencies: part of every unit key. */
  readonly generatorHash: string;
  /** The previous set's finished files of a unit with this id and key, when they are intact; else undefined. */
  readonly reuse?: (id: string, key: string) => EmittedFile[] | undefined;
  /** Called once per unit compiled (not reused), with its time and files: progress, and formatting started early. */
  readonly onUnit?: (id: string, ms: number, files: readonly EmittedFile[]) => void;
  /** Conversion rule files (load/conversion-rules.ts); a pair without any is converted by deep-strip alone. */
  readonly conversionRules?: readonly ConversionRuleFile[];
}

interface StageInput {
  readonly release: Release;
  readonly tools: readonly string[];
  readonly plan: NormalizationPlan;
  /** Tools a newer release's handler answers to buyers pinned to this one: their responses need a deep-strip. */
  readonly responseTools: readonly string[];
}

/**
 * The per-release compile stages as data (validators are compiled across releases, below): each one's own inputs
 * beyond the release and its tools (only the normalizers read the rules), and how to compile it. Canonical artifacts
 * do not depend on profiles, so a tool served by five profiles is compiled once, and shared definitions are
 * content-addressed inside each stage.
 */
const STAGES: readonly { kind: string; inputs: (s: StageInput) => unknown; run: (s: StageInput) => EmittedFile[] | Promise<EmittedFile[]> }[] = [
  // Without response tools the key is what it was before responses were stripped: a single-release set is reused.
  { kind: 'strip', inputs: (s) => (s.responseTools.length === 0 ? null : { responseTools: s.responseTools }), run: (s) => compileStripModules(s.release, s.tools, s.responseTools) },
  { kind: 'normalize', inputs: (s) => s.plan.emitted.map((p) => ({ tool: p.tool, rule: p.rule })), run: (s) => compileNormalizers(s.release, s.plan, s.tools) },
  { kind: 'types', inputs: () => null, run: (s) => compileTypes(s.release, s.tools) },
];

/**
 * Stage 4: per release, the canonical artifacts of every tool some profile selected — validators, strip functions,
 * normalizers and types — each unit compiled only when its key is new: a capability change that keeps the tool
 * set recompiles nothing, a rule change only the normalizers, a tool added to one release only that release.
 */
export async function compile(
  releases: readonly Release[],
  selections: ReadonlyMap<string, readonly Selection[]>,
  rules: readonly NormalizationRule[],
  options: CompileOptions,
): Promise<CompileResult> {
  const units: CompileUnit[] = [];
  const skippedRules: SkippedRule[] = [];
  const toolsByRelease = new Map<string, readonly string[]>();
  const validatorSets: { release: Release; tools: readonly string[] }[] = [];
  const fileOf = new Map(rules.map((r) => [r.id, r.file]));
  const pairs = conversionPairs(selections);
  for (const release of releases) {
    const tools = [...new Set([...selections.values()].flatMap((ss) => ss.filter((s) => s.release === release).flatMap((s) => s.tools.map((t) => t.name))))].sort();
    if (tools.length === 0) continue;
    toolsByRelease.set(release.key, tools);
    const names = new Set(tools);
    const full = planNormalizations(release, [...rules]);
    const plan: NormalizationPlan = { emitted: full.emitted.filter((p) => names.has(p.tool)), skipped: full.skipped.filter((s) => names.has(s.tool)) };
    for (const s of plan.skipped) skippedRules.push({ release: release.key, file: fileOf.get(s.rule) ?? '', ...s });
    const responseTools = [...new Set(pairs.filter((p) => p.older === release).flatMap((p) => p.tools))].sort();
    const input: StageInput = { release, tools, plan, responseTools };
    for (const stage of STAGES) {
      units.push(await unit(options, `${release.key}/${stage.kind}`, { release: release.hash, label: release.label, tools, inputs: stage.inputs(input) }, () => stage.run(input)));
    }
    validatorSets.push({ release, tools });
  }
  const conversions: ConversionReport[] = [];
  for (const pair of pairs) units.push(await conversionUnit(options, pair, conversions));
  // Validators of every release at once, one unit: a definition compiled to the same code in two releases is emitted
  // once, so the unit's key covers every release's inputs.
  if (validatorSets.length > 0) {
    const inputs = validatorSets.map((v) => ({ release: v.release.hash, label: v.release.label, tools: v.tools }));
    units.push(await unit(options, 'validate', inputs, () => compileValidatorSets(validatorSets)));
  }
  return { units, skippedRules, conversions, tools: toolsByRelease };
}

/**
 * One pair's conversions (`3.2>3.0/convert`): keyed by both releases, the tools converted and the rule files written
 * for the pair. Compiling it also reports what the rules leave uncovered (the diff is only worth its second when the
 * unit compiles: a reused unit was reported when it was made).
 */
async function conversionUnit(options: CompileOptions, pair: PairTools, reports: ConversionReport[]): Promise<CompileUnit> {
  const { newer, older, tools } = pair;
  const label = `${newer.key}>${older.key}`;
  const files = filesFor(pair, options.conversionRules ?? []);
  const inputs = { newer: newer.hash, older: older.hash, labels: [newer.label, older.label], tools, rules: files.map((f) => ({ file: f.file, hash: f.fileHash })) };
  return unit(options, `${label}/convert`, inputs, () => {
    const plan = planConversions(pair, files, tools);
    reports.push({
      pair: label,
      skipped: plan.skipped.map((s) => ({ release: label, rule: s.rule, file: s.file, tool: s.tool, reason: s.reason })),
      // Without rule files for the pair nothing is expected to cover the changes: deep-strip alone converts.
      candidates: plan.files.length === 0 ? [] : candidateCoverage(plan),
      ruleFiles: plan.files.length,
    });
    return compileConversions(plan);
  });
}

/** One unit: the previous set's files when its key (the generator, the unit and its inputs) is unchanged, else compiled. */
async function unit(options: CompileOptions, id: string, inputs: unknown, run: () => EmittedFile[] | Promise<EmittedFile[]>): Promise<CompileUnit> {
  const key = sha256(JSON.stringify({ generator: options.generatorHash, id, inputs }));
  const previous = options.reuse?.(id, key);
  if (previous !== undefined) return { id, key, files: previous, reused: true };
  const started = performance.now();
  const files = await run();
  options.onUnit?.(id, performance.now() - started, files);
  return { id, key, files, reused: false };
}

/** Content-addressed modules may be emitted by several units; one path must always carry one content. */
export function dedupe(files: readonly EmittedFile[]): EmittedFile[] {
  const byPath = new Map<string, EmittedFile>();
  for (const f of files) {
    const seen = byPath.get(f.path);
    if (seen !== undefined && seen.contents !== f.contents) throw new Error(`adcp-codegen bug: two different contents for ${f.path}`);
    byPath.set(f.path, f);
  }
  return [...byPath.values()];
}

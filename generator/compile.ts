import { compileNormalizers } from './compile-normalize.js';
import { compileStripModules } from './compile-strip.js';
import { compileTypes } from './compile-types.js';
import { compileValidatorSets } from './compile-validators.js';
import type { EmittedFile, Release } from './model.js';
import { planNormalizations, type NormalizationRule } from './normalize-rules.js';
import type { Selection } from './select.js';

export interface SkippedRule {
  readonly release: string;
  readonly rule: string;
  readonly tool: string;
  readonly reason: string;
}

export interface CompileResult {
  readonly files: EmittedFile[];
  readonly skippedRules: SkippedRule[];
  /** Per release key, the tools compiled (the union of every profile's selection). */
  readonly tools: ReadonlyMap<string, readonly string[]>;
}

/**
 * Stage 4: per release, the canonical artifacts of every tool some profile selected — validators, strip functions,
 * normalizers and types. Canonical artifacts do not depend on the profile, so a tool served by five profiles is
 * compiled once, and shared definitions are content-addressed inside each stage.
 */
export async function compile(releases: readonly Release[], selections: ReadonlyMap<string, readonly Selection[]>, rules: readonly NormalizationRule[]): Promise<CompileResult> {
  const files: EmittedFile[] = [];
  const skippedRules: SkippedRule[] = [];
  const toolsByRelease = new Map<string, readonly string[]>();
  const validatorSets: { release: Release; tools: readonly string[] }[] = [];
  for (const release of releases) {
    const tools = [...new Set([...selections.values()].flatMap((ss) => ss.filter((s) => s.release === release).flatMap((s) => s.tools.map((t) => t.name))))].sort();
    if (tools.length === 0) continue;
    toolsByRelease.set(release.key, tools);
    const plan = planNormalizations(release, [...rules]);
    const names = new Set(tools);
    for (const s of plan.skipped) if (names.has(s.tool)) skippedRules.push({ release: release.key, ...s });
    validatorSets.push({ release, tools });
    files.push(
      ...compileStripModules(release, tools),
      ...compileNormalizers(release, plan, tools),
      ...(await compileTypes(release, tools)),
    );
  }
  // Validators of every release at once: a definition compiled to the same code in two releases is emitted once.
  files.push(...compileValidatorSets(validatorSets));
  return { files: dedupe(files), skippedRules, tools: toolsByRelease };
}

/** Content-addressed modules may be emitted by several tools; one path must always carry one content. */
function dedupe(files: readonly EmittedFile[]): EmittedFile[] {
  const byPath = new Map<string, EmittedFile>();
  for (const f of files) {
    const seen = byPath.get(f.path);
    if (seen !== undefined && seen.contents !== f.contents) throw new Error(`adcp-codegen bug: two different contents for ${f.path}`);
    byPath.set(f.path, f);
  }
  return [...byPath.values()];
}

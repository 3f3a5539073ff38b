import { rmSync } from 'node:fs';
import { compileValidators, createRuntimeAjv } from '../generator/compile/index.js';
import { loadRelease, type Release } from '../generator/load/index.js';
import { ARTIFACT_PATHS, type RequestValidatorModule, type ValidateFn } from '../runtime/contract.js';
import { wrapValidator } from '../runtime/issues.js';
import { loadArtifact } from '../runtime/loader.js';
import { writeEmitted } from '../test/helpers/differential.js';
import { ajvPointers, issuePointers, mutants, names, type AjvLike, type DefectKind, type Mutant } from '../test/helpers/mutations.js';
import { sdkReleaseDir, sharedComplianceDir, sharedReleaseDir } from '../test/helpers/releases.js';
import { loadStoryboardSamples } from '../test/helpers/storyboards.js';
import { tempDir } from '../test/helpers/temp.js';

/**
 * Issue 19 point 3: one rejection names every defect. Valid storyboard payloads get two or three independent
 * defects each (a wrong type, a value outside an enum, a missing required field, an unknown field in a closed
 * object; test/helpers/mutations.ts), and the bench counts the share of injected defects the first reply names:
 * the generated validators' issues (what `adcp_error.issues` carries) against run-time Ajv with `allErrors` over the
 * same release's modular schemas (every error it has). Per release, 3.0.6 and 3.2.0-beta.5.
 */
export async function run(): Promise<string[]> {
  const complianceDir = sharedComplianceDir();
  const releaseDir = sharedReleaseDir();
  if (complianceDir === undefined || releaseDir === undefined) return ['(the recall corpus needs ../shared/adcp: its storyboard payloads)'];
  const samples = loadStoryboardSamples(complianceDir).filter((s) => !s.expectError);
  const lines: string[] = [];
  for (const release of [loadRelease(sdkReleaseDir(), '@adcp/sdk'), loadRelease(releaseDir)]) {
    const out = tempDir('adcp-bench-issues-');
    try {
      lines.push(...measure(release, out, samples));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
  return lines;
}

interface Tally {
  injected: number;
  ours: number;
  ajv: number;
  mutants: number;
  oursAll: number;
  ajvAll: number;
  oursIssues: number;
  ajvErrors: number;
}

function measure(release: Release, out: string, samples: readonly { id: string; task: string; request: unknown }[]): string[] {
  writeEmitted(out, compileValidators(release));
  const all = createRuntimeAjv(release, { allErrors: true });
  const first = createRuntimeAjv(release);
  const ours = new Map<string, ValidateFn>();
  const corpus: { tool: string; mutant: Mutant }[] = [];
  const seen = new Set<string>();
  const t0 = performance.now();
  for (const s of samples) {
    const tool = release.tools.get(s.task);
    if (tool === undefined || release.unavailable.has(s.task)) continue;
    const id = release.schemas.byPath.get(tool.requestSchema)!.id;
    if (first.getSchema(id)!(s.request) !== true) continue;
    const key = `${s.task}\0${JSON.stringify(s.request)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const validateAll = all.getSchema(id)!;
    const check = (data: unknown): readonly AjvLike[] | null => (validateAll(data) === true ? null : ((validateAll.errors ?? []) as AjvLike[]));
    for (const mutant of mutants(s.id, s.request, check)) corpus.push({ tool: s.task, mutant });
    if (!ours.has(s.task)) ours.set(s.task, wrapValidator((loadArtifact(out, ARTIFACT_PATHS.request(release.key, s.task)) as RequestValidatorModule).validate));
  }
  const built = performance.now() - t0;
  const total: Tally = { injected: 0, ours: 0, ajv: 0, mutants: 0, oursAll: 0, ajvAll: 0, oursIssues: 0, ajvErrors: 0 };
  const byKind = new Map<DefectKind, { injected: number; ours: number; ajv: number }>();
  const byTool = new Map<string, Tally>();
  const t1 = performance.now();
  for (const { tool, mutant } of corpus) {
    const verdict = ours.get(tool)!(mutant.data);
    const issues = verdict.ok ? [] : verdict.issues;
    const validateAll = all.getSchema(release.schemas.byPath.get(release.tools.get(tool)!.requestSchema)!.id)!;
    validateAll(mutant.data);
    const errors = (validateAll.errors ?? []) as AjvLike[];
    const mine = issuePointers(issues);
    const theirs = ajvPointers(errors);
    let t = byTool.get(tool);
    if (t === undefined) byTool.set(tool, (t = { injected: 0, ours: 0, ajv: 0, mutants: 0, oursAll: 0, ajvAll: 0, oursIssues: 0, ajvErrors: 0 }));
    let oursAll = true;
    let ajvAll = true;
    for (const d of mutant.defects) {
      const k = byKind.get(d.kind) ?? { injected: 0, ours: 0, ajv: 0 };
      byKind.set(d.kind, k);
      const a = names(mine, d);
      const b = names(theirs, d);
      for (const x of [total, t]) {
        x.injected++;
        if (a) x.ours++;
        if (b) x.ajv++;
      }
      k.injected++;
      if (a) k.ours++;
      if (b) k.ajv++;
      oursAll &&= a;
      ajvAll &&= b;
    }
    for (const x of [total, t]) {
      x.mutants++;
      if (oursAll) x.oursAll++;
      if (ajvAll) x.ajvAll++;
      x.oursIssues += issues.length;
      x.ajvErrors += errors.length;
    }
  }
  const checked = performance.now() - t1;
  const pct = (n: number, d: number) => `${((100 * n) / Math.max(d, 1)).toFixed(1)}%`;
  const lines = [
    `AdCP ${release.version}: ${total.mutants} requests with 2–3 injected defects (${total.injected} defects) from ${seen.size} valid storyboard payloads of ${byTool.size} tools ` +
      `(corpus built in ${(built / 1000).toFixed(1)} s, measured in ${(checked / 1000).toFixed(1)} s)`,
    `  defects named by the first reply: generated validators ${pct(total.ours, total.injected)}, run-time Ajv allErrors ${pct(total.ajv, total.injected)} ` +
      `→ ${((100 * total.ours) / Math.max(total.ajv, 1)).toFixed(1)}% of allErrors (goal: nearly all)`,
    `  requests with every defect named: generated ${pct(total.oursAll, total.mutants)}, allErrors ${pct(total.ajvAll, total.mutants)}; ` +
      `entries per reply: generated ${(total.oursIssues / Math.max(total.mutants, 1)).toFixed(1)} issues, allErrors ${(total.ajvErrors / Math.max(total.mutants, 1)).toFixed(1)} errors`,
    `  by defect: ${[...byKind].map(([k, v]) => `${k} ${pct(v.ours, v.injected)} (allErrors ${pct(v.ajv, v.injected)}, n=${v.injected})`).join('; ')}`,
  ];
  const worst = [...byTool].filter(([, v]) => v.injected >= 6).sort((a, b) => a[1].ours / a[1].injected - b[1].ours / b[1].injected).slice(0, 5);
  lines.push(`  lowest tools: ${worst.map(([tool, v]) => `${tool} ${pct(v.ours, v.injected)} (allErrors ${pct(v.ajv, v.injected)})`).join('; ')}`);
  return lines;
}

import { compileValidators, createRuntimeAjv } from '../../generator/compile/index.js';
import type { Release } from '../../generator/load/index.js';
import type { ValidateFn } from '../../runtime/artifacts/contract.js';
import { wrapValidator } from '../../runtime/issues/issues.js';
import { writeEmitted } from './differential.js';
import { ajvPointers, issuePointers, mutants, names, type AjvLike, type DefectKind, type Mutant } from './mutations.js';
import { requestValidator } from './tool-validators.js';

/**
 * The recall of injected defects (issue 19 point 3), shared by `npm run bench issues` and test/real/issues.test.ts:
 * every valid storyboard payload of the release gets two or three independent defects (mutations.ts), and both the
 * generated validators' issues (what a rejection's `issues[]` carries) and run-time Ajv with `allErrors` (every
 * error it has) are asked which of them they name.
 */
export interface Tally {
  injected: number;
  ours: number;
  ajv: number;
  mutants: number;
  oursAll: number;
  ajvAll: number;
  oursIssues: number;
  ajvErrors: number;
}

export interface Recall {
  readonly total: Tally;
  readonly byKind: ReadonlyMap<DefectKind, { injected: number; ours: number; ajv: number }>;
  readonly byTool: ReadonlyMap<string, Tally>;
  /** Valid payloads the corpus was made from, and the time to make it and to measure it. */
  readonly payloads: number;
  readonly builtMs: number;
  readonly measuredMs: number;
}

const tally = (): Tally => ({ injected: 0, ours: 0, ajv: 0, mutants: 0, oursAll: 0, ajvAll: 0, oursIssues: 0, ajvErrors: 0 });

export function measureRecall(release: Release, out: string, samples: readonly { id: string; task: string; request: unknown }[]): Recall {
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
    if (!ours.has(s.task)) ours.set(s.task, wrapValidator(requestValidator(out, release.key, s.task)));
  }
  const builtMs = performance.now() - t0;
  const total = tally();
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
    if (t === undefined) byTool.set(tool, (t = tally()));
    let oursAll = true;
    let ajvAll = true;
    for (const d of mutant.defects) {
      const k = byKind.get(d.kind) ?? { injected: 0, ours: 0, ajv: 0 };
      byKind.set(d.kind, k);
      const a = names(mine, d);
      const b = names(theirs, d);
      for (const x of [total, t, k]) {
        x.injected++;
        if (a) x.ours++;
        if (b) x.ajv++;
      }
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
  return { total, byKind, byTool, payloads: seen.size, builtMs, measuredMs: performance.now() - t1 };
}

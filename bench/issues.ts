import { loadRelease, type Release } from '../generator/load/index.js';
import { measureRecall } from '../test/helpers/recall.js';
import { sdkReleaseDir, sharedComplianceDir, sharedReleaseDir } from '../test/helpers/releases.js';
import { loadStoryboardSamples } from '../test/helpers/storyboards.js';
import { removeTempDir, tempDir } from '../test/helpers/temp.js';

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
      lines.push(...report(release, measureRecall(release, out, samples)));
    } finally {
      removeTempDir(out);
    }
  }
  return lines;
}

function report(release: Release, r: ReturnType<typeof measureRecall>): string[] {
  const { total, byKind, byTool } = r;
  const pct = (n: number, d: number) => `${((100 * n) / Math.max(d, 1)).toFixed(1)}%`;
  const lines = [
    `AdCP ${release.version}: ${total.mutants} requests with 2–3 injected defects (${total.injected} defects) from ${r.payloads} valid storyboard payloads of ${byTool.size} tools ` +
      `(corpus built in ${(r.builtMs / 1000).toFixed(1)} s, measured in ${(r.measuredMs / 1000).toFixed(1)} s)`,
    `  defects named by the first reply: generated validators ${pct(total.ours, total.injected)}, run-time Ajv allErrors ${pct(total.ajv, total.injected)} ` +
      `→ ${((100 * total.ours) / Math.max(total.ajv, 1)).toFixed(1)}% of allErrors (goal: ≥ 96% of injected defects, and at least as many as allErrors)`,
    `  requests with every defect named: generated ${pct(total.oursAll, total.mutants)}, allErrors ${pct(total.ajvAll, total.mutants)}; ` +
      `entries per reply: generated ${(total.oursIssues / Math.max(total.mutants, 1)).toFixed(1)} issues, allErrors ${(total.ajvErrors / Math.max(total.mutants, 1)).toFixed(1)} errors`,
    `  by defect: ${[...byKind].map(([k, v]) => `${k} ${pct(v.ours, v.injected)} (allErrors ${pct(v.ajv, v.injected)}, n=${v.injected})`).join('; ')}`,
  ];
  const worst = [...byTool].filter(([, v]) => v.injected >= 6).sort((a, b) => a[1].ours / a[1].injected - b[1].ours / b[1].injected).slice(0, 5);
  lines.push(`  lowest tools: ${worst.map(([tool, v]) => `${tool} ${pct(v.ours, v.injected)} (allErrors ${pct(v.ajv, v.injected)})`).join('; ')}`);
  return lines;
}

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { compileNormalizers, compileTypes, planNormalizations } from '../generator/compile/index.js';
import { loadNormalizationRules, loadRelease, type Release, compileReleaseSchema } from '../generator/load/index.js';
import type { NormalizeFn } from '../runtime/artifacts/contract.js';
import { repoRoot, sdkReleaseDir, sharedComplianceDir, sharedReleaseDir } from '../test/helpers/releases.js';
import { loadStoryboardSamples } from '../test/helpers/storyboards.js';
import { writeEmitted } from '../test/helpers/differential.js';

/**
 * Normalization on current payloads (nothing to translate) against run-time Ajv validation of the same payloads,
 * measured in the same run (goal: ≤ 5%). Payloads: the real storyboard requests that validate, for the tools that
 * have rules (3.2.0-beta.5 when ../shared is present); otherwise a current create_media_buy / get_signals on 3.0.6.
 * Also reports the generation time of the release's TypeScript types.
 */
const GOAL = 0.05;
const TOOLS = ['create_media_buy', 'update_media_buy', 'get_products', 'get_signals', 'activate_signal', 'get_media_buys', 'sync_creatives'];

export async function run(): Promise<string[]> {
  const dir = sharedReleaseDir() ?? sdkReleaseDir();
  const release = loadRelease(dir);
  const ruleDir = join(repoRoot, 'schemas/normalizations');
  const rules = loadNormalizationRules(readdirSync(ruleDir).sort().map((f) => join(ruleDir, f)));
  const plan = planNormalizations(release, rules);
  const out = mkdtempSync(join(tmpdir(), 'adcp-bench-normalize-'));
  try {
    writeEmitted(out, compileNormalizers(release, plan, TOOLS.filter((t) => release.tools.has(t))));
    const requireOut = createRequire(join(out, 'index.cjs'));
    const normalizer = (tool: string) => (requireOut(join(out, `releases/${release.key}/normalize/${tool}.cjs`)) as { normalize: NormalizeFn }).normalize;

    const validator = (tool: string): ValidateFunction => compileReleaseSchema(release, release.tools.get(tool)!.requestSchema);

    const cases: { normalize: NormalizeFn; validate: ValidateFunction; payload: unknown }[] = [];
    for (const { tool, payload } of payloads(release)) {
      const validate = validator(tool);
      if (!validate(payload)) continue;
      cases.push({ normalize: normalizer(tool), validate, payload });
    }
    if (cases.length === 0) return ['normalize: no valid payloads to measure'];

    // Warm both paths, then alternate rounds so drift on a noisy machine hits both alike.
    const iterations = Math.max(200, Math.ceil(200_000 / cases.length));
    let sink = 0;
    const normalizeRound = (n: number): number => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) for (const c of cases) sink += c.normalize(c.payload).applied.length;
      return Number(process.hrtime.bigint() - t0);
    };
    const validateRound = (n: number): number => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) for (const c of cases) sink += c.validate(c.payload) ? 1 : 0;
      return Number(process.hrtime.bigint() - t0);
    };
    normalizeRound(50);
    validateRound(50);
    let tn = 0;
    let tv = 0;
    for (let round = 0; round < 5; round++) {
      tn += normalizeRound(iterations / 5);
      tv += validateRound(iterations / 5);
    }
    const calls = iterations * cases.length;
    const ratio = tn / tv;

    const t0 = performance.now();
    await compileTypes(release);
    const typesMs = performance.now() - t0;

    return [
      `normalize (AdCP ${release.version}, ${cases.length} current payloads of ${new Set(cases.map((c) => c.validate)).size} tools, ${calls} calls, sink ${sink % 7}):`,
      `  normalize ${(tn / calls).toFixed(0)} ns/call vs run-time Ajv validate ${(tv / calls).toFixed(0)} ns/call = ${(ratio * 100).toFixed(2)}% of validation (goal ≤ ${GOAL * 100}%: ${ratio <= GOAL ? 'met' : 'NOT met'})`,
      `types: compileTypes for ${release.tools.size - release.unavailable.size} tools in ${typesMs.toFixed(0)} ms`,
    ];
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Real storyboard requests for the tools with rules, or one hand-written current payload per tool on 3.0.6. */
function payloads(release: Release): { tool: string; payload: unknown }[] {
  const compliance = sharedComplianceDir();
  if (compliance !== undefined && release.version.startsWith('3.2')) {
    return loadStoryboardSamples(compliance)
      .filter((s) => TOOLS.includes(s.task) && release.tools.has(s.task))
      .map((s) => ({ tool: s.task, payload: s.request }));
  }
  return [
    {
      tool: 'create_media_buy',
      payload: {
        idempotency_key: 'f3b1c2d4-0000-4000-8000-000000000001',
        account: { account_id: 'acc_1' },
        brand: { domain: 'acme.example' },
        start_time: 'asap',
        end_time: '2027-01-01T00:00:00Z',
        packages: [
          { product_id: 'p1', budget: 1000, pricing_option_id: 'cpm', optimization_goals: [{ kind: 'metric', metric: 'clicks', priority: 1 }] },
          { product_id: 'p2', budget: 500, pricing_option_id: 'cpm', targeting_overlay: { geo_countries: ['US'], frequency_cap: { suppress: { interval: 60, unit: 'minutes' } } } },
        ],
      },
    },
    { tool: 'get_signals', payload: { signal_spec: 'runners', pagination: { max_results: 10 } } },
    { tool: 'get_products', payload: { buying_mode: 'brief', brief: 'running shoes', brand: { domain: 'acme.example' } } },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await run()) console.log(line);
}

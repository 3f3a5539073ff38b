import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileNormalizers, deprecatedRequestFields, planNormalizations } from '../../generator/compile/index.js';
import { loadNormalizationRules, loadRelease, compileReleaseSchema } from '../../generator/load/index.js';
import type { NormalizeFn } from '../../runtime/artifacts/contract.js';
import { repoRoot, sharedComplianceDir, sharedReleaseDir } from '../helpers/releases.js';
import { loadStoryboardSamples } from '../helpers/storyboards.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The normalizers on AdCP 3.2.0-beta.5, through the generated modules, and against the real storyboard payloads:
 * a payload that validates before normalization is returned unchanged (the same object, nothing applied) and
 * still validates; a real payload degraded into a deprecated form normalizes back into the original.
 */

const releaseDir = sharedReleaseDir();
const complianceDir = sharedComplianceDir();
if (releaseDir === undefined || complianceDir === undefined) throw new Error('../shared (AdCP 3.2.0-beta.5 and its storyboards) is required for test/real');

const release = loadRelease(releaseDir);
const ruleDir = join(repoRoot, 'schemas/normalizations');
const rules = loadNormalizationRules(readdirSync(ruleDir).sort().map((f) => join(ruleDir, f)));
const plan = planNormalizations(release, rules);
const out = tempDir('adcp-normalize-3.2-');
for (const f of compileNormalizers(release, plan)) {
  mkdirSync(dirname(join(out, f.path)), { recursive: true });
  writeFileSync(join(out, f.path), f.contents);
}
const requireOut = createRequire(join(out, 'index.cjs'));
const normalizer = (tool: string): NormalizeFn =>
  (requireOut(join(out, `releases/${release.key}/normalize/${tool}.cjs`)) as { normalize: NormalizeFn }).normalize;

type Result = { value: Record<string, unknown>; applied: { rule: string; from: string; to: string; conflict?: boolean }[] };
function run(tool: string, input: Record<string, unknown>): Result {
  const before = structuredClone(input);
  const result = normalizer(tool)(input) as Result;
  assert.equal(input, before, `${tool}: the input was mutated`);
  return result;
}

// Run-time Ajv, configured as the compiled validators are (the reference verdict).
function validatorFor(tool: string): ValidateFunction {
  return compileReleaseSchema(release, release.tools.get(tool)!.requestSchema);
}

const samples = loadStoryboardSamples(complianceDir).filter((s) => release.tools.has(s.task));
const emittedFor = (id: string) => plan.emitted.filter((p) => p.rule.id === id).map((p) => p.tool);

test('the plan for 3.2.0-beta.5: every listed rule emitted where its target is declared, skips explained', () => {
  for (const id of ['brand_manifest-to-brand', 'account_id-to-account', 'campaign_ref-to-ext', 'optimization_goal-to-optimization_goals', 'catalog-to-catalogs', 'promoted_offerings-to-catalog', 'deployments-to-destinations', 'destination-to-destinations', 'deliver_to-to-destinations', 'max_results-to-pagination', 'suppress_minutes-to-suppress', 'vendor-to-producer']) {
    assert.ok(emittedFor(id).length > 0, `${id} emitted nowhere`);
  }
  // 3.2 tools that declare account get the account_id rule; the compliance controller's account is not an AccountRef.
  for (const tool of ['buy_products', 'list_products', 'get_task_status']) assert.ok(emittedFor('account_id-to-account').includes(tool), tool);
  // Not named, so never touched: the compliance controller (whose account is not an AccountRef), format listing.
  for (const tool of ['comply_test_controller', 'list_creative_formats']) assert.not.ok(emittedFor('account_id-to-account').includes(tool), tool);
  assert.match(plan.skipped.find((s) => s.rule === 'promoted_offerings-to-catalog' && s.tool === 'create_media_buy')?.reason ?? 'none', /catalog is not a current field/);
});

test('brand_manifest-to-brand (3.2): URL and manifest object; conflict; the 2.5 name-only manifest of the compatibility vectors stays', () => {
  assert.equal(run('get_products', { buying_mode: 'brief', brand_manifest: 'https://Acme.example/m.json' }).value, { buying_mode: 'brief', brand: { domain: 'acme.example' } });
  assert.equal(run('create_media_buy', { brand_manifest: { url: 'http://acme.example' } }).value, { brand: { domain: 'acme.example' } });
  const c = run('create_media_buy', { brand: { domain: 'a.example' }, brand_manifest: 'https://b.example' });
  assert.equal(c.value, { brand: { domain: 'a.example' } });
  assert.is(c.applied[0]!.conflict, true);
  const vectors = JSON.parse(readFileSync(join(complianceDir, 'test-vectors/products-only-brief-compatibility/vectors.json'), 'utf8')) as { cases: { source_version: string; legacy_request: Record<string, unknown> }[] };
  const legacy = vectors.cases.find((c) => c.source_version.startsWith('2.5'))!.legacy_request;
  const r = run('get_products', legacy);
  assert.is(r.value, legacy);
  assert.equal(r.applied, []);
});

test('account_id-to-account (3.2): on a 3.2-only tool; conflict', () => {
  const r = run('list_products', { account_id: 'acc_1' });
  assert.equal(r.value, { account: { account_id: 'acc_1' } });
  assert.equal(r.applied, [{ rule: 'account_id-to-account', from: '/account_id', to: '/account' }]);
  assert.is(run('buy_products', { account_id: 'x', account: { account_id: 'y' } }).applied[0]!.conflict, true);
});

test('campaign_ref-to-ext (3.2): no top-level target exists, so it lands in ext', () => {
  assert.equal(run('create_media_buy', { campaign_ref: 'Q4' }).value, { ext: { buyer_campaign_ref: 'Q4' } });
  assert.is(run('create_media_buy', { campaign_ref: 'Q4', ext: { buyer_campaign_ref: 'Q3' } }).applied[0]!.conflict, true);
});

test('package rules (3.2): optimization_goal, catalog, suppress_minutes; conflicts', () => {
  const goal = { kind: 'metric', metric: 'clicks', priority: 1 };
  const catalog = { type: 'product', catalog_id: 'c' };
  const r = run('create_media_buy', { packages: [{ optimization_goal: goal, catalog, targeting_overlay: { frequency_cap: { suppress_minutes: 30 } } }] });
  assert.equal(r.value.packages, [{ optimization_goals: [goal], catalogs: [catalog], targeting_overlay: { frequency_cap: { suppress: { unit: 'minutes', interval: 30 } } } }]);
  assert.equal(r.applied.map((a) => a.rule), ['optimization_goal-to-optimization_goals', 'catalog-to-catalogs', 'suppress_minutes-to-suppress']);
  const c = run('update_media_buy', { packages: [{ optimization_goal: goal, optimization_goals: [goal], catalog, catalogs: [catalog] }] });
  assert.equal(c.value.packages, [{ optimization_goals: [goal], catalogs: [catalog] }]);
  assert.equal(c.applied.map((a) => a.conflict), [true, true]);
});

test('suppress_minutes-to-suppress variants (3.2): purchases, get_products overlay, discovery criteria, control_media_buy', () => {
  const fc = { frequency_cap: { suppress_minutes: 45 } };
  const want = { frequency_cap: { suppress: { unit: 'minutes', interval: 45 } } };
  assert.equal(run('buy_products', { purchases: [{ targeting_overlay: fc }] }).value, { purchases: [{ targeting_overlay: want }] });
  assert.equal(run('get_products', { targeting_overlay: fc }).value, { targeting_overlay: want });
  assert.equal(run('list_products', { criteria: { targeting_overlay: fc } }).value, { criteria: { targeting_overlay: want } });
  assert.equal(run('refine_proposals', { refinements: [{ criteria: { targeting_overlay: fc } }] }).value, { refinements: [{ criteria: { targeting_overlay: want } }] });
  assert.equal(run('control_media_buy', { packages: [{ targeting_overlay: fc }] }).value, { packages: [{ targeting_overlay: want }] });
});

test('promoted_offerings-to-catalog (3.2)', () => {
  const offerings = [{ offering_id: 'o1', name: 'x' }];
  assert.equal(run('get_products', { promoted_offerings: { offerings } }).value, { catalog: { type: 'offering', items: offerings } });
  assert.is(run('get_products', { promoted_offerings: { offerings }, catalog: { type: 'offering' } }).applied[0]!.conflict, true);
});

test('signals rules (3.2): deployments, destination, deliver_to, max_results; conflicts', () => {
  const dest = { type: 'platform', platform: 'ttd' };
  assert.equal(run('activate_signal', { deployments: [dest] }).value, { destinations: [dest] });
  assert.equal(run('activate_signal', { destination: dest }).value, { destinations: [dest] });
  assert.is(run('activate_signal', { destination: dest, destinations: [dest] }).applied[0]!.conflict, true);
  assert.equal(run('get_signals', { deliver_to: { destinations: [dest], countries: ['US'] } }).value, { destinations: [dest], countries: ['US'] });
  assert.equal(run('get_signals', { max_results: 10, pagination: { cursor: 'c' } }).value, { pagination: { cursor: 'c', max_results: 10 } });
  assert.is(run('get_signals', { max_results: 10, pagination: { max_results: 20 } }).applied[0]!.conflict, true);
});

test('vendor-to-producer (3.2): provide_performance_feedback; conflict', () => {
  const brand = { domain: 'measure.example' };
  const r = run('provide_performance_feedback', { media_buy_id: 'mb', vendor: brand });
  assert.equal(r.value, { media_buy_id: 'mb', producer: brand });
  assert.equal(r.applied, [{ rule: 'vendor-to-producer', from: '/vendor', to: '/producer' }]);
  const c = run('provide_performance_feedback', { vendor: brand, producer: { domain: 'other.example' } });
  assert.equal(c.value, { producer: { domain: 'other.example' } });
  assert.is(c.applied[0]!.conflict, true);
});

test('every storyboard sample_request that validates before normalization is returned unchanged and still validates', () => {
  let valid = 0;
  const touched: string[] = [];
  for (const s of samples) {
    const request = s.request;
    const validate = validatorFor(s.task);
    if (!validate(request)) continue;
    valid++;
    const before = structuredClone(request);
    const r = normalizer(s.task)(request);
    assert.equal(request, before, `${s.id}: input mutated`);
    if (r.value !== request || r.applied.length > 0) touched.push(`${s.id}: ${JSON.stringify(r.applied)}`);
    assert.ok(validate(r.value), `${s.id}: no longer validates`);
  }
  assert.equal(touched, []);
  // The storyboards are mostly current payloads; a run that validated almost none would prove nothing.
  assert.ok(valid > samples.length / 2, `only ${valid} of ${samples.length} samples validate`);
});

/** Real payloads degraded into a deprecated form normalize back into the original, which validates. */
test('real payloads, degraded into deprecated forms, normalize back to the original', () => {
  const degrade: { rule: string; tool: string; apply: (r: Record<string, unknown>) => Record<string, unknown> | undefined }[] = [
    {
      rule: 'account_id-to-account',
      tool: '*',
      apply: (r) => {
        const a = r.account as Record<string, unknown> | undefined;
        if (a === undefined || Object.keys(a).length !== 1 || typeof a.account_id !== 'string') return undefined;
        const { account: _, ...rest } = r;
        return { ...rest, account_id: a.account_id };
      },
    },
    {
      rule: 'brand_manifest-to-brand',
      tool: 'get_products|create_media_buy',
      apply: (r) => {
        const b = r.brand as Record<string, unknown> | undefined;
        if (b === undefined || Object.keys(b).length !== 1 || typeof b.domain !== 'string') return undefined;
        const { brand: _, ...rest } = r;
        return { ...rest, brand_manifest: `https://${b.domain}/.well-known/brand.json` };
      },
    },
    {
      rule: 'deployments-to-destinations',
      tool: 'activate_signal',
      apply: (r) => {
        if (!Array.isArray(r.destinations)) return undefined;
        const { destinations, ...rest } = r;
        return { ...rest, deployments: destinations };
      },
    },
    {
      rule: 'max_results-to-pagination',
      tool: 'get_signals',
      apply: (r) => {
        const p = r.pagination as Record<string, unknown> | undefined;
        if (p === undefined || Object.keys(p).length !== 1 || typeof p.max_results !== 'number') return undefined;
        const { pagination: _, ...rest } = r;
        return { ...rest, max_results: p.max_results };
      },
    },
    {
      rule: 'optimization_goal-to-optimization_goals',
      tool: 'create_media_buy|update_media_buy',
      apply: (r) => {
        if (!Array.isArray(r.packages)) return undefined;
        let changed = false;
        const packages = r.packages.map((p: Record<string, unknown>) => {
          if (!Array.isArray(p.optimization_goals) || p.optimization_goals.length !== 1) return p;
          changed = true;
          const { optimization_goals, ...rest } = p;
          return { ...rest, optimization_goal: optimization_goals[0] };
        });
        return changed ? { ...r, packages } : undefined;
      },
    },
  ];
  const counts = new Map<string, number>();
  for (const s of samples) {
    if (s.request === null || typeof s.request !== 'object' || Array.isArray(s.request)) continue;
    const request = s.request as Record<string, unknown>;
    const validate = validatorFor(s.task);
    if (!validate(request)) continue;
    for (const d of degrade) {
      if (d.tool !== '*' && !d.tool.split('|').includes(s.task)) continue;
      if (!emittedFor(d.rule).includes(s.task)) continue;
      const legacy = d.apply(request);
      if (legacy === undefined) continue;
      const r = run(s.task, legacy);
      assert.equal(r.value, request, `${s.id} via ${d.rule}`);
      assert.ok(r.applied.length > 0 && r.applied.every((a) => a.rule === d.rule && a.conflict === undefined), `${s.id} via ${d.rule}`);
      assert.ok(validate(r.value), `${s.id} via ${d.rule}: does not validate`);
      counts.set(d.rule, (counts.get(d.rule) ?? 0) + 1);
    }
  }
  // Each degradation found real payloads to work on.
  for (const d of degrade) assert.ok((counts.get(d.rule) ?? 0) > 0, `no storyboard payload exercised ${d.rule}`);
});

test('docs/normalizations.md accounts for every deprecated request property of 3.2.0-beta.5', () => {
  const doc = readFileSync(join(repoRoot, 'docs/normalizations.md'), 'utf8');
  const fields = deprecatedRequestFields(release);
  assert.ok(fields.length > 50);
  for (const f of fields) assert.ok(doc.includes(`| \`${f.location}\` |`), `${f.location} (${f.example}) is not in the docs table`);
});

test.after(() => rmSync(out, { recursive: true, force: true }));

test.run();

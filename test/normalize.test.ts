import { readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileNormalizers, planNormalizations } from '../generator/compile/index.js';
import { loadNormalizationRules, loadRelease, type NormalizationRule, type Release } from '../generator/load/index.js';
import type { NormalizeFn } from '../runtime/artifacts/contract.js';
import { repoRoot, sdkReleaseDir } from './helpers/releases.js';
import { writeEmitted } from './helpers/differential.js';
import { tempDir } from './helpers/temp.js';

/**
 * The normalizers on AdCP 3.0.6 (the release inside @adcp/sdk), exercised through the GENERATED modules: the
 * emitted files are written to a temp dir and required, as the runtime does.
 */

const release = loadRelease(sdkReleaseDir());
const ruleDir = join(repoRoot, 'schemas/normalizations');
const rules = loadNormalizationRules(readdirSync(ruleDir).sort().map((f) => join(ruleDir, f)));
const plan = planNormalizations(release, rules);
const out = tempDir('adcp-normalize-');
const files = compileNormalizers(release, plan);
writeEmitted(out, files);
const requireOut = createRequire(join(out, 'index.cjs'));

function normalizer(tool: string, r: Release = release): NormalizeFn {
  return (requireOut(join(out, `releases/${r.key}/normalize/${tool}.cjs`)) as { normalize: NormalizeFn }).normalize;
}

/** Runs a normalizer and checks the input came through untouched. */
function run(tool: string, input: Record<string, unknown>) {
  const before = structuredClone(input);
  const result = normalizer(tool)(input);
  assert.equal(input, before, `${tool}: the input was mutated`);
  return result as { value: Record<string, unknown>; applied: { rule: string; from: string; to: string; conflict?: boolean }[] };
}

function emittedFor(id: string): string[] {
  return plan.emitted.filter((p) => p.rule.id === id).map((p) => p.tool);
}


test('the plan for 3.0.6 emits every listed rule where its target is declared, and says why it skips the rest', () => {
  for (const id of ['brand_manifest-to-brand', 'account_id-to-account', 'campaign_ref-to-ext', 'optimization_goal-to-optimization_goals', 'catalog-to-catalogs', 'promoted_offerings-to-catalog', 'deployments-to-destinations', 'destination-to-destinations', 'deliver_to-to-destinations', 'max_results-to-pagination', 'suppress_minutes-to-suppress']) {
    assert.ok(emittedFor(id).length > 0, `${id} emitted nowhere`);
  }
  assert.equal(emittedFor('brand_manifest-to-brand').sort(), ['create_media_buy', 'get_products']);
  // 3.0.6 create_media_buy has no top-level catalog (packages carry catalogs), 3.0.6 feedback has no producer.
  const skip = (rule: string, tool: string) => plan.skipped.find((s) => s.rule === rule && s.tool === tool);
  assert.match(skip('promoted_offerings-to-catalog', 'create_media_buy')?.reason ?? '', /catalog is not a current field/);
  assert.match(skip('vendor-to-producer', 'provide_performance_feedback')?.reason ?? '', /producer is not a current field/);
  // A tool 3.0.6 does not have, and one this copy cannot serve.
  assert.match(skip('account_id-to-account', 'buy_products')?.reason ?? '', /not a tool of AdCP 3\.0\.6/);
  for (const s of plan.skipped) assert.ok(s.reason.length > 0);
  // max_results is declared in 3.0.6 but deprecated: not a current field, so the rule is emitted.
  assert.equal(emittedFor('max_results-to-pagination'), ['get_signals']);
});

test('a rule is not emitted where its source is a current field', () => {
  const rule = { ...rules.find((r) => r.id === 'max_results-to-pagination')!, id: 'x', from: ['signal_spec'], tools: ['get_signals'] } as NormalizationRule;
  const p = planNormalizations(release, [rule]);
  assert.equal(p.emitted, []);
  assert.match(p.skipped[0]!.reason, /signal_spec is a current field/);
});

test('every tool gets a module; tools without rules get the identity', () => {
  const tools = [...release.tools.keys()].filter((t) => !release.unavailable.has(t));
  assert.is(files.filter((f) => f.path.endsWith('.cjs')).length, tools.length);
  assert.is(files.filter((f) => f.path.endsWith('.d.cts')).length, tools.length);
  const payload = { account_id: 'acc_1', brand_manifest: 'https://acme.example', max_results: 3 };
  const r = normalizer('list_creative_formats')(payload);
  assert.is(r.value, payload);
  assert.equal(r.applied, []);
  for (const f of files) {
    assert.not.match(f.contents, /\brequire\(/, `${f.path} requires something`);
    assert.not.ok(f.contents.includes(repoRoot), `${f.path} carries a path of this machine`);
    assert.ok(f.inputs.length > 0);
  }
});

test('brand_manifest-to-brand: a URL string becomes brand { domain } with the lower-cased host', () => {
  const r = run('get_products', { buying_mode: 'brief', brief: 'shoes', brand_manifest: 'https://WWW.Acme-Corp.example:8443/brand/manifest.json' });
  assert.equal(r.value, { buying_mode: 'brief', brief: 'shoes', brand: { domain: 'www.acme-corp.example' } });
  assert.equal(r.applied, [{ rule: 'brand_manifest-to-brand', from: '/brand_manifest', to: '/brand' }]);
});

test('brand_manifest-to-brand: a manifest object with url (create_media_buy)', () => {
  const r = run('create_media_buy', { brand_manifest: { url: 'https://acme.example', name: 'Acme' }, packages: [] });
  assert.equal(r.value, { packages: [], brand: { domain: 'acme.example' } });
  assert.is(r.applied[0]!.rule, 'brand_manifest-to-brand');
});

test('brand_manifest-to-brand: conflict — brand present wins, brand_manifest removed and reported', () => {
  const r = run('create_media_buy', { brand: { domain: 'current.example' }, brand_manifest: 'https://old.example' });
  assert.equal(r.value, { brand: { domain: 'current.example' } });
  assert.equal(r.applied, [{ rule: 'brand_manifest-to-brand', from: '/brand_manifest', to: '/brand', conflict: true }]);
});

test('brand_manifest-to-brand: values that are not an http(s) URL are left for validation', () => {
  for (const bad of ['acme.example', 'not a url', 'mailto:x@acme.example', { name: 'Acme' }, { url: 42 }, 7, null, 'https://[::1]/']) {
    const input = { brand_manifest: bad };
    const r = run('get_products', input);
    assert.is(r.value, input, JSON.stringify(bad));
    assert.equal(r.applied, []);
  }
});

test('account_id-to-account: a string becomes account { account_id }', () => {
  const r = run('get_media_buys', { account_id: 'acc_42', media_buy_ids: ['mb_1'] });
  assert.equal(r.value, { media_buy_ids: ['mb_1'], account: { account_id: 'acc_42' } });
  assert.equal(r.applied, [{ rule: 'account_id-to-account', from: '/account_id', to: '/account' }]);
});

test('account_id-to-account: conflict, and a non-string account_id is left alone', () => {
  const c = run('create_media_buy', { account: { account_id: 'acc_new' }, account_id: 'acc_old' });
  assert.equal(c.value, { account: { account_id: 'acc_new' } });
  assert.equal(c.applied, [{ rule: 'account_id-to-account', from: '/account_id', to: '/account', conflict: true }]);
  const input = { account_id: 42 };
  assert.is(run('get_media_buys', input).value, input);
});

test('account_id-to-account never touches a tool whose request declares no account', () => {
  assert.not.ok(emittedFor('account_id-to-account').includes('list_creative_formats'));
  assert.not.ok(emittedFor('account_id-to-account').includes('get_adcp_capabilities'));
  const input = { account_id: 'acc_1' };
  assert.is(run('get_adcp_capabilities', input).value, input);
});

test('campaign_ref-to-ext: moves into ext.buyer_campaign_ref, keeping other ext members', () => {
  const r = run('create_media_buy', { campaign_ref: 'NovaDrink_Q2', ext: { gam: { order: 1 } } });
  assert.equal(r.value, { ext: { gam: { order: 1 }, buyer_campaign_ref: 'NovaDrink_Q2' } });
  assert.equal(r.applied, [{ rule: 'campaign_ref-to-ext', from: '/campaign_ref', to: '/ext/buyer_campaign_ref' }]);
  assert.equal(run('create_media_buy', { campaign_ref: 'Q2' }).value, { ext: { buyer_campaign_ref: 'Q2' } });
});

test('campaign_ref-to-ext: conflict, and an ext that is not an object leaves campaign_ref in place', () => {
  const c = run('create_media_buy', { campaign_ref: 'old', ext: { buyer_campaign_ref: 'new' } });
  assert.equal(c.value, { ext: { buyer_campaign_ref: 'new' } });
  assert.is(c.applied[0]!.conflict, true);
  const input = { campaign_ref: 'old', ext: 'oops' };
  assert.is(run('create_media_buy', input).value, input);
  // Not named for get_products: untouched there.
  const gp = { campaign_ref: 'x', buying_mode: 'wholesale' };
  assert.is(run('get_products', gp).value, gp);
});

const goal = { kind: 'metric', metric: 'clicks', priority: 1 };
const catalog = { type: 'product', catalog_id: 'cat_1' };

test('optimization_goal-to-optimization_goals: each package, create and update', () => {
  const r = run('create_media_buy', { packages: [{ product_id: 'p1', optimization_goal: goal }, { product_id: 'p2' }] });
  assert.equal(r.value.packages, [{ product_id: 'p1', optimization_goals: [goal] }, { product_id: 'p2' }]);
  assert.equal(r.applied, [{ rule: 'optimization_goal-to-optimization_goals', from: '/packages/0/optimization_goal', to: '/packages/0/optimization_goals' }]);
  const u = run('update_media_buy', { media_buy_id: 'mb', packages: [{ package_id: 'a' }, { package_id: 'b', optimization_goal: goal }] });
  assert.equal(u.applied[0]!.from, '/packages/1/optimization_goal');
  assert.equal((u.value.packages as unknown[])[1], { package_id: 'b', optimization_goals: [goal] });
});

test('optimization_goal-to-optimization_goals: conflict; untouched packages are shared, not copied', () => {
  const untouched = { product_id: 'p2' };
  const r = run('create_media_buy', { packages: [{ optimization_goal: goal, optimization_goals: [goal, goal] }, untouched] });
  assert.equal((r.value.packages as unknown[])[0], { optimization_goals: [goal, goal] });
  assert.is((r.value.packages as unknown[])[1], untouched);
  assert.is(r.applied[0]!.conflict, true);
});

test('catalog-to-catalogs: each package; conflict', () => {
  const r = run('update_media_buy', { packages: [{ package_id: 'a', catalog }] });
  assert.equal(r.value.packages, [{ package_id: 'a', catalogs: [catalog] }]);
  assert.equal(r.applied, [{ rule: 'catalog-to-catalogs', from: '/packages/0/catalog', to: '/packages/0/catalogs' }]);
  const c = run('create_media_buy', { packages: [{ catalog, catalogs: [catalog] }] });
  assert.equal(c.value.packages, [{ catalogs: [catalog] }]);
  assert.is(c.applied[0]!.conflict, true);
});

test('package rules: non-object packages and non-object goals are left for validation', () => {
  const input = { packages: ['p1', null, 7, [goal], { optimization_goal: [goal] }, { catalog: 'cat_1' }] };
  const r = run('create_media_buy', input);
  assert.is(r.value, input);
  assert.equal(r.applied, []);
  const notArray = { packages: { optimization_goal: goal } };
  assert.is(run('create_media_buy', notArray).value, notArray);
});

test('suppress_minutes-to-suppress: whole minutes become a Duration, nested in targeting_overlay.frequency_cap', () => {
  const pkg = { product_id: 'p', targeting_overlay: { geo_countries: ['US'], frequency_cap: { suppress_minutes: 60, max_impressions: 3 } } };
  const r = run('create_media_buy', { packages: [pkg] });
  assert.equal(r.value.packages, [{ product_id: 'p', targeting_overlay: { geo_countries: ['US'], frequency_cap: { max_impressions: 3, suppress: { unit: 'minutes', interval: 60 } } } }]);
  assert.equal(r.applied, [{ rule: 'suppress_minutes-to-suppress', from: '/packages/0/targeting_overlay/frequency_cap/suppress_minutes', to: '/packages/0/targeting_overlay/frequency_cap/suppress' }]);
  const c = run('update_media_buy', { packages: [{ targeting_overlay: { frequency_cap: { suppress_minutes: 5, suppress: { interval: 1, unit: 'hours' } } } }] });
  assert.equal(c.value.packages, [{ targeting_overlay: { frequency_cap: { suppress: { interval: 1, unit: 'hours' } } } }]);
  assert.is(c.applied[0]!.conflict, true);
  const fractional = { packages: [{ targeting_overlay: { frequency_cap: { suppress_minutes: 1.5 } } }] };
  assert.is(run('create_media_buy', fractional).value, fractional);
});

test('suppress_minutes-to-suppress variants: new_packages, governance planned delivery, plan outcomes', () => {
  const u = run('update_media_buy', { new_packages: [{ targeting_overlay: { frequency_cap: { suppress_minutes: 15 } } }] });
  assert.equal(u.value.new_packages, [{ targeting_overlay: { frequency_cap: { suppress: { unit: 'minutes', interval: 15 } } } }]);
  assert.equal(u.applied[0]!.rule, 'suppress_minutes-to-suppress.new_packages');
  const g = run('check_governance', { plan_id: 'p', planned_delivery: { frequency_cap: { suppress_minutes: 120 } } });
  assert.equal(g.value.planned_delivery, { frequency_cap: { suppress: { unit: 'minutes', interval: 120 } } });
  assert.equal(g.applied, [{ rule: 'suppress_minutes-to-suppress.planned_delivery', from: '/planned_delivery/frequency_cap/suppress_minutes', to: '/planned_delivery/frequency_cap/suppress' }]);
  const o = run('report_plan_outcome', { seller_response: { planned_delivery: { frequency_cap: { suppress_minutes: 1, suppress: { interval: 2, unit: 'minutes' } } } } });
  assert.equal(o.applied[0]!.conflict, true);
  // get_products has no targeting_overlay in 3.0.6: that variant is skipped, with the reason.
  assert.match(plan.skipped.find((x) => x.rule === 'suppress_minutes-to-suppress.targeting_overlay')!.reason, /targeting_overlay\/frequency_cap is not declared/);
});

test('promoted_offerings-to-catalog: offerings become an offering catalog; other shapes stay', () => {
  const offerings = [{ offering_id: 'o1', name: 'Winter sale' }];
  const r = run('get_products', { buying_mode: 'brief', promoted_offerings: { offerings } });
  assert.equal(r.value, { buying_mode: 'brief', catalog: { type: 'offering', items: offerings } });
  assert.equal(r.applied, [{ rule: 'promoted_offerings-to-catalog', from: '/promoted_offerings', to: '/catalog' }]);
  const c = run('get_products', { catalog, promoted_offerings: { offerings } });
  assert.equal(c.value, { catalog });
  assert.is(c.applied[0]!.conflict, true);
  // product_selectors would be lost by this rule: left in place rather than silently dropped.
  const selectors = { promoted_offerings: { offerings, product_selectors: { manifest_skus: ['a'] } } };
  assert.is(run('get_products', selectors).value, selectors);
});

test('deployments-to-destinations and destination-to-destinations (activate_signal)', () => {
  const dest = { type: 'platform', platform: 'the-trade-desk' };
  const a = run('activate_signal', { signal_agent_segment_id: 's', deployments: [dest] });
  assert.equal(a.value, { signal_agent_segment_id: 's', destinations: [dest] });
  assert.equal(a.applied, [{ rule: 'deployments-to-destinations', from: '/deployments', to: '/destinations' }]);
  const b = run('activate_signal', { signal_agent_segment_id: 's', destination: dest });
  assert.equal(b.value, { signal_agent_segment_id: 's', destinations: [dest] });
  assert.equal(b.applied, [{ rule: 'destination-to-destinations', from: '/destination', to: '/destinations' }]);
  // Both old forms at once: the first fills destinations, the second then conflicts with it.
  const both = run('activate_signal', { deployments: [dest], destination: dest });
  assert.equal(both.value, { destinations: [dest] });
  assert.equal(both.applied.map((x) => [x.rule, x.conflict === true]), [['deployments-to-destinations', false], ['destination-to-destinations', true]]);
  const c = run('activate_signal', { destinations: [dest], deployments: [] });
  assert.equal(c.value, { destinations: [dest] });
  assert.is(c.applied[0]!.conflict, true);
  const bad = { deployments: dest };
  assert.is(run('activate_signal', bad).value, bad);
});

test('deliver_to-to-destinations (get_signals): members move up; unknown members keep it in place', () => {
  const dest = { type: 'agent', agent_url: 'https://sales.example' };
  const r = run('get_signals', { signal_spec: 'runners', deliver_to: { destinations: [dest], countries: ['US'] } });
  assert.equal(r.value, { signal_spec: 'runners', destinations: [dest], countries: ['US'] });
  assert.equal(r.applied, [
    { rule: 'deliver_to-to-destinations', from: '/deliver_to/destinations', to: '/destinations' },
    { rule: 'deliver_to-to-destinations', from: '/deliver_to/countries', to: '/countries' },
  ]);
  const c = run('get_signals', { countries: ['GB'], deliver_to: { destinations: [dest], countries: ['US'] } });
  assert.equal(c.value, { countries: ['GB'], destinations: [dest] });
  assert.equal(c.applied.map((x) => x.conflict === true), [false, true]);
  for (const bad of [{ deliver_to: { platforms: 'all', countries: ['US'] } }, { deliver_to: {} }, { deliver_to: [dest] }]) {
    assert.is(run('get_signals', bad).value, bad);
  }
});

test('max_results-to-pagination (get_signals): into pagination, beside a cursor; conflict; malformed pagination', () => {
  const r = run('get_signals', { signal_spec: 'x', max_results: 25 });
  assert.equal(r.value, { signal_spec: 'x', pagination: { max_results: 25 } });
  assert.equal(r.applied, [{ rule: 'max_results-to-pagination', from: '/max_results', to: '/pagination/max_results' }]);
  assert.equal(run('get_signals', { max_results: 5, pagination: { cursor: 'c1' } }).value, { pagination: { cursor: 'c1', max_results: 5 } });
  const c = run('get_signals', { max_results: 5, pagination: { max_results: 50 } });
  assert.equal(c.value, { pagination: { max_results: 50 } });
  assert.is(c.applied[0]!.conflict, true);
  for (const bad of [{ max_results: 5, pagination: 'next' }, { max_results: '5' }]) assert.is(run('get_signals', bad).value, bad);
  // Not named for list_creatives: its max_results is left alone.
  const lc = { max_results: 5 };
  assert.is(run('list_creatives', lc).value, lc);
});

test('a current payload is returned as the same object with nothing applied', () => {
  const current = {
    idempotency_key: 'f3b1c2d4-0000-4000-8000-000000000001',
    account: { account_id: 'acc_1' },
    brand: { domain: 'acme.example' },
    start_time: 'asap',
    end_time: '2027-01-01T00:00:00Z',
    packages: [{ product_id: 'p', budget: 100, pricing_option_id: 'cpm', optimization_goals: [goal], catalogs: [catalog] }],
  };
  const r = run('create_media_buy', current);
  assert.is(r.value, current);
  assert.equal(r.applied, []);
  for (const v of [null, 'text', 42, [current]]) assert.is(normalizer('create_media_buy')(v).value, v);
});

test('hostile keys: __proto__ in a payload stays data and pollutes nothing', () => {
  const input = JSON.parse('{"__proto__": {"polluted": true}, "account_id": "acc", "packages": [{"__proto__": {"x": 1}, "optimization_goal": {"kind": "metric"}}]}') as Record<string, unknown>;
  const r = run('create_media_buy', input);
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  assert.is(Object.getPrototypeOf(r.value), Object.prototype);
  assert.ok(Object.prototype.hasOwnProperty.call(r.value, '__proto__'));
  assert.equal(Object.getOwnPropertyDescriptor(r.value, '__proto__')!.value, { polluted: true });
  const pkg = (r.value.packages as Record<string, unknown>[])[0]!;
  assert.is(Object.getPrototypeOf(pkg), Object.prototype);
  assert.equal(pkg.optimization_goals, [{ kind: 'metric' }]);
  // An inherited deprecated name is not a field of the payload.
  const proto = { account_id: 'inherited' };
  const child = Object.create(proto) as Record<string, unknown>;
  const inherited = normalizer('get_media_buys')(child);
  assert.is(inherited.value, child);
  assert.equal(inherited.applied, []);
});

test('property: never mutates, idempotent, no prototype reached — on random payloads mixing old and new fields', () => {
  const keys = ['account_id', 'account', 'brand_manifest', 'brand', 'campaign_ref', 'ext', 'packages', 'promoted_offerings', 'catalog', 'deployments', 'destination', 'destinations', 'deliver_to', 'countries', 'max_results', 'pagination', '__proto__', 'constructor'];
  const pkgKeys = ['optimization_goal', 'optimization_goals', 'catalog', 'catalogs', 'targeting_overlay', '__proto__'];
  const leaf = fc.oneof(fc.string(), fc.integer(), fc.constant('https://Acme.example/x'), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }));
  const obj = (ks: string[], value: fc.Arbitrary<unknown>) => fc.dictionary(fc.constantFrom(...ks), value, { maxKeys: 6 });
  const pkg = obj(pkgKeys, fc.oneof(leaf, obj(['suppress_minutes', 'suppress', 'frequency_cap', 'kind', 'url'], fc.oneof(leaf, obj(['suppress_minutes', 'suppress'], leaf)))));
  const payload = obj(keys, fc.oneof(leaf, fc.array(fc.oneof(pkg, leaf), { maxLength: 3 }), obj(['url', 'destinations', 'countries', 'max_results', 'offerings', 'buyer_campaign_ref', 'account_id'], leaf)));
  const tools = ['create_media_buy', 'update_media_buy', 'get_products', 'get_signals', 'activate_signal', 'get_media_buys'];
  fc.assert(
    fc.property(payload, fc.constantFrom(...tools), (p, tool) => {
      const input = JSON.parse(JSON.stringify(p)) as Record<string, unknown>; // own __proto__ keys, as a wire payload has
      const before = JSON.stringify(input);
      const first = normalizer(tool)(input);
      assert.is(JSON.stringify(input), before);
      const second = normalizer(tool)(first.value);
      assert.equal(second.applied, []);
      assert.is(second.value, first.value);
      assert.is(({} as Record<string, unknown>).polluted, undefined);
      assert.is(Object.getPrototypeOf(first.value), Object.prototype);
      for (const a of first.applied) assert.ok(a.from.startsWith('/') && a.to.startsWith('/'));
    }),
    { numRuns: 500 },
  );
});

test('a malformed deprecated value beside a translatable one: left in place, and a second pass does nothing', () => {
  // fast-check's counterexample: destination translates into destinations; deployments ({} is not an array) stays.
  const first = normalizer('activate_signal')({ deployments: {}, destination: {} });
  assert.equal(first.value, { deployments: {}, destinations: [{}] });
  assert.equal(first.applied.map((a) => a.rule), ['destination-to-destinations']);
  const second = normalizer('activate_signal')(first.value);
  assert.equal(second.applied, []);
  assert.is(second.value, first.value);
});

test.after(() => rmSync(out, { recursive: true, force: true }));

test.run();

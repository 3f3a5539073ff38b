import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileNormalizers, compileTypes, deprecatedRequestFields, planNormalizations } from '../generator/compile/index.js';
import { CodegenError } from '../generator/shared/index.js';
import { loadNormalizationRules, loadRelease } from '../generator/load/index.js';
import type { NormalizeFn } from '../runtime/artifacts/contract.js';
import { repoRoot, sdkReleaseDir } from './helpers/releases.js';
import { writeEmitted } from './helpers/differential.js';
import { tempDir } from './helpers/temp.js';

/**
 * Normalization rule files (their format and errors, a user's own rules planned and compiled against AdCP 3.0.6, the
 * shipped ones and their documentation) and the TypeScript declarations of the emitted normalizers.
 */

const release = loadRelease(sdkReleaseDir());
const ruleDir = join(repoRoot, 'schemas/normalizations');
const rules = loadNormalizationRules(readdirSync(ruleDir).sort().map((f) => join(ruleDir, f)));
const plan = planNormalizations(release, rules);
const files = compileNormalizers(release, plan);

// ---------------------------------------------------------------------------------------------------------------
// Rule files

function ruleError(rulesDoc: unknown, name = 'bad.json'): CodegenError {
  const dir = tempDir('adcp-rules-');
  const file = join(dir, name);
  writeFileSync(file, typeof rulesDoc === 'string' ? rulesDoc : JSON.stringify(rulesDoc));
  try {
    loadNormalizationRules([file]);
  } catch (e) {
    if (e instanceof CodegenError) {
      assert.is(e.file, file);
      return e;
    }
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  throw new Error('expected a CodegenError');
}

const good = { id: 'a-to-b', tools: ['get_products'], from: 'a', to: ['b'], transform: { kind: 'rename' } };

test('rule-file errors name the file and the JSON pointer', () => {
  assert.is(ruleError({ rules: [good, { ...good, tools: [] }] }).pointer, '/rules/1/tools');
  assert.is(ruleError({ rules: [{ ...good, from: undefined }] }).pointer, '/rules/0/from');
  assert.match(ruleError({ rules: [{ ...good, from: undefined }] }).message, /is required/);
  assert.is(ruleError({ rules: [{ ...good, to: ['__proto__'] }] }).pointer, '/rules/0/to/0');
  assert.is(ruleError({ rules: [{ ...good, transform: { kind: 'teleport' } }] }).pointer, '/rules/0/transform/kind');
  assert.is(ruleError({ rules: [{ ...good, transform: { kind: 'wrap-object' } }] }).pointer, '/rules/0/transform/key');
  assert.is(ruleError({ rules: [{ ...good, extra: 1 }] }).pointer, '/rules/0/extra');
  assert.is(ruleError({ rules: [good, good] }).pointer, '/rules/1/id');
  assert.is(ruleError({ rules: [{ ...good, transform: { kind: 'move-into-ext' }, to: ['meta', 'x'] }] }).pointer, '/rules/0/to');
  assert.is(ruleError({ rules: [{ ...good, transform: { kind: 'drop', reason: 'gone' } }] }).pointer, '/rules/0/to');
  assert.is(ruleError({ rules: [{ ...good, at: ['packages', '__proto__'] }] }).pointer, '/rules/0/at/1');
  assert.match(ruleError('{ "rules": [ }').message, /malformed JSON/);
  assert.is(ruleError({ rules: [] }).pointer, '/rules');
});

test('a drop rule from a user rule file: planned against 3.0.6, compiled, removes with its reason', () => {
  const dir = tempDir('adcp-rules-');
  try {
    const file = join(dir, 'v2-removed.json');
    const drop = { id: 'feedback-removed', tools: ['get_products', 'list_creatives'], from: 'feedback', transform: { kind: 'drop', reason: 'removed in AdCP 3' } };
    // A drop of a field 3.0.6 still declares as current is refused by the plan.
    const current = { id: 'brief-removed', tools: ['get_products'], from: 'brief', transform: { kind: 'drop', reason: 'x' } };
    writeFileSync(file, JSON.stringify({ rules: [drop, current] }));
    const custom = loadNormalizationRules([file]);
    const p = planNormalizations(release, custom);
    assert.equal(p.emitted.map((e) => `${e.rule.id}@${e.tool}`), ['feedback-removed@get_products', 'feedback-removed@list_creatives']);
    assert.match(p.skipped.find((s) => s.rule === 'brief-removed')!.reason, /brief is a current field/);
    const emitted = compileNormalizers(release, p, ['get_products']);
    writeEmitted(dir, emitted);
    const fn = (createRequire(join(dir, 'x.cjs'))(join(dir, 'releases/3.0/normalize/get_products.cjs')) as { normalize: NormalizeFn }).normalize;
    const input = { buying_mode: 'brief', brief: 'b', feedback: { rating: 3 } };
    const r = fn(input);
    assert.equal(r.value, { buying_mode: 'brief', brief: 'b' });
    assert.equal(r.applied, [{ rule: 'feedback-removed', from: '/feedback', to: '', reason: 'removed in AdCP 3' }]);
    assert.equal(input.feedback, { rating: 3 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a rule whose deprecated field is nested (from as a path) removes it from its parent only', () => {
  const dir = tempDir('adcp-rules-');
  try {
    const file = join(dir, 'nested.json');
    const rule = { id: 'filters.legacy_tier-to-ext', tools: ['get_products'], from: ['filters', 'legacy_tier'], to: ['ext', 'legacy_tier'], accepts: ['string'], transform: { kind: 'move-into-ext' } };
    writeFileSync(file, JSON.stringify({ rules: [rule] }));
    const p = planNormalizations(release, loadNormalizationRules([file]));
    assert.equal(p.emitted.map((e) => e.tool), ['get_products']);
    writeEmitted(dir, compileNormalizers(release, p, ['get_products']));
    const fn = (createRequire(join(dir, 'x.cjs'))(join(dir, 'releases/3.0/normalize/get_products.cjs')) as { normalize: NormalizeFn }).normalize;
    const filters = { channels: ['olv'], legacy_tier: 'gold' };
    const input = { buying_mode: 'wholesale', filters };
    const r = fn(input);
    assert.equal(r.value, { buying_mode: 'wholesale', filters: { channels: ['olv'] }, ext: { legacy_tier: 'gold' } });
    assert.equal(r.applied, [{ rule: 'filters.legacy_tier-to-ext', from: '/filters/legacy_tier', to: '/ext/legacy_tier' }]);
    assert.equal(filters, { channels: ['olv'], legacy_tier: 'gold' });
    const c = fn({ filters: { legacy_tier: 'gold' }, ext: { legacy_tier: 'silver' } });
    assert.equal(c.value, { filters: {}, ext: { legacy_tier: 'silver' } });
    assert.is(c.applied[0]!.conflict, true);
    const odd = { filters: 'none' };
    assert.is(fn(odd).value, odd);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // A nested source that shares its parent with the target would be put back by the copy: refused.
  assert.is(ruleError({ rules: [{ ...good, from: ['pagination', 'limit'], to: ['pagination', 'max_results'], transform: { kind: 'move' } }] }).pointer, '/rules/0/to');
});

test('the shipped rule files load, with unique ids and files named on each rule', () => {
  assert.ok(rules.length >= 12);
  assert.is(new Set(rules.map((r) => r.id)).size, rules.length);
  for (const r of rules) assert.ok(r.file.endsWith('.json') && r.pointer.startsWith('/rules/'));
});

test('docs/normalizations.md lists every rule and accounts for every deprecated request property of 3.0.6', () => {
  const doc = readFileSync(join(repoRoot, 'docs/normalizations.md'), 'utf8');
  for (const r of rules) assert.ok(doc.includes(`\`${r.id}\``), `rule ${r.id} missing from the docs`);
  const fields = deprecatedRequestFields(release);
  assert.ok(fields.some((f) => f.location === 'signals/get-signals-request.json#/properties/max_results'));
  assert.ok(fields.some((f) => f.location === 'core/frequency-cap.json#/properties/suppress_minutes'));
  for (const f of fields) assert.ok(doc.includes(`| \`${f.location}\` |`), `${f.location} (${f.example}) is not in the docs table`);
});

// ---------------------------------------------------------------------------------------------------------------
// Types

test('types.d.ts and the normalizer declarations pass tsc --noEmit (strict, NodeNext)', async () => {
  const dir = tempDir('adcp-types-');
  try {
    const types = await compileTypes(release);
    assert.equal(types.map((f) => f.path), ['releases/3.0/types.d.ts']);
    const code = types[0]!.contents;
    for (const name of ['export interface ToolTypes', 'CreateMediaBuyRequest', 'CreateMediaBuyResponse', 'BuildCreativeAsyncResponseSubmitted']) assert.ok(code.includes(name), name);
    // A shared definition is declared once per release, not once per tool that reaches it.
    assert.is(code.match(/^export interface BrandReference\d* /gm)?.length, 1);
    writeEmitted(dir, [...types, ...files]);
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(
      join(dir, 'consumer.ts'),
      [
        "import { normalize } from './releases/3.0/normalize/create_media_buy.cjs';",
        "import { normalize as normalizeSignals } from './releases/3.0/normalize/get_signals.cjs';",
        "import type { CreateMediaBuyRequest, GetSignalsRequest, ToolTypes } from './releases/3.0/types.js';",
        '// A 2.x-style buyer: no brand, no account — their deprecated forms instead.',
        'const result = normalize({',
        "  idempotency_key: 'f3b1c2d4-0000-4000-8000-000000000001',",
        "  account_id: 'acc_1',",
        "  brand_manifest: 'https://acme.example',",
        "  campaign_ref: 'Q4',",
        "  start_time: 'asap',",
        "  end_time: '2027-01-01T00:00:00Z',",
        '});',
        'const request: CreateMediaBuyRequest = result.value;',
        "const viaMap: ToolTypes['create_media_buy']['request'] = request;",
        'const signals: GetSignalsRequest = normalizeSignals({ signal_spec: \'sports fans\', max_results: 10 }).value;',
        'export const rules: string[] = [...result.applied.map((a) => a.rule), String(viaMap.brand.domain), String(signals.pagination)];',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, skipLibCheck: false, types: [] },
        include: ['consumer.ts', 'releases/**/*.d.ts', 'releases/**/*.d.cts'],
      }),
    );
    const tsc = join(repoRoot, 'node_modules/.bin/tsc');
    try {
      execFileSync(tsc, ['--noEmit', '-p', dir], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string };
      assert.unreachable(`tsc failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
    }
    // And it does check: a wrong assignment is an error.
    writeFileSync(join(dir, 'consumer.ts'), "import { normalize } from './releases/3.0/normalize/create_media_buy.cjs';\nexport const n: number = normalize({ account_id: 1 }).value;\n");
    let failed = '';
    try {
      execFileSync(tsc, ['--noEmit', '-p', dir], { encoding: 'utf8', stdio: 'pipe' });
    } catch (e) {
      failed = (e as { stdout?: string }).stdout ?? '';
    }
    assert.match(failed, /consumer\.ts/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

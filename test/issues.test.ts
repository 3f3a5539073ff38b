import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileValidators } from '../generator/compile/index.js';
import { loadRelease } from '../generator/load/index.js';
import type { Issue } from '../runtime/artifacts/contract.js';
import { wireIssues } from '../runtime/issues/issue-wire.js';
import { toIssues, wrapValidator } from '../runtime/issues/issues.js';
import { patternExample } from '../runtime/issues/pattern-example.js';
import { writeEmitted } from './helpers/differential.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { sdkReleaseDir } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';
import { requestValidator } from './helpers/tool-validators.js';

/**
 * One rejection names every defect (issue 19 point 3): the findings tree (runtime/issue-tree.ts), the collection
 * across union arms (issue-collect.ts), placeholders for patterns (pattern-example.ts) and what production may send
 * (issue-wire.ts), on AdCP 3.0.6's compiled validators. The recall figures against run-time Ajv with `allErrors` are
 * `npm run bench issues`; test/real/issues.test.ts asserts them and the 3.2 cases.
 */
const release = loadRelease(sdkReleaseDir());
const out = tempDir('adcp-issues-');
writeEmitted(out, compileValidators(release, ['create_media_buy', 'get_products', 'sync_accounts']));
const ids = { idBase: '/schemas/3.0.6/' };
const raw = (tool: string) => requestValidator(out, release.key, tool);
const validate = (tool: string) => wrapValidator(raw(tool), ids);
const issuesOf = (tool: string, payload: unknown): Issue[] => {
  const r = validate(tool)(payload);
  return r.ok ? [] : r.issues;
};
const brief = (issues: Issue[]) => issues.map((i) => `${i.keyword} ${i.pointer}`);

test('every missing required field of an empty request, each at its own pointer', () => {
  const issues = issuesOf('create_media_buy', {});
  assert.equal(brief(issues).slice(0, 5), ['required /idempotency_key', 'required /account', 'required /brand', 'required /start_time', 'required /end_time']);
  assert.ok(issues.every((i) => i.keyword !== 'required' || i.pointer.endsWith(`/${i.missingProperty}`)));
  assert.is(issues[0]!.schema_id, '/schemas/3.0.6/media-buy/create-media-buy-request.json');
  assert.is(issues[0]!.schemaPath, '#/required');
});

test('a union arm that reports twice (a wrong type and a typeless const) is still one arm: its issue, then the union', () => {
  const issues = issuesOf('create_media_buy', createMediaBuyRequest({ start_time: 42 }));
  assert.equal(brief(issues), ['type /start_time', 'oneOf /start_time']);
  assert.is(issues[0]!.schema_id, '/schemas/3.0.6/core/start-timing.json');
});

test('the closest arm of a union, by the fewest of the caller\'s fixes; what it keeps of the caller\'s data breaks ties', () => {
  // account is `{ account_id }` or `{ brand, operator, sandbox? }`, each closed: this caller meant the natural key.
  const account = { brand: { domain: 123, extra: true }, sandbox: true };
  const issues = issuesOf('create_media_buy', createMediaBuyRequest({ account }));
  assert.ok(brief(issues).includes('required /account/operator'), JSON.stringify(issues));
  assert.ok(brief(issues).includes('type /account/brand/domain'), JSON.stringify(issues));
  assert.not.ok(brief(issues).includes('required /account/account_id'), 'not the other arm');
});

test('a value favouring no shape of a union is told each shape it only lacks fields of; one that favours a shape is not', () => {
  // account is `{ account_id }` or `{ brand, operator, sandbox? }`: an empty one could be either.
  const empty = brief(issuesOf('create_media_buy', createMediaBuyRequest({ account: {} })));
  const at = empty.indexOf('oneOf /account');
  assert.equal(empty.slice(at - 3, at + 1), ['required /account/account_id', 'required /account/brand', 'required /account/operator', 'oneOf /account']);
  const other = issuesOf('create_media_buy', createMediaBuyRequest({ account: {} })).find((i) => i.pointer === '/account/brand')!;
  assert.match(other.message, /, in another shape \/account may take$/);
  // A field every shape refuses (unknown to both) favours neither: both shapes are still named, the field once.
  const unknown = brief(issuesOf('create_media_buy', createMediaBuyRequest({ account: { x_unknown: 1 } })));
  for (const want of ['required /account/account_id', 'required /account/brand', 'required /account/operator']) assert.ok(unknown.includes(want), `${want} in ${unknown.join(', ')}`);
  assert.is(unknown.filter((i) => i === 'additionalProperties /account/x_unknown').length, 1);
  // The natural key lacking its operator: the caller's `brand` rules out `{ account_id }`, which is not named.
  const natural = brief(issuesOf('create_media_buy', createMediaBuyRequest({ account: { brand: { domain: 'acme.example' } } })));
  assert.ok(natural.includes('required /account/operator'), natural.join(', '));
  assert.not.ok(natural.includes('required /account/account_id'), natural.join(', '));
});

test('a shape one fix further that keeps more of the caller\'s data is named too, as another shape', () => {
  // `{ account_id }` needs one fix (drop `brand`) fewer than the brand shape (`operator`, `brand.domain`, an unknown
  // field dropped), but the caller sent a brand: that shape's defects are named beside, each saying so.
  const issues = issuesOf('create_media_buy', createMediaBuyRequest({ account: { brand: { x_unknown: 1 } } }));
  assert.ok(brief(issues).includes('required /account/account_id'), brief(issues).join(', '));
  for (const want of ['required /account/operator', 'required /account/brand/domain', 'additionalProperties /account/brand/x_unknown']) {
    const found = issues.find((i) => `${i.keyword} ${i.pointer}` === want);
    assert.ok(found !== undefined, `${want} in ${brief(issues).join(', ')}`);
    assert.match(found!.message, /, in another shape \/account may take$/);
  }
});

test('defects on both sides of a union are named, in one reply', () => {
  const bad = createMediaBuyRequest({ start_time: 42, brand: { domain: 'acme.example', extra: 1 } }) as Record<string, any>;
  bad.packages[0].pacing = 'warp';
  delete bad.end_time;
  const named = brief(issuesOf('create_media_buy', bad));
  for (const want of ['type /start_time', 'additionalProperties /brand/extra', 'enum /packages/0/pacing', 'required /end_time']) assert.ok(named.includes(want), `${want} in ${named.join(', ')}`);
});

test('toIssues: one run, no probing — the union\'s closest arm by depth, then the union', () => {
  const v = raw('create_media_buy');
  assert.is(v(createMediaBuyRequest({ start_time: 42 })), false);
  const one = toIssues(v.errors!, createMediaBuyRequest({ start_time: 42 }));
  v.errors = null;
  // Without the collection's probe, the arm's two complaints both stand (the probe finds the type alone is the fix).
  assert.equal(brief(one), ['type /start_time', 'const /start_time', 'oneOf /start_time']);
});

test('pattern placeholders: a short string each pattern accepts, or none', () => {
  for (const pattern of [
    '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$',
    '^[A-Z]{3}$',
    '^[A-Z]{2}$',
    '^https://',
    '^[a-zA-Z0-9_-]+$',
    '^(cpm|vcpm)$',
    '^[^\\s@]+@[^\\s@]+$',
    '^\\d{4}-\\d{2}$',
    '^(?:[a-f0-9]{2}){4}$',
    '^\\p{L}+$',
  ]) {
    const example = patternExample(pattern);
    assert.ok(example !== undefined && new RegExp(pattern, 'u').test(example), `${pattern}: ${String(example)}`);
  }
  assert.is(patternExample('^(a)\\1$'), undefined, 'a back-reference is not modelled');
  assert.is(patternExample('('), undefined, 'an invalid pattern');
  assert.is(patternExample(`^${'a'.repeat(600)}$`), undefined, 'too long to attempt');
});

test('production sends schema_id and discriminator only for AdCP\'s published schemas, and never schemaPath', () => {
  const issue: Issue = {
    pointer: '/x',
    keyword: 'enum',
    message: 'm',
    schema_id: '/schemas/3.0.6/core/x.json',
    schemaPath: '#/properties/x/enum',
    discriminator: [{ property_name: 'type', value: 'a' }],
  };
  assert.equal(wireIssues([issue], 'development', false), [issue]);
  assert.equal(wireIssues([issue], 'production', true), [{ pointer: '/x', keyword: 'enum', message: 'm', schema_id: '/schemas/3.0.6/core/x.json', discriminator: [{ property_name: 'type', value: 'a' }] }]);
  assert.equal(wireIssues([issue], 'production', false), [{ pointer: '/x', keyword: 'enum', message: 'm' }]);
  const plain: Issue = { pointer: '', keyword: 'type', message: 'm' };
  assert.is(wireIssues([plain], 'production', false)[0], plain, 'nothing to drop: the same object');
});

test('the collection is bounded: a payload wrong everywhere answers in bounded time, the caller\'s value untouched', () => {
  const bad = createMediaBuyRequest() as Record<string, any>;
  bad.packages = Array.from({ length: 300 }, (_, i) => ({ product_id: i, pricing_option_id: i, budget: 'x', pacing: 'warp' }));
  const before = JSON.stringify(bad);
  const t = performance.now();
  const issues = issuesOf('create_media_buy', bad);
  assert.ok(issues.length >= 10 && issues.length <= 50, String(issues.length));
  assert.ok(performance.now() - t < 2000);
  assert.is(JSON.stringify(bad), before);
});

test.run();

import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileValidators, createRuntimeAjv } from '../generator/compile/index.js';
import { loadRelease } from '../generator/load/index.js';
import type { AjvErrorObject } from '../runtime/artifacts/contract.js';
import { wrapValidator } from '../runtime/issues/issues.js';
import { writeEmitted } from './helpers/differential.js';
import { tinyRelease } from './helpers/fixture-release.js';
import { tempDir } from './helpers/temp.js';
import { requestValidator } from './helpers/tool-validators.js';

/**
 * Compiling what repeats once (issue 31, generator/load/hoist.ts): an inline subschema two documents repeat (with
 * different descriptions) is compiled to one function both places call, and what that function rejects reads exactly
 * as run-time Ajv says it, the subschema inline: the same keyword, instance path and schema path, in its place.
 */
const budget = (description: string) => ({
  description,
  type: 'object',
  properties: {
    amount: { type: 'number', minimum: 0 },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    pacing: { type: 'string', enum: ['even', 'asap', 'front_loaded'] },
  },
  required: ['amount', 'currency'],
  additionalProperties: false,
});
const id = (p: string) => `/schemas/9.1.0/${p}`;
const dir = tinyRelease({
  'media-buy/make-thing-request.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id('media-buy/make-thing-request.json'),
    type: 'object',
    properties: { thing: { $ref: '../core/thing.json' }, budget: budget('The budget of the thing.'), packages: { type: 'array', items: { type: 'object', properties: { budget: budget('A package budget.') } } } },
    required: ['thing'],
  },
  'media-buy/get-things-request.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id('media-buy/get-things-request.json'),
    type: 'object',
    properties: { limit: { type: 'integer' }, max_budget: budget('Only things under this budget.') },
  },
});
const release = loadRelease(dir);
const files = compileValidators(release);
const out = tempDir('adcp-validators-hoist-');
writeEmitted(out, files);
const runtime = createRuntimeAjv(release);

test('a subschema repeated in three places and two documents is one definition, called from each', () => {
  const packs = files.filter((f) => f.path.includes('/packs/'));
  const hoisted = packs.flatMap((f) => [...f.contents.matchAll(/^define\("(_hoisted\.[^"]+)"/gm)].map((m) => m[1]!));
  assert.is(hoisted.length, 1, hoisted.join(', '));
  const calls = packs.reduce((n, f) => n + (f.contents.match(/=func_at\(V,validate_[0-9a-f]+,"#[^"]*"\)/g)?.length ?? 0), 0);
  assert.is(calls, 3, 'each place calls it, naming its own schema path');
  // The set compiles `currency`'s pattern once.
  assert.is(packs.reduce((n, f) => n + (f.contents.split('new RegExp("^[A-Z]{3}$"').length - 1), 0), 1);
  // Its inputs are the documents it came from, never the stand-in.
  const pack = packs.find((f) => f.contents.includes(`define("${hoisted[0]!}"`))!;
  assert.ok(pack.inputs.some((i) => i.name.endsWith(':media-buy/get-things-request.json')) && pack.inputs.some((i) => i.name.endsWith(':media-buy/make-thing-request.json')), JSON.stringify(pack.inputs));
  assert.not.ok(pack.inputs.some((i) => i.name.includes('_hoisted')));
});

test('what a hoisted subschema rejects reads as run-time Ajv says it, in each place; valid stays valid', () => {
  const cases: [string, unknown][] = [
    ['make_thing', { thing: { id: 't' }, budget: { amount: -1, currency: 'USD' } }],
    ['make_thing', { thing: { id: 't' }, budget: { amount: 1, currency: 'usd' } }],
    ['make_thing', { thing: { id: 't' }, packages: [{ budget: { amount: 1, currency: 'USD' } }, { budget: { amount: 1, currency: 'USD', pacing: 'warp' } }] }],
    ['make_thing', { thing: { id: 't' }, packages: [{ budget: { currency: 'USD', extra: 1 } }] }],
    ['get_things', { max_budget: { amount: 'x', currency: 'USD' } }],
    ['make_thing', { thing: { id: 't' }, budget: { amount: 5, currency: 'EUR', pacing: 'asap' } }],
  ];
  for (const [tool, data] of cases) {
    const ours = requestValidator(out, release.key, tool);
    const ajv = runtime.getSchema(release.schemas.byPath.get(release.tools.get(tool)!.requestSchema)!.id)!;
    const expected = ajv(data);
    assert.is(ours(data), expected, JSON.stringify(data));
    if (expected) continue;
    const theirs = (ajv.errors ?? []).map((e) => [e.keyword, e.instancePath, e.schemaPath]);
    const mine = (ours.errors ?? []).map((e: AjvErrorObject) => [e.keyword, e.instancePath, e.schemaPath]);
    ours.errors = null;
    assert.equal(mine, theirs, JSON.stringify(data));
  }
  // And the rejection's issues name the field where the buyer's release says.
  const issues = wrapValidator(requestValidator(out, release.key, 'make_thing'), { idBase: '/schemas/9.1.0/' })({ thing: { id: 't' }, packages: [{ budget: { amount: 1, currency: 'USD', pacing: 'warp' } }] });
  assert.is(issues.ok, false);
  const first = !issues.ok ? issues.issues[0]! : undefined;
  assert.equal([first?.keyword, first?.pointer, first?.schema_id, first?.schemaPath], ['enum', '/packages/0/budget/pacing', '/schemas/9.1.0/media-buy/make-thing-request.json', '#/properties/packages/items/properties/budget/properties/pacing/enum']);
});

test.after(() => {
  rmSync(dir, { recursive: true, force: true });
});

test.run();

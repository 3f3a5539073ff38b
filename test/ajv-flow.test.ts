import { createRequire } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { ajvOptions } from '../generator/load/index.js';
import { foldControlFlow } from '../generator/load/ajv-flow.js';

/**
 * generator/load/ajv-flow.ts folds Ajv's control flow in the build-time Ajv: a failing `$ref` outside a union
 * returns at once, and the flags recomputed from a count known to be 0 are gone. The same schemas compiled by a
 * plain Ajv and a folded one must give the same verdicts and the same error objects on every payload; the folded
 * code is smaller, and a definition with no union keeps none of Ajv's flags.
 */
type Standalone = (ajv: Ajv, refsOrFunc?: unknown) => string;
const standaloneCode: Standalone = ((standaloneModule as unknown as { default?: Standalone }).default ?? standaloneModule) as Standalone;
const require = createRequire(import.meta.url);

const base = 'https://example.test/';
const schemas = [
  { $id: `${base}money.json`, type: 'object', required: ['amount'], properties: { amount: { type: 'number', minimum: 0 }, currency: { type: 'string', pattern: '^[A-Z]{3}$' } } },
  { $id: `${base}line.json`, type: 'object', required: ['id'], properties: { id: { type: 'string' }, budget: { $ref: 'money.json' }, tags: { type: 'array', items: { type: 'string' } } } },
  {
    $id: `${base}order.json`,
    type: 'object',
    required: ['lines'],
    additionalProperties: false,
    dependencies: { pay: { properties: { total: { $ref: 'money.json' } } } },
    properties: {
      total: { $ref: 'money.json' },
      lines: { type: 'array', minItems: 1, uniqueItems: true, items: { $ref: 'line.json' } },
      extra: { type: 'object', additionalProperties: { $ref: 'money.json' }, propertyNames: { maxLength: 3 } },
      pay: { anyOf: [{ $ref: 'money.json' }, { type: 'object', required: ['voucher'], properties: { voucher: { type: 'string' } } }] },
      mode: { type: 'string' },
      note: { not: { $ref: 'money.json' } },
      pick: { oneOf: [{ $ref: 'line.json' }, { type: 'object', required: ['ref'], properties: { ref: { $ref: 'money.json' } } }] },
    },
    if: { properties: { mode: { const: 'paid' } } },
    then: { required: ['total'], properties: { total: { $ref: 'money.json' } } },
    else: { properties: { lines: { items: { properties: { budget: { $ref: 'money.json' } } } } } },
  },
];

const payloads: unknown[] = [
  { lines: [{ id: 'a' }] },
  { lines: [] },
  { lines: [{ id: 'a', budget: { amount: -1 } }] },
  { lines: [{ id: 'a', budget: { amount: 1, currency: 'usd' } }, { id: 3 }] },
  { lines: [{ id: 'a', tags: ['x', 2] }] },
  { total: { amount: 'x' }, lines: [{ id: 'a' }] },
  { total: {}, lines: [{ id: 'a' }] },
  { lines: [{ id: 'a' }], pay: { amount: 3 } },
  { lines: [{ id: 'a' }], pay: { voucher: 3 } },
  { lines: [{ id: 'a' }], pay: {} },
  { lines: [{ id: 'a' }], note: { amount: 1 } },
  { lines: [{ id: 'a' }], note: 'fine' },
  { lines: [{ id: 'a' }], pick: { id: 'b' } },
  { lines: [{ id: 'a' }], pick: { ref: { amount: -2 } } },
  { lines: [{ id: 'a' }], pick: {} },
  { lines: [{ id: 'a' }], mode: 'paid' },
  { lines: [{ id: 'a' }], mode: 'paid', total: { amount: -3 } },
  { lines: [{ id: 'a' }], mode: 'paid', total: { amount: 3 } },
  { lines: [{ id: 'a', budget: { currency: 'EUR' } }], mode: 'free' },
  { lines: [{ id: 'a' }, { id: 'b', budget: { amount: 1, currency: 'E' } }], total: { amount: 2 } },
  { lines: [{ id: 'a', budget: {} }, { id: 'a', budget: {} }] },
  { lines: [{ id: 'a' }, { id: 'a' }] },
  { lines: [{ id: 'a' }], extra: { abc: { amount: 'x' }, abcd: { amount: 1 } } },
  { lines: [{ id: 'a' }], extra: { abcd: { amount: 'x' } } },
  { lines: [{ id: 'a' }], total: { amount: -1 }, unknown: 1 },
  { lines: [{ id: 'a' }], pay: { amount: 1 }, total: { amount: 'x' } },
  { lines: [{ id: 5 }], pay: { voucher: 'v' }, total: {} },
  [],
  'order',
];

function compiled(fold: boolean): { code: string; validate: (d: unknown) => boolean; errors: () => unknown } {
  const ajv = new Ajv({ ...ajvOptions(true, false), schemas });
  if (fold) foldControlFlow(ajv);
  const code = standaloneCode(ajv, { order: `${base}order.json` });
  const mod = { exports: {} as Record<string, { (d: unknown): boolean; errors?: unknown }> };
  new Function('module', 'exports', 'require', code)(mod, mod.exports, require);
  const fn = mod.exports.order!;
  return { code, validate: (d) => fn(d), errors: () => fn.errors };
}

const plain = compiled(false);
const folded = compiled(true);

test('the same verdicts and the same errors as Ajv on every payload', () => {
  for (const p of payloads) {
    const a = plain.validate(p);
    const b = folded.validate(p);
    assert.is(b, a, JSON.stringify(p));
    assert.equal(folded.errors(), plain.errors(), JSON.stringify(p));
  }
});

test('smaller, and a definition without a union keeps none of the flags', () => {
  assert.ok(folded.code.length < plain.code.length, `${folded.code.length} against ${plain.code.length}`);
  // money.json and line.json have no union: no `_errs` copy of the count, no `valid` flag.
  const defs = folded.code.split(/\nfunction /).filter((f) => /"https:\/\/example\.test\/(money|line)\.json"/.test(f));
  assert.ok(defs.length >= 2);
  for (const d of defs) assert.not.match(d, /_errs\d|valid\d/);
  // order.json's union arms still count their errors.
  assert.match(folded.code, /_errs\d+ === errors/);
});

test.run();

import { createRequire } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Ajv } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { ajvOptions } from '../generator/load/index.js';
import { COMPACT_HELPERS, compactCode, ERROR_HELPER, FAIL_AT_HELPER, FAIL_HELPER, FAIL_TYPE_HELPER, ITEM_ERROR_HELPER, PROPERTY_ERROR_HELPER, PUSH_HELPER } from '../generator/compile/index.js';

/**
 * generator/compile/validators/compact.ts rewrites Ajv's code token by token. These tests run Ajv's real standalone output before and
 * after compaction on the same payloads and require the same verdicts and the same error objects (every property,
 * in the same order); the differential suites then check the whole generated set against run-time Ajv.
 */

type Standalone = (ajv: Ajv, refsOrFunc?: unknown) => string;
const standaloneCode: Standalone = ((standaloneModule as unknown as { default?: Standalone }).default ?? standaloneModule) as Standalone;
const require = createRequire(import.meta.url);

const schema = {
  type: 'object',
  required: ['id', 'items', 'pacing'],
  additionalProperties: false,
  properties: {
    id: { type: 'integer', minimum: 1 },
    pacing: { enum: ['even', 'asap'] },
    budget: { type: 'number', exclusiveMinimum: 0, maximum: 100 },
    items: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: {
        oneOf: [
          { type: 'object', required: ['kind', 'url'], properties: { kind: { const: 'url' }, url: { type: 'string', minLength: 3 } } },
          { type: 'object', required: ['kind', 'html'], properties: { kind: { const: 'html' }, html: { type: 'string' } } },
        ],
      },
    },
    window: { type: 'object', anyOf: [{ required: ['start'] }, { required: ['end'] }], not: { required: ['never'] } },
    tags: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 4 } } } },
  },
};

const payloads: unknown[] = [
  { id: 1, pacing: 'even', items: [{ kind: 'url', url: 'https://x' }] },
  { id: 0, pacing: 'even', items: [{ kind: 'url', url: 'https://x' }] },
  { id: 1.5, pacing: 'even', items: [{ kind: 'url', url: 'x' }] },
  { id: 1, pacing: 'fast', items: [{ kind: 'url', url: 'https://x' }] },
  { id: 1, pacing: 'even', items: [] },
  { id: 1, pacing: 'even', items: [{ kind: 'html' }] },
  { id: 1, pacing: 'even', items: [{ kind: 'url', url: 'ab' }] },
  { id: 1, pacing: 'even', items: [{ kind: 'video' }, 3] },
  { id: 1, pacing: 'even', items: [{ kind: 'html', html: '' }, { kind: 'html', html: '' }] },
  { id: 1, pacing: 'even', items: [{ kind: 'html', html: '' }], budget: 0 },
  { id: 1, pacing: 'even', items: [{ kind: 'html', html: '' }], budget: 101 },
  { id: 1, pacing: 'even', items: [{ kind: 'html', html: '' }], window: {} },
  { id: 1, pacing: 'even', items: [{ kind: 'html', html: '' }], window: { start: 1, never: 1 } },
  { id: 1, pacing: 'even', items: [{ kind: 'html', html: '' }], extra: true },
  { id: 1, pacing: 'even', items: [{ kind: 'html', html: '' }], tags: [{ name: 'ok' }, { name: 'too long' }] },
  { id: 1, pacing: 'even', items: [{ kind: 'html', html: '' }], tags: [{ name: 'ok' }, {}] },
  { id: 1, pacing: 'even', items: [{ kind: 'html', html: '' }], tags: [3] },
  { pacing: 'even', items: [] },
  [],
  null,
];

function load(code: string): { (data: unknown): boolean; errors?: unknown } {
  const module = { exports: {} as { (data: unknown): boolean; errors?: unknown } };
  new Function('module', 'exports', 'require', code)(module, module.exports, require);
  return module.exports;
}

function standalone(): string {
  const ajv = new Ajv({ ...ajvOptions(true, false), inlineRefs: true });
  return standaloneCode(ajv, ajv.compile(schema));
}

function sameBehaviour(original: string, compacted: string): void {
  const a = load(original);
  const b = load(compacted);
  for (const p of payloads) {
    const va = a(p);
    const vb = b(p);
    assert.is(vb, va, JSON.stringify(p));
    // JSON text compares key order too.
    assert.is(JSON.stringify(b.errors), JSON.stringify(a.errors), JSON.stringify(p));
  }
}

test('compacted Ajv code (error helper, error collection, short locals, no whitespace) behaves as Ajv wrote it', () => {
  const original = standalone();
  const start = original.indexOf('function validate');
  const end = original.lastIndexOf('}') + 1;
  const fn = original.slice(start, end);
  const compacted = compactCode(fn);
  assert.ok(compacted.includes(`${ERROR_HELPER}(`), 'error literals go through the helper');
  assert.ok(compacted.includes(`${PROPERTY_ERROR_HELPER}(P,"/window"`), 'an error at a property run names it once');
  assert.ok(compacted.includes(`${ITEM_ERROR_HELPER}(P+"/tags/"+i`), 'and one through array items');
  // Ajv's standalone function is `validate<N>`.
  assert.ok(compacted.includes(`${FAIL_TYPE_HELPER}(`) && /return \$failType\(validate\d*,P,"\/id","integer"\);/.test(compacted), 'a first failure, a wrong type at a property run');
  assert.ok(compacted.includes(`${FAIL_AT_HELPER}(`) && /return \$failAt\(validate\d*,P,"\/budget","exclusiveMinimum",/.test(compacted), 'a first failure at a property run');
  assert.ok(new RegExp(`return \\${FAIL_HELPER}\\(validate\\d*,\\${ITEM_ERROR_HELPER}\\(`).test(compacted), 'any other first failure');
  assert.not.ok(/\.errors=\[[^\]]*\];\s*return false;/.test(compacted), 'no first failure written out');
  assert.ok(compacted.includes(`${PUSH_HELPER}(`), 'collected errors go through the helper');
  assert.ok(compacted.includes('{instancePath:P=""'), 'instancePath read as a short local');
  assert.not.ok(/\bvErrors\b|\berrors\b/.test(compacted.replace(/\.errors\b/g, '')), 'locals renamed');
  assert.ok(compacted.length < fn.length * 0.8, `${compacted.length} vs ${fn.length}`);
  sameBehaviour(original, `${original.slice(0, start)}${COMPACT_HELPERS.join('\n')}\n${compacted}${original.slice(end)}`);
});

test('compaction keeps operators apart that would otherwise merge, and keeps one statement per line', () => {
  const fn = 'function validate(data,{instancePath="",parentData,parentDataProperty,rootData=data}={}){\nlet a = data - -1;\nlet b = data + +1;\nlet i = 0;\ni++;\nvalidate.errors = a < !b;\nreturn i;\n}';
  const out = compactCode(fn);
  assert.ok(out.includes('data- -1'));
  assert.ok(out.includes('data+ +1'));
  assert.ok(out.includes('i++;'));
  assert.ok(out.includes('a< !b'));
  assert.is(out.split('\n').length, fn.split('\n').length);
  const run = (code: string) => new Function(`${code}; return validate(3);`)() as number;
  assert.is(run(out), run(fn));
});

test('a function that already uses a short name keeps Ajv names; helpers names in Ajv code are refused', () => {
  const fn = 'function validate(data,{instancePath="",parentData,parentDataProperty,rootData=data}={}){\nlet vErrors = null;\nlet errors = 0;\nlet N = 1;\nlet P = 2;\nreturn errors === 0 && instancePath === "";\n}';
  const out = compactCode(fn);
  assert.ok(out.includes('let vErrors=null;') && out.includes('let errors=0;'));
  assert.ok(out.includes('instancePath===""'));
  assert.throws(() => compactCode(`function validate(data){return ${ERROR_HELPER};}`), /already uses/);
});

test.run();

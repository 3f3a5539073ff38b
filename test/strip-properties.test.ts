import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileStrip, interpretStrip } from '../generator/compile/index.js';
import type { JsonSchema } from '../generator/load/index.js';
import { isObj } from './helpers/strips.js';

/** Deep-strip's properties on generated schemas and values (fast-check): compiled == interpreted, nothing known lost. */

// ── property tests ────────────────────────────────────────────────────────────────────────────────────────────

const KNOWN = ['a', 'b', 'c', 'kind'] as const;
const UNKNOWN = ['zz', 'u_1', '__proto__', 'constructor', 'x/y~'];

type Gen = { schema: JsonSchema; value: fc.Arbitrary<unknown> };

/** Schemas over a small vocabulary, each with an arbitrary of values shaped by it (plus unknown fields). */
const genSchema: fc.Arbitrary<Gen> = fc.letrec<{ node: Gen; leaf: Gen; object: Gen; array: Gen; union: Gen; merged: Gen }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('object'), tie('array'), tie('union'), tie('merged')),
  leaf: fc.constantFrom<Gen>(
    { schema: { type: 'string' }, value: fc.string() },
    { schema: { type: 'integer' }, value: fc.integer() },
    // Any value, but none holding a vocabulary name as a key: merged with a closed object that declares other names, a
    // field named `b` inside it is unknown there and rightly removed, which the known-fields property would misread.
    { schema: {}, value: fc.jsonValue({ maxDepth: 2 }).filter((v) => !holdsKnownKey(v)) },
    { schema: { enum: ['p', 'q', null] }, value: fc.constantFrom('p', 'q', null) },
  ),
  object: fc.tuple(fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('node'), { maxKeys: 3 }), fc.boolean()).map(([props, closed]) => objectGen(props, closed)),
  array: tie('node').map((item) => ({ schema: { type: 'array', items: item.schema }, value: fc.array(item.value, { maxLength: 3 }) })),
  // Discriminated by a const `kind`: every generated value belongs to exactly one branch.
  union: fc.array(tie('object'), { minLength: 2, maxLength: 3 }).map((branches) => {
    const tagged = branches.map((b, i) => {
      const s = b.schema as Record<string, unknown>;
      const schema = { ...s, properties: { ...(s.properties as object), kind: { const: `k${i}` } }, required: ['kind'] };
      return { schema, value: b.value.map((v) => (isObj(v) ? { ...v, kind: `k${i}` } : v)) };
    });
    return { schema: { oneOf: tagged.map((t) => t.schema) }, value: fc.oneof(...tagged.map((t) => t.value)) };
  }),
  merged: fc.tuple(tie('object'), tie('object')).map(([x, y]) => ({
    schema: { allOf: [x.schema, y.schema] },
    value: fc.tuple(x.value, y.value).map(([p, q]) => (isObj(p) && isObj(q) ? { ...q, ...p } : p)),
  })),
})).node;

function holdsKnownKey(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(holdsKnownKey);
  return isObj(v) && Object.keys(v).some((k) => (KNOWN as readonly string[]).includes(k) || holdsKnownKey(v[k]));
}

function objectGen(props: Record<string, Gen>, closed: boolean): Gen {
  const names = Object.keys(props);
  const known = fc.record(Object.fromEntries(names.map((n) => [n, props[n]!.value])), { requiredKeys: [] });
  const unknown = fc.dictionary(fc.constantFrom(...UNKNOWN), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 });
  return {
    schema: { type: 'object', properties: Object.fromEntries(names.map((n) => [n, props[n]!.schema])), ...(closed ? { additionalProperties: false } : {}) },
    value: fc.tuple(known, unknown).map(([k, u]) => {
      const out: Record<string, unknown> = {};
      for (const [key, v] of [...Object.entries(u), ...Object.entries(k)]) Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    }),
  };
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

/** The input with exactly these pointers deleted (through own properties). */
function without(value: unknown, pointers: readonly string[]): unknown {
  const copy = structuredCloneOwn(value);
  for (const p of [...pointers].reverse()) {
    const tokens = p.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    let node = copy as Record<string, unknown>;
    for (const t of tokens.slice(0, -1)) node = node[t] as Record<string, unknown>;
    delete node[tokens[tokens.length - 1]!];
  }
  return copy;
}

function structuredCloneOwn(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(structuredCloneOwn);
  if (isObj(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: structuredCloneOwn(v[k]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

const lastToken = (p: string): string => p.slice(p.lastIndexOf('/') + 1).replace(/~1/g, '/').replace(/~0/g, '~');

test('properties: known fields never removed, values preserved, input never mutated, idempotent, compiled == interpreted', () => {
  fc.assert(
    fc.property(
      genSchema.chain((g) => fc.tuple(fc.constant(g.schema), g.value)),
      ([schema, value]) => {
        const compiled = compileStrip(schema);
        const interpreted = interpretStrip(schema);
        const before = JSON.stringify(value);
        const frozen = deepFreeze(value); // generated code is strict: any write into the input would throw
        const r = compiled(frozen);
        // JSON text, not dequal: payload keys like "constructor" would fool a structural comparison.
        assert.is(JSON.stringify(interpreted(frozen)), JSON.stringify(r), 'compiled == interpreted');
        assert.is(JSON.stringify(frozen), before);
        for (const p of r.removed) assert.ok(!(KNOWN as readonly string[]).includes(lastToken(p)), `known field removed at ${p}`);
        assert.is(JSON.stringify(r.value), JSON.stringify(without(value, r.removed)), 'only the removed fields differ');
        const again = compiled(r.value);
        assert.equal(again.removed, []);
        assert.ok(again.value === r.value, 'idempotent, and nothing copied the second time');
        if (r.removed.length === 0) assert.ok(r.value === value);
      },
    ),
    { numRuns: Number(process.env.STRIP_RUNS ?? 400) },
  );
});

/** Any-shape schemas over more keywords (unions without tags, anyOf, if/then/else, patterns, tuples, $ref cycles). */
const anySchema: fc.Arbitrary<JsonSchema> = fc.letrec<{ s: JsonSchema }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom<JsonSchema>({}, true, { type: 'string' }, { enum: ['p', 'q'] }, { $ref: '#' }, { $ref: '#/definitions/d' }),
    fc.record({ properties: fc.dictionary(fc.constantFrom('a', 'b', 'c', 'kind'), tie('s'), { maxKeys: 3 }), additionalProperties: fc.oneof(fc.boolean(), tie('s')) }),
    fc.record({ patternProperties: fc.dictionary(fc.constantFrom('^a', '^z', 'c$'), tie('s'), { maxKeys: 2 }), additionalProperties: fc.constant(false) }),
    fc.record({ oneOf: fc.array(tie('s'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ anyOf: fc.array(tie('s'), { minLength: 1, maxLength: 3 }), properties: fc.constant({ kind: { enum: ['k0', 'k1'] } }) }),
    fc.record({ allOf: fc.array(tie('s'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ if: fc.constantFrom<JsonSchema>({ properties: { kind: { const: 'k0' } } }, { required: ['a'] }, { minProperties: 2 }), then: tie('s'), else: tie('s') }),
    fc.record({ dependencies: fc.record({ a: tie('s') }) }),
    fc.record({ type: fc.constant('array'), items: fc.oneof(tie('s'), fc.array(tie('s'), { maxLength: 2 })), additionalItems: tie('s') }),
  ),
})).s.map((s) => ({ definitions: { d: { type: 'object', properties: { a: { $ref: '#' } }, additionalProperties: false } }, ...(typeof s === 'object' ? s : { allOf: [s] }) }));

const anyValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('k0', 'k1', 'p', 1, null, true),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'kind', 'zz', 'a1', '__proto__', 'x/y~'), tie('v'), { maxKeys: 4 }),
  ),
})).v;

test('properties on arbitrary schemas: compiled == interpreted, input untouched, idempotent, only removed fields differ', () => {
  fc.assert(
    fc.property(anySchema, fc.array(anyValue, { minLength: 1, maxLength: 4 }), (schema, values) => {
      const compiled = compileStrip(schema);
      const interpreted = interpretStrip(schema);
      for (const value of values) {
        const frozen = deepFreeze(structuredCloneOwn(value));
        const r = compiled(frozen);
        assert.is(JSON.stringify(interpreted(frozen)), JSON.stringify(r), 'compiled == interpreted');
        assert.is(JSON.stringify(r.value), JSON.stringify(without(frozen, r.removed)));
        const again = compiled(r.value);
        assert.equal(again.removed, [], 'idempotent');
      }
    }),
    { numRuns: Number(process.env.STRIP_RUNS ?? 300) },
  );
});

test.run();

import fc from 'fast-check';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileStrip, compileStripModules, compileStripSource, interpretStrip } from '../generator/compile/index.js';
import { sha256, shortHash } from '../generator/shared/index.js';
import { loadRelease, type JsonSchema, type Release, releaseAjv } from '../generator/load/index.js';
import type { StripFn, StripModule, StripResult } from '../runtime/artifacts/contract.js';
import { driftIssues } from '../runtime/issues/drift.js';
import { tempDir } from './helpers/fixture-release.js';
import { sdkReleaseDir } from './helpers/releases.js';
import { writeEmitted } from './helpers/differential.js';
import { createMediaBuyRequest } from './helpers/payloads.js';

const requireCjs = createRequire(import.meta.url);

/** Compiled and interpreted strips of one schema; every call runs both and insists they agree exactly. */
function strips(schema: JsonSchema): StripFn {
  const compiled = compileStrip(schema);
  const interpreted = interpretStrip(schema);
  return (data) => {
    const a = compiled(data);
    const b = interpreted(data);
    assert.equal(a, b, 'compiled and interpreted strips agree');
    return a;
  };
}

const obj = (properties: Record<string, JsonSchema>, extra: Record<string, unknown> = {}): JsonSchema => ({ type: 'object', properties, additionalProperties: false, ...extra });

// ── semantics on fixture schemas ────────────────────────────────────────────────────────────────────────────────

test('a closed object loses its unknown fields, keeps its known ones exactly, and reports the pointers', () => {
  const strip = strips(obj({ name: { type: 'string' }, n: { type: 'number' }, flag: {}, nothing: {}, empty: {} }));
  const input = { name: 'Caf\u00e9 \u2028 🚀', n: 1.5e-7, flag: false, nothing: null, empty: '', extra: { a: 1 }, 'we/ird~': 1 };
  const before = JSON.stringify(input);
  const r = strip(input);
  assert.equal(r.value, { name: 'Caf\u00e9 \u2028 🚀', n: 1.5e-7, flag: false, nothing: null, empty: '' });
  assert.equal(r.removed, ['/extra', '/we~1ird~0']);
  assert.equal(r.undecided, []);
  assert.is(JSON.stringify(input), before, 'input untouched');
  assert.equal(Object.keys(r.value as object), ['name', 'n', 'flag', 'nothing', 'empty'], 'key order kept');
});

test('nothing removed: the very same object comes back; open objects keep unknown fields', () => {
  const strip = strips({ type: 'object', properties: { a: obj({ x: {} }), open: { type: 'object', properties: { y: {} } } } });
  const input = { a: { x: 1 }, open: { y: 1, z: 2 }, top: 3 };
  const r = strip(input);
  assert.ok(r.value === input);
  assert.equal(r.removed, []);
  const r2 = strip({ a: { x: 1, q: 2 }, open: { z: 2 } });
  assert.equal(r2.value, { a: { x: 1 }, open: { z: 2 } });
  assert.equal(r2.removed, ['/a/q']);
});

test('allOf merges the members\u2019 known names: a name declared by a sibling member is never removed', () => {
  // Strict draft-07 rejects `b` here (additionalProperties in member 0 only sees member 0's properties); we keep it
  // — it is declared by the schema — and only strip what no member declares.
  const strip = strips({ allOf: [obj({ a: {} }), { properties: { b: {} } }] });
  const r = strip({ a: 1, b: 2, c: 3 });
  assert.equal(r.value, { a: 1, b: 2 });
  assert.equal(r.removed, ['/c']);
  const viaRef = strips({ definitions: { base: obj({ id: {} }) }, allOf: [{ $ref: '#/definitions/base' }], properties: { more: obj({ k: {} }) } });
  assert.equal(viaRef({ id: 1, more: { k: 1, j: 2 }, z: 1 }).value, { id: 1, more: { k: 1 } });
});

test('patternProperties names are known; pattern and additionalProperties schemas recurse', () => {
  const strip = strips({
    type: 'object',
    patternProperties: { '^x_': obj({ keep: {} }) },
    properties: { fixed: {} },
    additionalProperties: false,
  });
  const r = strip({ fixed: 1, x_one: { keep: 1, drop: 2 }, y: 3 });
  assert.equal(r.value, { fixed: 1, x_one: { keep: 1 } });
  assert.equal(r.removed, ['/x_one/drop', '/y']);
  const map = strips({ type: 'object', additionalProperties: obj({ v: {} }) });
  assert.equal(map({ k1: { v: 1, w: 2 }, k2: 'not an object' }).value, { k1: { v: 1 }, k2: 'not an object' });
});

test('items, draft-07 tuples and prefixItems recurse into arrays; arrays are copied only when changed', () => {
  const strip = strips({ type: 'object', properties: { list: { type: 'array', items: obj({ id: {} }) } } });
  const input = { list: [{ id: 1 }, { id: 2, x: 1 }, 'str', null] };
  const r = strip(input);
  assert.equal(r.value, { list: [{ id: 1 }, { id: 2 }, 'str', null] });
  assert.ok((r.value as typeof input).list[0] === input.list[0], 'unchanged elements shared');
  assert.equal(r.removed, ['/list/1/x']);
  const tuple = strips({ type: 'array', items: [obj({ a: {} }), obj({ b: {} })], additionalItems: obj({ c: {} }) });
  assert.equal(tuple([{ a: 1, z: 1 }, { b: 1, z: 1 }, { c: 1, z: 1 }, { c: 1, z: 1 }]).removed, ['/0/z', '/1/z', '/2/z', '/3/z']);
  const prefix = strips({ type: 'array', prefixItems: [obj({ a: {} })], items: obj({ c: {} }) });
  assert.equal(prefix([{ a: 1, c: 1 }, { a: 1, c: 1 }]).value, [{ a: 1 }, { c: 1 }]);
});

test('$ref resolves at build time, recursive schemas included', () => {
  const tree: JsonSchema = { $id: 'https://example.test/tree.json', definitions: { node: obj({ label: {}, children: { type: 'array', items: { $ref: '#/definitions/node' } } }) }, $ref: '#/definitions/node' };
  const strip = strips(tree);
  const r = strip({ label: 'root', children: [{ label: 'a', x: 1, children: [{ label: 'b', y: 2 }] }] });
  assert.equal(r.value, { label: 'root', children: [{ label: 'a', children: [{ label: 'b' }] }] });
  assert.equal(r.removed, ['/children/0/x', '/children/0/children/0/y']);
  assert.match(compileStripSource(tree), /function s_tree_node\(v, c, d\)/, 'one named function per definition');
  const byId = strips({
    $id: 'https://example.test/a.json',
    definitions: { n: obj({ a: {} }) },
    properties: { p: { $ref: 'a.json#/definitions/n' }, q: { $ref: 'https://example.test/a.json#/definitions/n' } },
  });
  assert.equal(byId({ p: { a: 1, b: 2 }, q: { b: 1 } }).removed, ['/p/b', '/q/b']);
  assert.throws(() => compileStrip({ properties: { x: { $ref: 'other.json' } } }), /pass a resolver/);
  for (const b of [true, false]) assert.equal(compileStrip(b)({ a: 1 }), { value: { a: 1 }, removed: [], undecided: [] });
});

test('oneOf: a const discriminator picks the branch; fields of other branches are unknown there', () => {
  const strip = strips({
    discriminator: { propertyName: 'kind' },
    oneOf: [obj({ kind: { const: 'video' }, duration: {} }, { required: ['kind'] }), obj({ kind: { const: 'image' }, width: {} }, { required: ['kind'] })],
  });
  assert.equal(strip({ kind: 'image', width: 3, extra: 1 }).value, { kind: 'image', width: 3 });
  assert.equal(strip({ kind: 'video', duration: 3, width: 1 }).removed, ['/width']);
  const r = strip({ kind: 'audio', duration: 1, extra: 1 });
  assert.equal(r.removed, [], 'a tag no branch admits decides nothing');
  assert.equal(r.undecided, ['']);
  // Three or more branches pinned to disjoint tags compile to one switch on the tag.
  const kinds = ['a', 'b', 'c', 'd'];
  const wide: JsonSchema = { discriminator: { propertyName: 't' }, oneOf: kinds.map((k) => obj({ t: { enum: [k, `${k}2`] }, [`f_${k}`]: {} }, { required: ['t'] })) };
  assert.match(compileStripSource(wide), /switch \(tag\)/);
  const w = strips(wide);
  assert.equal(w({ t: 'c2', f_c: 1, f_a: 1 }).removed, ['/f_a']);
  assert.equal(w({ t: 'zz', f_c: 1 }).undecided, ['']);
  assert.equal(w({ f_c: 1 }).undecided, [''], 'no tag: required fails everywhere');
});

test('objects with many declared names look names up once, same semantics', () => {
  const names = Array.from({ length: 40 }, (_, i) => `n${i}`);
  const strip = strips(obj(Object.fromEntries(names.map((n, i) => [n, i % 2 === 0 ? obj({ x: {} }) : {}]))));
  assert.match(compileStripSource(obj(Object.fromEntries(names.map((n) => [n, {}])))), /new Map/);
  const r = strip({ n0: { x: 1, y: 2 }, n1: 1, n39: 2, other: 3 });
  assert.equal(r.value, { n0: { x: 1 }, n1: 1, n39: 2 });
  assert.equal(r.removed, ['/n0/y', '/other']);
});

test('unions decided by required, by type, by nested const, by not-required, then by declared names', () => {
  const byRequired = strips({ oneOf: [obj({ a: {}, common: {} }, { required: ['a'] }), obj({ b: {}, common: {} }, { required: ['b'] })] });
  assert.equal(byRequired({ b: 1, common: 1, z: 1 }).value, { b: 1, common: 1 });
  const byType = strips({ type: 'object', properties: { v: { anyOf: [{ type: 'string' }, { type: 'array', items: obj({ id: {} }) }, obj({ one: {} })] } } });
  assert.equal(byType({ v: [{ id: 1, z: 1 }] }).value, { v: [{ id: 1 }] });
  assert.equal(byType({ v: { one: 1, z: 1 } }).value, { v: { one: 1 } });
  assert.equal(byType({ v: 'text' }).value, { v: 'text' });
  const nested = strips({
    type: 'object',
    properties: { mode: obj({ kind: {} }), packages: {}, proposal_id: {} },
    anyOf: [
      { properties: { mode: { properties: { kind: { const: 'fixed' } } }, packages: { type: 'array', items: obj({ budget: {} }) } } },
      { properties: { mode: { properties: { kind: { const: 'auto' } } } }, required: ['packages'] },
      { required: ['proposal_id'], not: { anyOf: [{ required: ['packages'] }, { required: ['mode'] }] } },
    ],
  });
  assert.equal(nested({ mode: { kind: 'fixed' }, packages: [{ budget: 1, z: 1 }] }).value, { mode: { kind: 'fixed' }, packages: [{ budget: 1 }] });
  assert.equal(nested({ mode: { kind: 'auto' }, packages: [{ budget: 1, z: 1 }] }).removed, [], 'the auto branch does not close packages');
  const byNames = strips({ oneOf: [obj({ a: {}, shared: {} }), obj({ b: {}, shared: {} })] });
  assert.equal(byNames({ b: 1, shared: 1, z: 1 }).value, { b: 1, shared: 1 });
  const r = byNames({ shared: 1, z: 1 });
  assert.equal(r.value, { shared: 1, z: 1 }, 'no evidence: nothing stripped');
  assert.equal(r.undecided, ['']);
});

test('a union whose branches add nothing to stripping needs no decision', () => {
  const strip = strips({ ...(obj({ a: {}, b: {} }) as object), oneOf: [{ required: ['a'] }, { required: ['b'] }] });
  const r = strip({ a: 1, b: 2, c: 3 });
  assert.equal(r.value, { a: 1, b: 2 });
  assert.equal(r.undecided, []);
});

test('if/then/else strips by the branch the condition selects; dependencies apply when their property is present', () => {
  const strip = strips({
    type: 'object',
    properties: { type: {}, params: {} },
    additionalProperties: false,
    if: { properties: { type: { const: 'a' } }, required: ['type'] },
    then: { properties: { params: obj({ alpha: {} }) } },
    else: { properties: { params: obj({ beta: {} }) } },
  });
  assert.equal(strip({ type: 'a', params: { alpha: 1, beta: 2 } }).value, { type: 'a', params: { alpha: 1 } });
  assert.equal(strip({ type: 'b', params: { alpha: 1, beta: 2 } }).value, { type: 'b', params: { beta: 2 } });
  const opaque = strips({ type: 'object', if: { minProperties: 2 }, then: obj({ q: {} }) });
  assert.equal(opaque({ q: 1, z: 2 }).undecided, [''], 'an if we cannot evaluate is reported, not guessed');
  const deps = strips({ type: 'object', properties: { card: {}, billing: {} }, dependencies: { card: { properties: { billing: obj({ zip: {} }) } } } });
  assert.equal(deps({ card: 1, billing: { zip: 1, x: 1 } }).value, { card: 1, billing: { zip: 1 } });
  assert.equal(deps({ billing: { zip: 1, x: 1 } }).removed, []);
});

test('if conditions: type, const, enum, required, nested properties, pattern, contains, allOf/anyOf/oneOf, not, $ref', () => {
  const cond: JsonSchema = {
    allOf: [
      { $ref: '#/definitions/isVideo' },
      { properties: { meta: { type: 'object', properties: { lang: { pattern: '^en' } } } } },
      { anyOf: [{ required: ['tracks'] }, { not: { required: ['muted'] } }] },
      { oneOf: [{ properties: { tracks: { contains: { enum: ['main', 'alt'] } } } }, { required: ['never'] }] },
    ],
  };
  const strip = strips({
    definitions: { isVideo: { properties: { kind: { const: 'video' } }, required: ['kind'] } },
    type: 'object',
    properties: { kind: {}, meta: {}, tracks: {}, muted: {}, never: {}, body: {} },
    additionalProperties: false,
    if: cond,
    then: { properties: { body: obj({ video: {} }) } },
    else: { properties: { body: obj({ other: {} }) } },
  });
  const body = { video: 1, other: 2 };
  const thenCase = { kind: 'video', meta: { lang: 'en-GB' }, tracks: ['x', 'alt'], body };
  assert.equal(strip(thenCase).value, { ...thenCase, body: { video: 1 } });
  for (const elseCase of [
    { kind: 'image', body },
    { kind: 'video', meta: { lang: 'fr' }, body },
    { kind: 'video', muted: true, body },
    { kind: 'video', tracks: ['x'], body },
    { kind: 'video', tracks: ['main'], never: 1, body },
  ]) {
    assert.equal((strip(elseCase).value as { body: unknown }).body, { other: 2 }, JSON.stringify(elseCase));
  }
});

test('non-object values where objects are expected come back unchanged', () => {
  const strip = strips(obj({ a: obj({ b: {} }), list: { type: 'array', items: obj({ c: {} }) } }));
  for (const v of ['text', 42, null, true, [1, 2], undefined]) assert.ok(strip(v).value === v);
  const r = strip({ a: 'not an object', list: { not: 'an array' } });
  assert.equal(r.value, { a: 'not an object', list: { not: 'an array' } });
});

// ── bad input ─────────────────────────────────────────────────────────────────────────────────────────────────

test('hostile keys: no prototype pollution, own properties only, __proto__ kept as data where declared', () => {
  const strip = strips(obj({ safe: {}, inner: obj({ x: {} }) }));
  const payload = JSON.parse('{"safe":1,"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":1,"inner":{"x":1,"__proto__":{"polluted":true}}}') as unknown;
  const r = strip(payload);
  assert.equal(r.removed, ['/__proto__', '/constructor', '/prototype', '/inner/__proto__']);
  assert.equal(JSON.stringify(r.value), '{"safe":1,"inner":{"x":1}}');
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  assert.is(Object.getPrototypeOf(r.value), Object.prototype);
  const declared = strips(
    JSON.parse('{"type":"object","additionalProperties":false,"properties":{"__proto__":{"properties":{"ok":{}},"additionalProperties":false},"constructor":{},"quote\\"d":{},"end */ comment":{},"line\\u2028sep":{}}}') as JsonSchema,
  );
  const input = JSON.parse('{"__proto__":{"ok":1,"bad":2},"constructor":"c","quote\\"d":1,"end */ comment":1,"line\\u2028sep":1,"x":1}') as unknown;
  const r2 = declared(input);
  assert.equal(r2.removed, ['/__proto__/bad', '/x']);
  const out = r2.value as Record<string, unknown>;
  assert.ok(Object.prototype.hasOwnProperty.call(out, '__proto__'), '__proto__ is an own data property of the copy');
  assert.is(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(JSON.parse(JSON.stringify(out)), JSON.parse('{"__proto__":{"ok":1},"constructor":"c","quote\\"d":1,"end */ comment":1,"line\\u2028sep":1}'));
  // Inherited enumerable names are not data.
  const proto = { inherited: 1 };
  const child = Object.create(proto) as Record<string, unknown>;
  child.safe = 1;
  assert.equal(strip(child).removed, []);
});

test('deep nesting: a clean RangeError naming the place, never a stack overflow', () => {
  const strip = strips({ $id: 'https://example.test/deep.json', ...(obj({ next: { $ref: '#' }, v: {} }) as object) });
  let deep: Record<string, unknown> = { v: 1 };
  for (let i = 0; i < 100_000; i++) deep = { next: deep };
  try {
    compileStrip({ $id: 'https://example.test/deep.json', ...(obj({ next: { $ref: '#' } }) as object) })(deep);
    assert.unreachable('should throw');
  } catch (e) {
    assert.instance(e, RangeError);
    assert.match((e as Error).message, /nests deeper than 256 levels at \/next\/next/);
  }
  let ok: Record<string, unknown> = { v: 1, drop: 1 };
  for (let i = 0; i < 200; i++) ok = { next: ok };
  const r = strip(ok);
  assert.is(r.removed.length, 1);
  // Depth under an open, unstripped part costs nothing and never throws.
  const shallow = strips(obj({ blob: {} }));
  assert.ok(shallow({ blob: deep }).value !== undefined);
});

test('huge arrays: linear, shared when unchanged', () => {
  const strip = compileStrip({ type: 'array', items: obj({ id: {} }) });
  const big = Array.from({ length: 300_000 }, (_, i) => ({ id: i }));
  assert.ok(strip(big).value === big);
  big[123_456] = { id: 1, x: 2 } as { id: number };
  const r = strip(big);
  assert.equal(r.removed, ['/123456/x']);
  assert.is((r.value as unknown[]).length, 300_000);
});

test('driftIssues: one additionalProperties issue per removed field, pointing at it and naming it', () => {
  const strip = compileStrip(obj({ a: obj({ b: {} }) }));
  const issues = driftIssues(strip({ a: { b: 1, 'x/y': 1 }, top: 1 }).removed);
  assert.equal(
    issues.map((i) => [i.pointer, i.keyword, i.additionalProperty]),
    [
      ['/a/x~1y', 'additionalProperties', 'x/y'],
      ['/top', 'additionalProperties', 'top'],
    ],
  );
  assert.match(issues[0]!.message, /"x\/y"/);
  assert.equal(driftIssues(({ value: {}, removed: [], undecided: [''] } satisfies StripResult).removed), []);
});

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
    { schema: {}, value: fc.jsonValue({ maxDepth: 2 }) },
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

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
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

// ── the 3.0.6 release from @adcp/sdk, through the emitted modules ─────────────────────────────────────────────

const release: Release = loadRelease(sdkReleaseDir());
const emitted = compileStripModules(release);

/** Description texts of a schema (long enough to be unmistakable in generated code). */
function descriptions(schema: unknown, out: string[] = []): string[] {
  if (Array.isArray(schema)) schema.forEach((x) => descriptions(x, out));
  else if (isObj(schema)) {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'description' && typeof v === 'string' && v.length > 30) out.push(v.slice(0, 30));
      else descriptions(v, out);
    }
  }
  return out;
}

function writeModules(files: ReturnType<typeof compileStripModules>): string {
  const out = tempDir('adcp-strip-');
  writeEmitted(out, files);
  return out;
}

test('3.0.6: one strip module per available tool, shared modules content-addressed, deterministic, self-contained', () => {
  const tools = [...release.tools.keys()].filter((t) => !release.unavailable.has(t));
  for (const t of tools) assert.ok(emitted.some((f) => f.path === `releases/3.0/strip/${t}.cjs`), t);
  for (const t of release.unavailable.keys()) assert.not.ok(emitted.some((f) => f.path === `releases/3.0/strip/${t}.cjs`), t);
  for (const f of emitted) {
    if (f.path.includes('/_shared/')) assert.ok(f.path.endsWith(`.${shortHash(sha256(f.contents))}.cjs`), `${f.path} named by its content`);
    for (const [, spec] of f.contents.matchAll(/require\("([^"]*)"\)/g)) assert.ok(spec!.startsWith('./'), `${f.path} requires only relative paths`);
    for (const i of f.inputs) {
      const file = [...release.schemas.byPath.values()].find((x) => `adcp-3.0.6:${x.path}` === i.name)!;
      for (const text of descriptions(file.schema)) assert.not.ok(f.contents.includes(text), `${f.path}: no schema text embedded (${text})`);
    }
    for (const i of f.inputs) assert.match(i.name, /^adcp-3\.0\.6:/);
  }
  assert.equal(compileStripModules(release).map((f) => [f.path, f.contents]), emitted.map((f) => [f.path, f.contents]), 'deterministic');
  const one = compileStripModules(release, ['create_media_buy']);
  const all = new Map(emitted.map((f) => [f.path, f.contents]));
  for (const f of one) assert.is(all.get(f.path), f.contents, `${f.path}: the same module whatever the tool selection`);
  assert.ok(one.length < emitted.length);
  const cmb = one.find((f) => f.path === 'releases/3.0/strip/create_media_buy.cjs')!;
  assert.ok(cmb.inputs.some((i) => i.name === 'adcp-3.0.6:media-buy/create-media-buy-request.json'));
});

test('3.0.6: shared modules packed into few files that require each other without a cycle; create_media_buy\'s strip reaches at most five', () => {
  const packs = new Map(emitted.filter((f) => f.path.startsWith('releases/3.0/strip/_shared/')).map((f) => [f.path.slice('releases/3.0/strip/_shared/'.length), f.contents]));
  // A pack names the packs it requires in its `elsewhere` table; a tool module requires packs directly.
  const requires = (text: string): string[] => [...text.matchAll(/: "\.\/([^"]+\.cjs)",$/gm), ...text.matchAll(/require\("\.\/_shared\/([^"]+)"\)/g)].map((m) => m[1]!);
  const state = new Map<string, 'open' | 'done'>();
  const visit = (name: string, path: string[]): void => {
    assert.ok(packs.has(name), `${name} is a pack`);
    assert.not.equal(state.get(name), 'open', `a cycle of packs: ${[...path, name].join(' → ')}`);
    if (state.get(name) === 'done') return;
    state.set(name, 'open');
    for (const d of requires(packs.get(name)!)) visit(d, [...path, name]);
    state.set(name, 'done');
  };
  for (const name of [...packs.keys()].sort()) visit(name, []);
  // Exact tool sets alone gave 57 packs here (and 10 files for the first create_media_buy strip): merged, far fewer.
  assert.ok(packs.size <= 15, `${packs.size} packs`);
  const cmb = emitted.find((f) => f.path === 'releases/3.0/strip/create_media_buy.cjs')!.contents;
  const closure = new Set<string>();
  const stack = requires(cmb);
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (!closure.has(n)) closure.add(n), stack.push(...requires(packs.get(n)!));
  }
  assert.ok(closure.size >= 1 && closure.size <= 5, `${closure.size} packs for create_media_buy: ${[...closure].join(', ')}`);
});

test('3.0.6: a strip module requires what it calls into on first call: a value without the field never loads that pack', () => {
  const dir = writeModules(emitted);
  const shared = join(dir, 'releases/3.0/strip/_shared/');
  const loadedPacks = (): string[] => Object.keys(requireCjs.cache).filter((k) => k.startsWith(shared)).sort();
  const strip = (requireCjs(join(dir, 'releases/3.0/strip/create_media_buy.cjs')) as StripModule).strip;
  const atLoad = loadedPacks();
  assert.ok(strip(createMediaBuyRequest()).removed.length === 0);
  const minimal = loadedPacks();
  // Every declared field of the request and of a package present, as an object and as an array of one.
  const names = (path: string): string[] => Object.keys([...release.schemas.byPath.values()].find((f) => f.path === path)!.schema.properties as object);
  const every = (shape: () => unknown, packages: unknown[]): Record<string, unknown> => ({ ...Object.fromEntries(names('media-buy/create-media-buy-request.json').map((k) => [k, shape()])), packages });
  const pkg = (shape: () => unknown): Record<string, unknown> => Object.fromEntries(names('media-buy/package-request.json').map((k) => [k, shape()]));
  strip(every(() => ({}), [pkg(() => ({})), pkg(() => [{}])]));
  strip(every(() => [{}], [pkg(() => ({})), pkg(() => [{}])]));
  const full = loadedPacks();
  for (const p of [...atLoad, ...minimal]) assert.ok(full.includes(p), p);
  assert.ok(atLoad.length <= minimal.length && minimal.length < full.length, `packs loaded: ${atLoad.length} at load, ${minimal.length} after a minimal request, ${full.length} after the examples`);
});

test('3.0.6: schema examples survive injected unknown fields through the emitted modules, like compileStrip and the interpreter', () => {
  const dir = writeModules(emitted);
  const ajv = releaseAjv(release);
  let checked = 0;
  for (const tool of release.tools.values()) {
    if (release.unavailable.has(tool.name)) continue;
    const file = release.schemas.byPath.get(tool.requestSchema)!;
    const examples = Array.isArray(file.schema.examples) ? (file.schema.examples as { data?: unknown }[]) : [];
    if (examples.length === 0) continue;
    const validate = ajv.getSchema(file.id)!;
    const moduleStrip = (requireCjs(join(dir, `releases/3.0/strip/${tool.name}.cjs`)) as StripModule).strip;
    const memory = compileStrip(file.schema, { resolve: release.schemas.resolve });
    const walk = interpretStrip(file.schema, { resolve: release.schemas.resolve });
    for (const ex of examples) {
      if (!validate(ex.data)) continue;
      assert.ok(moduleStrip(ex.data).value === ex.data);
      // An unknown field in every object where, alone, it makes validation fail.
      const places = objectPlaces(ex.data).filter((p) => !validate(injectAt(ex.data, [p])));
      const injected = injectAt(ex.data, places);
      places.forEach((p, i) => (places[i] = `${p}/futureField`));
      const r = moduleStrip(injected);
      assert.equal(r.value, ex.data, `${tool.name}: ${JSON.stringify(r)}`);
      assert.equal([...r.removed].sort(), places.sort());
      assert.ok(validate(r.value));
      assert.equal(memory(injected), r);
      assert.equal(walk(injected), r);
      checked++;
    }
  }
  assert.ok(checked >= 15, `${checked} examples checked`);
});

function objectPlaces(value: unknown, pointer = '', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => objectPlaces(v, `${pointer}/${i}`, out));
  else if (isObj(value)) {
    out.push(pointer);
    for (const k of Object.keys(value)) objectPlaces(value[k], `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
  return out;
}

function injectAt(value: unknown, places: readonly string[]): unknown {
  const copy = structuredClone(value);
  for (const p of places) {
    let node = copy as Record<string, unknown>;
    for (const t of p === '' ? [] : p.slice(1).split('/')) node = node[t.replace(/~1/g, '/').replace(/~0/g, '~')] as Record<string, unknown>;
    node.futureField = { v: 1 };
  }
  return copy;
}

test('compileStrip: no schema text in the generated code beyond names and consts', () => {
  const file = release.schemas.byPath.get(release.tools.get('create_media_buy')!.requestSchema)!;
  const source = compileStripSource(file.schema, { resolve: release.schemas.resolve });
  for (const text of descriptions(file.schema)) assert.not.ok(source.includes(text), text);
  assert.match(source, /function s_create_media_buy_request\(v, c, d\)/);
});

test.run();

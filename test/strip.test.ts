import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileStrip, compileStripSource } from '../generator/compile/index.js';
import type { JsonSchema } from '../generator/load/index.js';
import type { StripResult } from '../runtime/artifacts/contract.js';
import { driftIssues } from '../runtime/issues/drift.js';
import { obj, strips } from './helpers/strips.js';

/** Deep-strip (docs/strip.md) on fixture schemas: compiled and interpreted strips run together and must agree. */

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

test.run();

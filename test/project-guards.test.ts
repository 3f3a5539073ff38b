import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { releasePathOfId } from '../generator/project/index.js';
import type { JsonObject } from '../generator/load/index.js';
import { AUCTION, GUARANTEED, at, bundle, deepFreeze, pricing, project, type Obj } from './helpers/projection.js';

/** Projection: the names that protect a property, closed objects, traversal, purity and accepted records. */

// --- projection: guards -------------------------------------------------------------------------------------------

const requiredGuards: [string, Obj][] = [
  ['required', { required: ['floor_price'] }],
  ['an allOf arm', { allOf: [{ required: ['floor_price'] }] }],
  ['an anyOf arm', { anyOf: [{ required: ['currency'] }, { required: ['floor_price'] }] }],
  ['a oneOf arm', { oneOf: [{ required: ['floor_price'] }, { not: { required: ['floor_price'] } }] }],
  ['if (names only in if included)', { if: { required: ['floor_price'] }, then: { required: ['currency'] } }],
  ['then', { if: { required: ['currency'] }, then: { required: ['floor_price'] } }],
  ['else', { if: { required: ['currency'] }, else: { required: ['floor_price'] } }],
  ['an if nested in an allOf arm', { allOf: [{ if: { anyOf: [{ required: ['floor_price'] }] }, then: {} }] }],
  ['a oneOf arm inside an anyOf arm', { anyOf: [{ oneOf: [{ allOf: [{ required: ['floor_price'] }] }] }] }],
  ['draft-07 dependencies, array form (dependent)', { dependencies: { currency: ['floor_price'] } }],
  ['draft-07 dependencies, array form (trigger)', { dependencies: { floor_price: ['currency'] } }],
  ['draft-07 dependencies, schema form', { dependencies: { currency: { required: ['floor_price'] } } }],
  ['draft-07 dependencies, schema form (trigger)', { dependencies: { floor_price: { properties: {} } } }],
  ['dependentRequired (dependent)', { dependentRequired: { currency: ['floor_price'] } }],
  ['dependentRequired (trigger)', { dependentRequired: { floor_price: ['currency'] } }],
  ['dependentSchemas', { dependentSchemas: { currency: { allOf: [{ required: ['floor_price'] }] } } }],
  ['dependentSchemas (trigger)', { dependentSchemas: { floor_price: {} } }],
];

for (const [where, extra] of requiredGuards) {
  test(`never dropped: a name required in ${where}`, () => {
    const doc = deepFreeze({ $defs: { 'external:pricing-options/cpm-option.json': pricing(extra) } });
    assert.is(project(doc) === doc, true);
  });
}

test('a name required only under not, or in a nested object, or by another property, does not protect', () => {
  for (const extra of [
    { not: { required: ['floor_price'] } },
    { properties: { currency: { type: 'object', required: ['floor_price'] } } },
    { required: ['currency'], allOf: [{ properties: { nested: { required: ['floor_price'] } } }] },
  ]) {
    const base = pricing();
    const doc = { ...base, ...extra, properties: { ...(base.properties as Obj), ...((extra as Obj).properties as Obj) } };
    const out = project(doc);
    assert.not.ok(Object.prototype.hasOwnProperty.call(out.properties, 'floor_price'), JSON.stringify(extra));
  }
});

test('a property defined in a combinator arm is protected by the names its enclosing schema requires', () => {
  const arm = pricing();
  const doc = deepFreeze({ type: 'object', required: ['floor_price'], allOf: [arm] });
  assert.is(project(doc) === doc, true);
  const sibling = deepFreeze({ type: 'object', oneOf: [arm, { required: ['floor_price'] }] });
  assert.is(project(sibling) === sibling, true);
  const unprotected = { type: 'object', required: ['currency'], allOf: [arm] };
  assert.not.ok('floor_price' in (at(project(unprotected), 'allOf|0|properties') as Obj));
});

test('nothing is dropped from a closed object', () => {
  for (const closed of [{ additionalProperties: false }, { unevaluatedProperties: false }]) {
    const doc = deepFreeze({ $defs: { 'external:core/canonical-pricing-option.json': pricing(closed) } });
    assert.is(project(doc) === doc, true, JSON.stringify(closed));
  }
  // unevaluatedProperties: false sees the properties of its in-place arms, so they are closed in too
  const viaArm = deepFreeze({ type: 'object', unevaluatedProperties: false, allOf: [pricing()] });
  assert.is(project(viaArm) === viaArm, true);
  // open objects (true, a schema, absent) do drop
  for (const open of [{ additionalProperties: true }, { additionalProperties: { type: 'string' } }, { unevaluatedProperties: {} }, {}]) {
    assert.not.ok('floor_price' in (project(pricing(open)).properties as Obj), JSON.stringify(open));
  }
  // closedness does not leak into nested objects
  const nested = { type: 'object', additionalProperties: false, properties: { option: pricing() } };
  assert.not.ok('floor_price' in (at(project(nested), 'properties|option|properties') as Obj));
});

// --- projection: traversal ----------------------------------------------------------------------------------------

const traversal: [string, (s: Obj) => Obj, string][] = [
  ['properties', (s) => ({ type: 'object', properties: { option: s } }), 'properties|option'],
  ['items (schema)', (s) => ({ type: 'array', items: s }), 'items'],
  ['items (array, draft-07)', (s) => ({ type: 'array', items: [{}, s] }), 'items|1'],
  ['prefixItems', (s) => ({ type: 'array', prefixItems: [s] }), 'prefixItems|0'],
  ['additionalItems', (s) => ({ type: 'array', items: [{}], additionalItems: s }), 'additionalItems'],
  ['contains', (s) => ({ type: 'array', contains: s }), 'contains'],
  ['unevaluatedItems', (s) => ({ type: 'array', unevaluatedItems: s }), 'unevaluatedItems'],
  ['additionalProperties', (s) => ({ type: 'object', additionalProperties: s }), 'additionalProperties'],
  ['patternProperties', (s) => ({ type: 'object', patternProperties: { '^x-': s } }), 'patternProperties|^x-'],
  ['unevaluatedProperties', (s) => ({ type: 'object', unevaluatedProperties: s }), 'unevaluatedProperties'],
  ['propertyNames', (s) => ({ type: 'object', propertyNames: s }), 'propertyNames'],
  ['allOf', (s) => ({ allOf: [{}, s] }), 'allOf|1'],
  ['anyOf', (s) => ({ anyOf: [s] }), 'anyOf|0'],
  ['oneOf', (s) => ({ oneOf: [{ required: ['currency'] }, s] }), 'oneOf|1'],
  ['not', (s) => ({ not: s }), 'not'],
  ['if', (s) => ({ if: s }), 'if'],
  ['then', (s) => ({ if: {}, then: s }), 'then'],
  ['else', (s) => ({ if: {}, else: s }), 'else'],
  ['dependentSchemas', (s) => ({ dependentSchemas: { currency: s } }), 'dependentSchemas|currency'],
  ['dependencies (schema form)', (s) => ({ dependencies: { currency: s, other: ['currency'] } }), 'dependencies|currency'],
  ['$defs', (s) => ({ $defs: { 'external:pricing-options/cpm-option.json': s } }), '$defs|external:pricing-options/cpm-option.json'],
  ['definitions', (s) => ({ definitions: { CpmOption: s } }), 'definitions|CpmOption'],
  ['a $defs entry holding its own $defs', (s) => ({ $defs: { 'external:a.json': { $defs: { inner: s } } } }), '$defs|external:a.json|$defs|inner'],
];

for (const [keyword, wrap, path] of traversal) {
  test(`traversal reaches ${keyword}`, () => {
    const doc = deepFreeze(wrap(pricing()));
    const out = project(doc);
    assert.equal(Object.keys(at(out, path).properties as Obj), ['currency'], keyword);
    assert.equal(Object.keys(at(doc, path).properties as Obj), ['currency', 'floor_price']);
  });
}

test('$refs are not dereferenced: the ref stays, the definition is projected where it lives', () => {
  const doc = bundle();
  const out = project(doc);
  assert.equal(at(out, '$defs|external:core/pricing-option.json'), at(doc, '$defs|external:core/pricing-option.json'));
  assert.is(at(out, '$defs|external:core/pricing-option.json') === at(doc, '$defs|external:core/pricing-option.json'), true);
  assert.is(at(out, 'properties') === at(doc, 'properties'), true);
  assert.equal(at(out, '$defs|external:pricing-options/cpm-option.json|properties').price_guidance, undefined);
  // A $ref sibling of `properties` is left alone too.
  const withRef = { $ref: '#/$defs/base', properties: { floor_price: { 'x-adcp-applies-when': AUCTION } }, $defs: { base: { required: ['floor_price'] } } };
  assert.equal(project(withRef).$ref, '#/$defs/base');
});

test('const, default, enum, examples and x-* values are data, never projected', () => {
  const lookalike = pricing();
  const doc = deepFreeze({
    type: 'object',
    const: lookalike,
    default: lookalike,
    enum: [lookalike],
    examples: [lookalike],
    'x-extension': { properties: lookalike.properties },
    properties: { config: { type: 'object', default: { properties: lookalike.properties } } },
  });
  assert.is(project(doc) === doc, true);
});

// --- purity -------------------------------------------------------------------------------------------------------

test('pure: a deep-frozen input projects without a write (ESM is strict mode) and is left as it was', () => {
  const doc = deepFreeze(bundle());
  const before = JSON.stringify(doc);
  const out = project(doc);
  assert.is(JSON.stringify(doc), before);
  assert.is.not(out, doc);
  // unchanged subtrees are shared, changed ones are new objects
  assert.is(at(out, '$defs|external:pricing-options/price-guidance.json') === at(doc, '$defs|external:pricing-options/price-guidance.json'), true);
  assert.is(at(out, '$defs|external:pricing-options/cpm-option.json|properties|currency') === at(doc, '$defs|external:pricing-options/cpm-option.json|properties|currency'), true);
  assert.is(at(out, '$defs|external:pricing-options/cpm-option.json|required') === at(doc, '$defs|external:pricing-options/cpm-option.json|required'), true);
  assert.is.not(at(out, '$defs|external:pricing-options/cpm-option.json'), at(doc, '$defs|external:pricing-options/cpm-option.json'));
  // projecting the output again is a no-op
  assert.is(project(out) === out, true);
});

test('with no annotations, or none that drop, the output is the input itself', () => {
  const plain = deepFreeze({ type: 'object', properties: { a: { type: 'string' } }, $defs: { 'external:x.json': { allOf: [{ properties: { b: {} } }] } } });
  assert.is(project(plain) === plain, true);
  assert.is(project(true) as unknown, true);
  assert.is(project(false) as unknown, false);
  const satisfied = deepFreeze(bundle());
  const everything: JsonObject = { media_buy: { supported_delivery_types: ['non_guaranteed'], execution: { trusted_match: {} } } };
  assert.is(project(satisfied, everything) === satisfied, true);
});

// --- accepted records ---------------------------------------------------------------------------------------------

test('a schema marked x-adcp-accepted-record: true is not projected', () => {
  const record = pricing({ 'x-adcp-accepted-record': true });
  const doc = deepFreeze({ type: 'object', properties: { snapshot: record, live: pricing() } });
  const out = project(doc);
  assert.is(at(out, 'properties|snapshot') === record, true);
  assert.equal(Object.keys(at(out, 'properties|live|properties')), ['currency']);
  // only `true` marks a record
  const notReally = project({ type: 'object', properties: { snapshot: pricing({ 'x-adcp-accepted-record': 'true' }) } });
  assert.equal(Object.keys(at(notReally, 'properties|snapshot|properties')), ['currency']);
});

test('acceptedRecords: tool names, $ids and release-relative paths', () => {
  const doc = deepFreeze(bundle());
  assert.is(project(doc, GUARANTEED, { acceptedRecords: ['get_products'], tool: 'get_products' }) === doc, true);
  assert.is(project(doc, GUARANTEED, { acceptedRecords: ['get_products'], tool: 'list_products' }) === doc, false);
  assert.is(project(doc, GUARANTEED, { acceptedRecords: ['media-buy/get-products-response.json'], rootPath: 'media-buy/get-products-response.json' }) === doc, true);
  // the root's own $id, MCP or canonical, names its release-relative path
  assert.is(project(doc, GUARANTEED, { acceptedRecords: ['media-buy/get-products-response.json'] }) === doc, true);
  // a path matches the bundle's $defs["external:<path>"] entry
  const out = project(doc, GUARANTEED, { acceptedRecords: ['pricing-options/cpm-option.json'] });
  assert.is(at(out, '$defs|external:pricing-options/cpm-option.json') === at(doc, '$defs|external:pricing-options/cpm-option.json'), true);
  assert.equal(Object.keys(at(out, '$defs|external:pricing-options/flat-rate-option.json|properties')), ['pricing_model']);
  // $id forms, rooted (3.0) and absolute (3.2), by id or by path
  const rooted = deepFreeze({ $id: '/schemas/3.0.6/core/media-buy.json', ...pricing() });
  const absolute = deepFreeze({ $id: 'https://adcontextprotocol.org/schemas/3.2.0-beta.5/core/media-buy.json', ...pricing() });
  for (const schema of [rooted, absolute]) {
    assert.is(project(schema, GUARANTEED, { acceptedRecords: ['core/media-buy.json'] }) === schema, true);
    assert.is(project(schema, GUARANTEED, { acceptedRecords: [schema.$id as string] }) === schema, true);
    assert.is(project(schema, GUARANTEED, { acceptedRecords: ['core/product.json'] }) === schema, false);
  }
});

test('releasePathOfId strips the version (and MCP projection) prefix', () => {
  assert.is(releasePathOfId('/schemas/3.0.6/pricing-options/cpm-option.json'), 'pricing-options/cpm-option.json');
  assert.is(releasePathOfId('https://adcontextprotocol.org/schemas/3.2.0-beta.5/core/product.json'), 'core/product.json');
  assert.is(releasePathOfId('https://adcontextprotocol.org/schemas/3.2.0-beta.5/mcp/2026-07-28/media-buy/get-products-request.json'), 'media-buy/get-products-request.json');
  assert.is(releasePathOfId('https://example.com/other.json'), undefined);
});

test.run();

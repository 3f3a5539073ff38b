import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appliesWhenSatisfied } from '../generator/project/index.js';
import type { JsonObject } from '../generator/load/index.js';
import { AUCTION, GUARANTEED, NON_GUARANTEED, at, bundle, project, type Obj } from './helpers/projection.js';

/** x-adcp-applies-when: when an annotation applies to an agent's capabilities, and what projection drops (fixtures: helpers/projection.ts). */

// --- appliesWhenSatisfied ------------------------------------------------------------------------------------------

test('delivery_types match media_buy.supported_delivery_types', () => {
  assert.is(appliesWhenSatisfied(AUCTION, NON_GUARANTEED), true);
  assert.is(appliesWhenSatisfied(AUCTION, GUARANTEED), false);
  assert.is(appliesWhenSatisfied({ delivery_types: ['guaranteed', 'non_guaranteed'] }, GUARANTEED), true);
});

test('pricing_models match media_buy.supported_pricing_models', () => {
  const caps: JsonObject = { media_buy: { supported_pricing_models: ['cpm', 'flat_rate'] } };
  assert.is(appliesWhenSatisfied({ pricing_models: ['cpm'] }, caps), true);
  assert.is(appliesWhenSatisfied({ pricing_models: ['cpcv', 'vcpm'] }, caps), false);
  // pricing_models never look at delivery types, nor the reverse
  assert.is(appliesWhenSatisfied({ pricing_models: ['cpc'] }, { media_buy: { supported_delivery_types: ['guaranteed'], supported_pricing_models: ['cpm'] } }), false);
});

test('an undeclared or empty list on the agent side matches', () => {
  assert.is(appliesWhenSatisfied(AUCTION, { media_buy: {} }), true);
  assert.is(appliesWhenSatisfied(AUCTION, { media_buy: { supported_delivery_types: [] } }), true);
  assert.is(appliesWhenSatisfied({ pricing_models: ['cpc'] }, { media_buy: { supported_delivery_types: ['guaranteed'] } }), true);
  assert.is(appliesWhenSatisfied({ pricing_models: ['cpc'] }, { media_buy: { supported_pricing_models: [] } }), true);
});

test('a key whose root block the agent does not publish matches (no media_buy on a governance agent)', () => {
  const governance: JsonObject = { adcp: { major_versions: [3] }, supported_protocols: ['governance'], governance: {} };
  assert.is(appliesWhenSatisfied(AUCTION, governance), true);
  assert.is(appliesWhenSatisfied({ pricing_models: ['cpm'] }, governance), true);
  assert.is(appliesWhenSatisfied({ capabilities: ['media_buy.execution.trusted_match'] }, governance), true);
  assert.is(appliesWhenSatisfied({ capabilities: ['signals.features.catalog_signals'] }, governance), true);
  // … but a published root block is judged on the path
  assert.is(appliesWhenSatisfied({ capabilities: ['governance.property_features'] }, governance), false);
});

test('capabilities: a dotted path matches when present, not null and not false; absent does not match', () => {
  const caps: JsonObject = {
    media_buy: {
      execution: { trusted_match: { surfaces: [] } },
      conversion_tracking: null,
      audience_targeting: false,
      reporting_delivery_methods: [],
      zero: 0,
      empty: '',
    },
  };
  const yes = (path: string): boolean => appliesWhenSatisfied({ capabilities: [path] }, caps);
  assert.is(yes('media_buy.execution.trusted_match'), true);
  assert.is(yes('media_buy.execution.trusted_match.surfaces'), true);
  assert.is(yes('media_buy.reporting_delivery_methods'), true); // an empty list is present
  assert.is(yes('media_buy.zero'), true);
  assert.is(yes('media_buy.empty'), true);
  assert.is(yes('media_buy.conversion_tracking'), false); // null
  assert.is(yes('media_buy.audience_targeting'), false); // false
  assert.is(yes('media_buy.vendor_metric_optimization'), false); // absent
  assert.is(yes('media_buy.execution.axe_integrations'), false);
  assert.is(yes('media_buy.execution.trusted_match.surfaces.length'), false); // arrays are not walked into
  assert.is(yes('media_buy.constructor'), false); // own properties only
  assert.is(yes('media_buy.execution.__proto__'), false);
});

test('OR across every value of every key', () => {
  const caps: JsonObject = { media_buy: { supported_delivery_types: ['guaranteed'], supported_pricing_models: ['cpm'], execution: { trusted_match: {} } } };
  assert.is(appliesWhenSatisfied({ delivery_types: ['non_guaranteed'], pricing_models: ['cpc', 'cpm'] }, caps), true);
  assert.is(appliesWhenSatisfied({ delivery_types: ['non_guaranteed'], capabilities: ['media_buy.nope', 'media_buy.execution.trusted_match'] }, caps), true);
  assert.is(appliesWhenSatisfied({ delivery_types: ['non_guaranteed'], pricing_models: ['cpc'], capabilities: ['media_buy.nope'] }, caps), false);
});

test('an unknown key or a malformed annotation keeps the property', () => {
  const keeps = (annotation: unknown): boolean => appliesWhenSatisfied(annotation, GUARANTEED);
  assert.is(keeps({ delivery_types: ['non_guaranteed'], channels: ['ctv'] }), true);
  assert.is(keeps({ channels: ['ctv'] }), true);
  for (const malformed of [
    null,
    true,
    'non_guaranteed',
    ['non_guaranteed'],
    {},
    { delivery_types: 'non_guaranteed' },
    { delivery_types: [] },
    { delivery_types: [1] },
    { delivery_types: [''] },
    { capabilities: ['media_buy..execution'] },
    { capabilities: ['.media_buy'] },
    { delivery_types: ['non_guaranteed'], pricing_models: 'cpm' },
  ]) {
    assert.is(keeps(malformed), true, JSON.stringify(malformed));
  }
});

// --- projection: what drops ---------------------------------------------------------------------------------------

test('a guaranteed-only agent loses floor_price and price_guidance in every pricing option; others keep them', () => {
  const doc = bundle();
  const out = project(doc, GUARANTEED);
  const cpm = at(out, '$defs|external:pricing-options/cpm-option.json|properties');
  assert.equal(Object.keys(cpm), ['pricing_option_id', 'pricing_model', 'currency']);
  assert.equal(Object.keys(at(out, '$defs|external:pricing-options/flat-rate-option.json|properties')), ['pricing_model']);
  // non_guaranteed, or no declared delivery types: the pricing options are the input's own objects
  for (const caps of [NON_GUARANTEED, { media_buy: {} }, { media_buy: { supported_pricing_models: ['cpm'] } }] as JsonObject[]) {
    const kept = project(doc, caps);
    assert.is(at(kept, '$defs|external:pricing-options/cpm-option.json') === at(doc, '$defs|external:pricing-options/cpm-option.json'), true);
    assert.is(at(kept, '$defs|external:pricing-options/flat-rate-option.json') === at(doc, '$defs|external:pricing-options/flat-rate-option.json'), true);
    assert.is(kept === doc, false); // trusted_match still goes: no media_buy.execution.trusted_match
  }
});

test('only properties entries are removed: required, additionalProperties, enums and $defs entries stay', () => {
  const doc = bundle();
  const out = project(doc, GUARANTEED);
  const cpm = at(out, '$defs|external:pricing-options/cpm-option.json');
  assert.equal(cpm.required, ['pricing_option_id', 'pricing_model', 'currency']);
  assert.is(cpm.additionalProperties, true);
  assert.equal(Object.keys(out.$defs as Obj), Object.keys(doc.$defs as Obj));
  assert.is(at(out, '$defs|external:pricing-options/price-guidance.json') === at(doc, '$defs|external:pricing-options/price-guidance.json'), true);
  assert.is(at(out, '$defs|external:enums/delivery-type.json') === at(doc, '$defs|external:enums/delivery-type.json'), true);
  // An annotation anywhere but on a properties entry removes nothing.
  const stray = { $defs: { 'external:x.json': { type: 'object', 'x-adcp-applies-when': AUCTION } }, allOf: [{ 'x-adcp-applies-when': AUCTION }] };
  assert.is(project(stray) === stray, true);
});

test('a dropped property takes its subtree', () => {
  const doc = bundle();
  const out = project(doc, { media_buy: { supported_delivery_types: ['non_guaranteed'] } });
  const product = at(out, '$defs|external:core/product.json|properties');
  assert.equal(Object.keys(product), ['product_id', 'pricing_options']);
  assert.not.ok(JSON.stringify(out).includes('context_match'));
});

test('the output keeps property order and a property named __proto__', () => {
  const doc = JSON.parse(
    '{"type":"object","properties":{"a":{},"__proto__":{"type":"string"},"floor_price":{"x-adcp-applies-when":{"delivery_types":["non_guaranteed"]}},"z":{}}}',
  ) as Obj;
  const out = project(doc);
  assert.equal(Object.keys(out.properties as Obj), ['a', '__proto__', 'z']);
  assert.equal(Object.getOwnPropertyDescriptor(out.properties, '__proto__')?.value, { type: 'string' });
  assert.is(Object.getPrototypeOf(out.properties), Object.prototype);
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleSchema, lintAppliesWhen, annotateAdvertised, resolveOverlays, type ResolvedOverlay } from '../generator/project/index.js';
import { loadOverlays, loadRelease, type JsonSchemaObject, type Release } from '../generator/load/index.js';
import { AUCTION, GUARANTEED, at, deepFreeze, pricing, project, type Obj } from './helpers/projection.js';
import { repoRoot, sdkReleaseDir } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';
import { codegenError } from './helpers/codegen-error.js';

/** Overlays attaching x-adcp-applies-when before projection, on AdCP 3.0.6 from @adcp/sdk. */

// --- overlays (on AdCP 3.0.6 from @adcp/sdk) ----------------------------------------------------------------------

const SHIPPED = join(repoRoot, 'schemas/overlays/applies-when-rfc.json');
let release306: Release | undefined;
const r306 = (): Release => (release306 ??= loadRelease(sdkReleaseDir(), '@adcp/sdk:3.0'));
const scratch = tempDir('adcp-overlay-');
let written = 0;

function overlayFile(content: unknown): string {
  const file = join(scratch, `overlay-${written++}.json`);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

function entry(extra: Obj = {}): Obj {
  return { schema: 'pricing-options/cpm-option.json', pointer: '/properties/floor_price', 'x-adcp-applies-when': AUCTION, ...extra };
}

test('the shipped RFC overlay resolves on 3.0.6, skipping the entry limited to 3.2', () => {
  const [overlay] = loadOverlays([SHIPPED]);
  const resolved = resolveOverlays(r306(), [overlay!]);
  assert.is(resolved.length, overlay!.entries.length - 1);
  assert.not.ok(resolved.some((r) => r.pointer === '/properties/vendor_metric_optimization'));
  const floors = resolved.filter((r) => r.pointer === '/properties/floor_price').map((r) => r.path);
  // every 3.0.6 pricing option that has floor_price
  const expected = [...r306().schemas.byPath.values()]
    .filter((f) => f.path.startsWith('pricing-options/') && Object.prototype.hasOwnProperty.call(f.schema.properties ?? {}, 'floor_price'))
    .map((f) => f.path);
  assert.equal(floors.sort(), expected.sort());
});

test('an overlay target names a release-relative path or a $id', () => {
  const byId = loadOverlays([overlayFile({ annotations: [entry({ schema: '/schemas/3.0.6/pricing-options/cpm-option.json' })] })]);
  const [resolved] = resolveOverlays(r306(), byId);
  assert.is(resolved!.path, 'pricing-options/cpm-option.json');
  assert.is(resolved!.pointer, '/properties/floor_price');
  const file = overlayFile({ annotations: [entry({ schema: 'https://adcontextprotocol.org/schemas/3.2.0-beta.5/pricing-options/cpm-option.json' })] });
  const e = codegenError(() => resolveOverlays(r306(), loadOverlays([file])));
  assert.is(e.file, file);
  assert.is(e.pointer, '/annotations/0/schema');
  assert.match(e.message, /names one release/);
  // limited to 3.2, the same entry is skipped on 3.0
  const limited = overlayFile({ annotations: [entry({ schema: 'https://adcontextprotocol.org/schemas/3.2.0-beta.5/pricing-options/cpm-option.json', releases: ['3.2'] })] });
  assert.equal(resolveOverlays(r306(), loadOverlays([limited])), []);
  const byVersion = overlayFile({ annotations: [entry({ releases: ['3.0.6'] })] });
  assert.is(resolveOverlays(r306(), loadOverlays([byVersion])).length, 1);
});

test('a target that does not exist is an error naming the overlay file and the entry pointer', () => {
  const cases: [Obj, string, RegExp][] = [
    [entry({ schema: 'pricing-options/nope.json' }), '/annotations/1/schema', /is not a schema of AdCP 3\.0\.6/],
    [entry({ pointer: '/properties/no_such_field' }), '/annotations/1/pointer', /does not exist/],
    [entry({ pointer: '/properties/currency/examples/0' }), '/annotations/1/pointer', /holds no schema/],
    [entry({ pointer: '/required' }), '/annotations/1/pointer', /holds no schema/],
    [entry({ pointer: '/properties' }), '/annotations/1/pointer', /whole properties keyword/],
    [entry({ pointer: '' }), '/annotations/1/pointer', /must target a property/],
    [entry({ pointer: '/properties/price_guidance/allOf/0' }), '/annotations/1/pointer', /does not exist|must target a property/],
  ];
  for (const [bad, pointer, message] of cases) {
    const file = overlayFile({ annotations: [entry({ pointer: '/properties/price_guidance' }), bad] });
    const e = codegenError(() => resolveOverlays(r306(), loadOverlays([file])));
    assert.is(e.file, file, JSON.stringify(bad));
    assert.is(e.pointer, pointer, JSON.stringify(bad));
    assert.match(e.message, message);
  }
});

test('the overlay format is validated with its JSON Schema, errors at the failing pointer', () => {
  const cases: [unknown, string][] = [
    [{ annotations: [entry({ 'x-adcp-applies-when': { channels: ['ctv'] } })] }, '/annotations/0/x-adcp-applies-when/channels'],
    [{ annotations: [entry({ 'x-adcp-applies-when': { delivery_types: [] } })] }, '/annotations/0/x-adcp-applies-when/delivery_types'],
    [{ annotations: [entry({ 'x-adcp-applies-when': { capabilities: ['media_buy..x'] } })] }, '/annotations/0/x-adcp-applies-when/capabilities/0'],
    // neither x-adcp-applies-when nor x-adcp-accepted-record: Ajv reports the first missing one
    [{ annotations: [{ schema: 'core/product.json', pointer: '/properties/trusted_match' }] }, '/annotations/0/x-adcp-applies-when'],
    [{ annotations: [entry({ pointer: 'properties/floor_price' })] }, '/annotations/0/pointer'],
    [{ annotations: [entry({ releases: ['three'] })] }, '/annotations/0/releases/0'],
    [{ annotations: [entry({ surprise: 1 })] }, '/annotations/0/surprise'],
    [{ entries: [] }, '/annotations'],
  ];
  for (const [content, pointer] of cases) {
    const file = overlayFile(content);
    const e = codegenError(() => loadOverlays([file]));
    assert.is(e.file, file);
    assert.is(e.pointer, pointer, JSON.stringify(content));
  }
});

test('two applies-when annotations on one property are an error; accepted-record markers resolve on any schema', () => {
  const file = overlayFile({ annotations: [entry(), entry({ 'x-adcp-applies-when': { pricing_models: ['cpm'] } })] });
  const e = codegenError(() => resolveOverlays(r306(), loadOverlays([file])));
  assert.is(e.pointer, '/annotations/1/pointer');
  assert.match(e.message, /already attached here by .*#\/annotations\/0/);
  const record = overlayFile({ annotations: [{ schema: 'core/media-buy.json', pointer: '', 'x-adcp-accepted-record': true }] });
  const [resolved] = resolveOverlays(r306(), loadOverlays([record]));
  assert.equal([resolved!.path, resolved!.pointer, resolved!.acceptedRecord], ['core/media-buy.json', '', true]);
});

/** A tools/list document shaped like the MCP projection, as the bundler produces it for 3.0. */
function advertisedFixture(): JsonSchemaObject {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { options: { type: 'array', items: { $ref: '#/$defs/external:pricing-options~1cpm-option.json' } }, mode: { $ref: '#/$defs/Mode' } },
    $defs: {
      Mode: { type: 'object', properties: { fast: { type: 'boolean' } }, dependentSchemas: { fast: { properties: { level: {} } } }, prefixItems: [{ properties: { first: {} } }] },
      'external:pricing-options/cpm-option.json': pricing(),
      'external:core/other.json': { type: 'string' },
    },
  };
}

function resolved(path: string, steps: { keyword: string; key?: string }[], extra: Partial<ResolvedOverlay> = {}): ResolvedOverlay {
  const pointer = steps.map((s) => `/${s.keyword}${s.key === undefined ? '' : `/${s.key}`}`).join('');
  return { file: 'my-overlay.json', entryPointer: '/annotations/0', path, pointer, steps, appliesWhen: AUCTION, ...extra };
}

test('annotateAdvertised: files under $defs["external:<path>"], the root at rootPath, its definitions hoisted to $defs', () => {
  const doc = deepFreeze(advertisedFixture());
  const onCpm = resolved('pricing-options/cpm-option.json', [{ keyword: 'properties', key: 'currency' }]);
  const out = annotateAdvertised(doc, 'media-buy/x-request.json', [onCpm]);
  assert.equal(at(out, '$defs|external:pricing-options/cpm-option.json|properties|currency'), { type: 'string', 'x-adcp-applies-when': AUCTION });
  assert.is(at(out, '$defs|external:core/other.json') === at(doc, '$defs|external:core/other.json'), true);
  assert.is(at(out, 'properties') === at(doc, 'properties'), true);
  assert.is(at(out, '$defs|external:pricing-options/cpm-option.json|properties|floor_price') === at(doc, '$defs|external:pricing-options/cpm-option.json|properties|floor_price'), true);
  // the root file's draft-07 definitions/dependencies/array items, as converted to 2020-12
  const onRoot = [
    resolved('media-buy/x-request.json', [{ keyword: 'definitions', key: 'Mode' }, { keyword: 'properties', key: 'fast' }]),
    resolved('media-buy/x-request.json', [{ keyword: 'definitions', key: 'Mode' }, { keyword: 'dependencies', key: 'fast' }, { keyword: 'properties', key: 'level' }]),
    resolved('media-buy/x-request.json', [{ keyword: 'definitions', key: 'Mode' }, { keyword: 'items', key: '0' }, { keyword: 'properties', key: 'first' }]),
    resolved('media-buy/x-request.json', [{ keyword: 'properties', key: 'options' }]),
  ];
  const root = annotateAdvertised(doc, 'media-buy/x-request.json', onRoot);
  assert.equal(at(root, '$defs|Mode|properties|fast|x-adcp-applies-when'), AUCTION);
  assert.equal(at(root, '$defs|Mode|dependentSchemas|fast|properties|level'), { 'x-adcp-applies-when': AUCTION });
  assert.equal(at(root, '$defs|Mode|prefixItems|0|properties|first'), { 'x-adcp-applies-when': AUCTION });
  assert.equal(at(root, 'properties|options|x-adcp-applies-when'), AUCTION);
  // not the root of another tool's document, and a file the document does not hold: the input itself
  assert.is(annotateAdvertised(doc, 'media-buy/y-request.json', onRoot) === doc, true);
  assert.is(annotateAdvertised(doc, 'x.json', [resolved('core/product.json', [{ keyword: 'properties', key: 'a' }])]) === doc, true);
  assert.is(annotateAdvertised(doc, 'x.json', []) === doc, true);
});

test('annotateAdvertised: a target file present without the pointer is an error naming the overlay entry', () => {
  const doc = advertisedFixture();
  const e = codegenError(() => annotateAdvertised(doc, 'x.json', [resolved('pricing-options/cpm-option.json', [{ keyword: 'properties', key: 'gone' }])]));
  assert.is(e.file, 'my-overlay.json');
  assert.is(e.pointer, '/annotations/0/pointer');
});

test('annotate then project on 3.0.6 modular schemas: every pricing option loses floor_price for a guaranteed-only seller', () => {
  const overlays = resolveOverlays(r306(), loadOverlays([SHIPPED]));
  for (const path of new Set(overlays.map((o) => o.path))) {
    const file = r306().schemas.byPath.get(path)!;
    const annotated = annotateAdvertised(file.schema, path, overlays);
    assert.is.not(annotated, file.schema);
    assert.equal(lintAppliesWhen(annotated, path), [], path);
    const projected = project(annotated, GUARANTEED);
    const names = Object.keys(projected.properties as Obj);
    for (const o of overlays.filter((x) => x.path === path)) assert.not.ok(names.includes(o.steps[0]!.key!), `${path}${o.pointer}`);
    // the canonical file is untouched and a non-guaranteed seller with every capability keeps all
    assert.is(project(annotated, { media_buy: { supported_delivery_types: ['non_guaranteed'], conversion_tracking: {}, execution: { trusted_match: {} } } }) === annotated, true);
  }
});

test('3.0.6 through the tools/list bundler: only get_products changes for a guaranteed-only seller; no overlay, no change', () => {
  const overlays = resolveOverlays(r306(), loadOverlays([SHIPPED]));
  const changed: string[] = [];
  for (const [name, tool] of r306().tools) {
    if (r306().unavailable.has(name)) continue;
    for (const rootPath of [tool.requestSchema, tool.responseSchema]) {
      const bundled = deepFreeze(bundleSchema(r306(), rootPath));
      const text = JSON.stringify(bundled);
      assert.is(project(annotateAdvertised(bundled, rootPath, []), GUARANTEED), bundled);
      const annotated = annotateAdvertised(bundled, rootPath, overlays);
      assert.equal(lintAppliesWhen(annotated, rootPath), [], rootPath);
      if (JSON.stringify(project(annotated, GUARANTEED)) !== text) changed.push(rootPath);
    }
  }
  assert.equal(changed, ['media-buy/get-products-response.json']);
  const getProducts = project(annotateAdvertised(bundleSchema(r306(), 'media-buy/get-products-response.json'), 'media-buy/get-products-response.json', overlays), GUARANTEED);
  const options = Object.entries(getProducts.$defs as Record<string, Obj>).filter(([k]) => k.startsWith('external:pricing-options/') && k.endsWith('-option.json'));
  assert.ok(options.length >= 8);
  for (const [key, option] of options) for (const field of ['floor_price', 'price_guidance']) assert.not.ok(field in (option.properties as Obj), `${key} ${field}`);
});

test.run();

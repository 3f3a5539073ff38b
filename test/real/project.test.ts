import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lintAppliesWhen, annotateAdvertised, resolveOverlays, type ResolvedOverlay, projectSchemaForCapabilities } from '../../generator/project/index.js';
import { loadOverlays, loadRelease, type JsonObject, type JsonSchemaObject, type Release } from '../../generator/load/index.js';
import { repoRoot, sharedReleaseDir } from '../helpers/releases.js';

/**
 * AdCP 3.2.0-beta.5's MCP projection with the shipped RFC overlay: what each kind of agent advertises for
 * get_products. CI runs this; `npm test` skips it (it reads ../shared).
 */

const dir = sharedReleaseDir();
if (dir === undefined) throw new Error('../shared/adcp/3.2.0-beta.5 is missing');
const release: Release = loadRelease(dir, 'adcp/3.2.0-beta.5');
const overlays: ResolvedOverlay[] = resolveOverlays(release, loadOverlays([join(repoRoot, 'schemas/overlays/applies-when-rfc.json')]));

type Obj = Record<string, unknown>;
const AUCTION_FIELDS = ['floor_price', 'price_guidance'];
const PRODUCT_FIELDS = ['measurement_readiness', 'vendor_metric_optimization', 'trusted_match'];

function profileCapabilities(name: string): JsonObject {
  return (JSON.parse(readFileSync(join(repoRoot, 'schemas/profiles', `${name}.json`), 'utf8')) as { capabilities: JsonObject }).capabilities;
}

/** get_products' advertised outputSchema, annotated by the overlay and projected for `capabilities`. */
function getProductsOutput(capabilities: JsonObject): { annotated: JsonSchemaObject; projected: Obj } {
  const mcp = release.mcp!.tools.get('get_products')!;
  const annotated = annotateAdvertised(mcp.outputSchema, release.tools.get('get_products')!.responseSchema, overlays);
  return { annotated, projected: projectSchemaForCapabilities(annotated, capabilities, { tool: 'get_products' }) as Obj };
}

/** The pricing-option definitions of an advertised document: every `$defs["external:pricing-options/…"]` with a floor. */
function pricingOptions(doc: Obj): [string, Obj][] {
  return Object.entries(doc.$defs as Record<string, Obj>).filter(([key]) => key.startsWith('external:pricing-options/') && key.endsWith('-option.json'));
}

function propertyNames(schema: Obj): string[] {
  return Object.keys((schema.properties ?? {}) as Obj);
}

test('the shipped overlay resolves on 3.2.0-beta.5: every entry, each pricing option with a floor', () => {
  const [overlay] = loadOverlays([join(repoRoot, 'schemas/overlays/applies-when-rfc.json')]);
  assert.is(overlays.length, overlay!.entries.length);
  const withFloor = [...release.schemas.byPath.values()]
    .filter((f) => f.path.startsWith('pricing-options/') && f.schema.additionalProperties !== false && Object.prototype.hasOwnProperty.call(f.schema.properties ?? {}, 'floor_price'))
    .map((f) => f.path)
    .sort();
  assert.ok(withFloor.length >= 8);
  assert.equal([...new Set(overlays.filter((o) => o.pointer === '/properties/floor_price').map((o) => o.path))].sort(), withFloor);
  assert.equal(overlays.filter((o) => o.path === 'core/product.json').map((o) => o.pointer).sort(), PRODUCT_FIELDS.map((f) => `/properties/${f}`).sort());
});

test('the overlay annotates every pricing option get_products advertises, and lint finds nothing to warn about', () => {
  const { annotated } = getProductsOutput({});
  const options = pricingOptions(annotated);
  const floored = options.filter(([, s]) => propertyNames(s).includes('floor_price'));
  assert.ok(floored.length >= 8, `${floored.length} pricing options with floor_price`);
  for (const [key, schema] of floored) {
    for (const field of AUCTION_FIELDS) {
      assert.equal(((schema.properties as Obj)[field] as Obj)['x-adcp-applies-when'], { delivery_types: ['non_guaranteed'] }, `${key} ${field}`);
    }
  }
  assert.equal(lintAppliesWhen(annotated, 'get_products outputSchema'), []);
});

test('a guaranteed-only seller advertises pricing options without floor_price / price_guidance', () => {
  for (const capabilities of [{ media_buy: { supported_delivery_types: ['guaranteed'] } }, profileCapabilities('guaranteed-publisher')] as JsonObject[]) {
    const { annotated, projected } = getProductsOutput(capabilities);
    const options = pricingOptions(projected);
    assert.ok(options.length >= 8);
    for (const [key, schema] of options) {
      for (const field of AUCTION_FIELDS) assert.not.ok(propertyNames(schema).includes(field), `${key} still has ${field}`);
      // only those two go: everything else the option declares is still advertised
      const before = propertyNames(((annotated.$defs as Obj)[key]) as Obj);
      assert.equal(propertyNames(schema), before.filter((f) => !AUCTION_FIELDS.includes(f)), key);
    }
    // no annotated auction field survives anywhere in the document
    assert.not.ok(JSON.stringify(projected).includes('"non_guaranteed"]}'), 'an x-adcp-applies-when for non_guaranteed survived');
    assert.ok(JSON.stringify(annotated).includes('"x-adcp-applies-when":{"delivery_types":["non_guaranteed"]}'));
    // products without the matching capabilities lose the RFC's product fields
    const product = (projected.$defs as Obj)['external:core/product.json'] as Obj;
    for (const field of PRODUCT_FIELDS) assert.not.ok(propertyNames(product).includes(field), field);
    assert.ok(propertyNames(product).includes('pricing_options'));
  }
});

test('a seller declaring non_guaranteed, or no delivery types, keeps floor_price and price_guidance', () => {
  const cases: JsonObject[] = [
    { media_buy: { supported_delivery_types: ['non_guaranteed'] } },
    { media_buy: { supported_delivery_types: ['guaranteed', 'non_guaranteed'] } },
    { media_buy: { supported_pricing_models: ['cpm'] } },
    { media_buy: { supported_delivery_types: [] } },
    profileCapabilities('programmatic-seller'),
  ];
  for (const capabilities of cases) {
    const { annotated, projected } = getProductsOutput(capabilities);
    for (const [key, schema] of pricingOptions(projected)) {
      assert.is(schema, (annotated.$defs as Obj)[key], `${JSON.stringify(capabilities)}: ${key} is the annotated input itself`);
    }
  }
});

test('a governance agent (no media_buy block) keeps everything', () => {
  for (const capabilities of [profileCapabilities('governance-agent'), { adcp: { major_versions: [3] }, supported_protocols: ['governance'] }] as JsonObject[]) {
    const { annotated, projected } = getProductsOutput(capabilities);
    assert.is(projected, annotated);
  }
});

test('a seller publishing the matching capabilities keeps the RFC product fields', () => {
  const capabilities: JsonObject = {
    media_buy: {
      supported_delivery_types: ['guaranteed'],
      conversion_tracking: { supported_event_types: ['purchase'] },
      vendor_metric_optimization: { supported_targets: [] },
      execution: { trusted_match: { surfaces: ['website'] } },
    },
  };
  const { projected } = getProductsOutput(capabilities);
  const product = (projected.$defs as Obj)['external:core/product.json'] as Obj;
  for (const field of PRODUCT_FIELDS) assert.ok(propertyNames(product).includes(field), field);
  const onlyTmp = getProductsOutput({ media_buy: { execution: { trusted_match: null } } }).projected;
  assert.not.ok(propertyNames((onlyTmp.$defs as Obj)['external:core/product.json'] as Obj).includes('trusted_match'));
});

test('with no overlay every projected tools/list schema is byte-identical to the input, for every profile', () => {
  const profiles = ['guaranteed-publisher', 'programmatic-seller', 'governance-agent', 'creative-agent', 'signals-agent'].map(profileCapabilities);
  let compared = 0;
  for (const [name, mcp] of release.mcp!.tools) {
    const tool = release.tools.get(name)!;
    for (const [schema, rootPath] of [[mcp.inputSchema, tool.requestSchema], [mcp.outputSchema, tool.responseSchema]] as const) {
      const text = JSON.stringify(schema);
      assert.is(annotateAdvertised(schema, rootPath, []), schema);
      for (const capabilities of profiles) {
        const projected = projectSchemaForCapabilities(schema, capabilities);
        assert.is(projected, schema, `${name} ${rootPath}`);
        assert.is(JSON.stringify(projected), text);
        compared++;
      }
    }
  }
  assert.is(compared, release.mcp!.tools.size * 2 * profiles.length);
});

test('with the overlay, only get_products (and the compliance controller) change, and the canonical schemas never do', () => {
  const before = new Map([...release.schemas.byPath].map(([p, f]) => [p, JSON.stringify(f.schema)]));
  const changed: string[] = [];
  for (const [name, mcp] of release.mcp!.tools) {
    const tool = release.tools.get(name)!;
    for (const [schema, rootPath] of [[mcp.inputSchema, tool.requestSchema], [mcp.outputSchema, tool.responseSchema]] as const) {
      const text = JSON.stringify(schema);
      const projected = projectSchemaForCapabilities(annotateAdvertised(schema, rootPath, overlays), { media_buy: { supported_delivery_types: ['guaranteed'] } });
      assert.is(JSON.stringify(schema), text, `${rootPath} was mutated`);
      if (JSON.stringify(projected) !== text) changed.push(rootPath);
    }
  }
  assert.equal(changed.sort(), ['compliance/comply-test-controller-request.json', 'media-buy/get-products-response.json']);
  for (const [p, f] of release.schemas.byPath) assert.is(JSON.stringify(f.schema), before.get(p));
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadRelease } from '../generator/load/index.js';
import { tinyRelease } from './helpers/fixture-release.js';
import { sdkReleaseDir } from './helpers/releases.js';
import { codegenError } from './helpers/codegen-error.js';

test('loads the AdCP 3.0.6 release embedded in @adcp/sdk (rooted $ids, no MCP projection)', () => {
  const r = loadRelease(sdkReleaseDir());
  assert.is(r.version, '3.0.6');
  assert.is(r.key, '3.0');
  assert.is(r.mcp, undefined);
  const cmb = r.tools.get('create_media_buy')!;
  assert.is(cmb.protocol, 'media-buy');
  assert.is(cmb.mutating, true);
  assert.is(cmb.requestSchema, 'media-buy/create-media-buy-request.json');
  assert.ok(cmb.asyncResponseSchemas.length >= 3);
  assert.ok(cmb.specialisms.includes('sales_guaranteed'));
  assert.ok(r.schemas.byId.has('/schemas/3.0.6/core/product.json'));
  assert.is(r.errorCodes.get('INVALID_REQUEST')?.recovery, 'correctable');
  assert.ok(r.specialisms.get('sales_guaranteed')!.exercisedTools.includes('create_media_buy'));
  // This copy ships no compliance/ schemas: the tool is known but cannot be served, and says why.
  assert.match(r.unavailable.get('comply_test_controller') ?? '', /compliance\/comply-test-controller-request\.json/);
  // Every $ref of every tool resolves.
  const resolved = r.schemas.resolve('/schemas/3.0.6/core/product.json', '/schemas/3.0.6/media-buy/get-products-response.json');
  assert.is(resolved.file.path, 'core/product.json');
});

test('a release I have not seen loads from its files alone (relative refs, another version)', () => {
  const r = loadRelease(tinyRelease());
  assert.is(r.version, '9.1.0');
  assert.is(r.key, '9.1');
  assert.equal([...r.tools.keys()], ['comply_test_controller', 'get_adcp_capabilities', 'get_signals', 'get_things', 'make_thing']);
  assert.is(r.schemas.resolve('../core/thing.json', '/schemas/9.1.0/media-buy/make-thing-request.json').file.path, 'core/thing.json');
});

test('absolute $ids (AdCP 3.2 layout) resolve the same way', () => {
  const abs = 'https://adcontextprotocol.org/schemas/9.2.0';
  const dir = tinyRelease(
    {
      'core/thing.json': { $id: `${abs}/core/thing.json`, type: 'object' },
      'media-buy/get-things-response.json': { $id: `${abs}/media-buy/get-things-response.json`, properties: { things: { items: { $ref: `${abs}/core/thing.json` } } } },
      'media-buy/make-thing-request.json': { $id: `${abs}/media-buy/make-thing-request.json`, properties: { thing: { $ref: '../core/thing.json#' } } },
      'media-buy/make-thing-response.json': { $id: `${abs}/media-buy/make-thing-response.json`, properties: { thing: { $ref: `${abs}/core/thing.json` } } },
    },
    '9.2.0',
  );
  const r = loadRelease(dir);
  assert.ok(r.schemas.byId.has(`${abs}/core/thing.json`));
});

test('one $id at two paths: identical content is accepted, different content names both files', () => {
  const same = tinyRelease({ 'core/thing-copy.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: '/schemas/9.1.0/core/thing.json', type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false } });
  assert.ok(loadRelease(same).schemas.byPath.has('core/thing-copy.json'));
  const clash = tinyRelease({ 'core/thing-copy.json': { $id: '/schemas/9.1.0/core/thing.json', type: 'string' } });
  const e = codegenError(() => loadRelease(clash, 'rel'));
  assert.match(e.message, /core\/thing\.json/);
  assert.match(e.message, /core\/thing-copy\.json/);
  assert.is(e.pointer, '/$id');
});

test('bad releases: missing dir, missing manifest, malformed JSON, dangling $ref, $ref cycle', () => {
  let e = codegenError(() => loadRelease('/nonexistent/release', 'missing-release'));
  assert.match(e.message, /missing-release: release directory not found/);

  e = codegenError(() => loadRelease(tinyRelease({ 'manifest.json': undefined }), 'rel'));
  assert.is(e.file, 'rel/manifest.json');
  assert.match(e.message, /missing manifest\.json/);

  e = codegenError(() => loadRelease(tinyRelease({ 'core/thing.json': '{ "$id": "/schemas/9.1.0/core/thing.json", ' }), 'rel'));
  assert.is(e.file, 'rel/core/thing.json');
  assert.match(e.message, /malformed JSON at line 1/);

  e = codegenError(() => loadRelease(tinyRelease({ 'media-buy/make-thing-response.json': { $id: '/schemas/9.1.0/media-buy/make-thing-response.json', properties: { a: { items: [{ $ref: '/schemas/9.1.0/core/nope.json' }] } } } }), 'rel'));
  assert.is(e.file, 'rel/media-buy/make-thing-response.json');
  assert.is(e.pointer, '/properties/a/items/0/$ref');
  assert.match(e.message, /dangling \$ref "\/schemas\/9\.1\.0\/core\/nope\.json"/);

  e = codegenError(() => loadRelease(tinyRelease({ 'core/thing.json': { $id: '/schemas/9.1.0/core/thing.json', $ref: '#/definitions/missing' } }), 'rel'));
  assert.is(e.pointer, '/$ref');

  e = codegenError(() =>
    loadRelease(
      tinyRelease({
        'core/thing.json': { $id: '/schemas/9.1.0/core/thing.json', $ref: '/schemas/9.1.0/core/alias.json' },
        'core/alias.json': { $id: '/schemas/9.1.0/core/alias.json', description: 'an alias', $ref: 'thing.json' },
      }),
      'rel',
    ),
  );
  assert.match(e.message, /\$ref cycle/);
  assert.is(e.file, 'rel/media-buy/get-things-response.json');
  assert.is(e.pointer, '/properties/things/items/$ref');

  // A cycle across files is legal JSON Schema (recursive types) and must load without looping.
  const cyclic = tinyRelease({ 'core/thing.json': { $id: '/schemas/9.1.0/core/thing.json', type: 'object', properties: { child: { $ref: '/schemas/9.1.0/core/thing.json' }, peer: { $ref: '../media-buy/make-thing-request.json' } } } });
  assert.ok(loadRelease(cyclic).schemas.byId.size > 0);

  // A manifest that names a schema this copy does not ship makes the tool unavailable, not the release unloadable.
  const partial = loadRelease(tinyRelease({ 'manifest.json': { adcp_version: '9.1.0', tools: { broken: { protocol: 'x', request_schema: 'nope.json', response_schema: 'media-buy/get-things-response.json' } } } }));
  assert.match(partial.unavailable.get('broken') ?? '', /nope\.json/);

  e = codegenError(() => loadRelease(tinyRelease({ 'manifest.json': { adcp_version: 'latest', tools: {} } }), 'rel'));
  assert.is(e.pointer, '/adcp_version');
});

test.run();

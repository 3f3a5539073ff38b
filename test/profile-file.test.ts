import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fillableCapabilities, pushOperationIdTools } from '../generator/project/index.js';
import { loadRelease } from '../generator/load/index.js';
import { runCli } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { repoRoot, sdkReleaseDir } from './helpers/releases.js';

/**
 * What profiles/<name>.json tells the runtime about the deployment beyond its tools: a `sandbox` surface (absent for
 * production, the profile format's default), and per release the capability fields the running agent fills in
 * (`fillable`) — only where the release's get_adcp_capabilities response declares them: `identity.brand_json_url`
 * is AdCP 3.2's, 3.0.6 has no such property.
 */
test('fillable: identity.brand_json_url where the capabilities response declares it (through $ref), never in 3.0.6', () => {
  assert.equal(fillableCapabilities(loadRelease(sdkReleaseDir())), [], 'AdCP 3.0.6');
  const id = (p: string): string => `/schemas/9.1.0/${p}`;
  const caps = JSON.parse(readFileSync(join(tinyRelease(), 'protocol/caps-response.json'), 'utf8')) as { properties: Record<string, unknown> };
  caps.properties.identity = { $ref: id('core/identity.json') };
  const release = tinyRelease({
    'protocol/caps-response.json': caps,
    'core/identity.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: id('core/identity.json'), type: 'object', properties: { brand_json_url: { type: 'string' } } },
  });
  assert.equal(fillableCapabilities(loadRelease(release)), ['identity.brand_json_url']);
});

test('pushOperationId: the tools whose push_notification_config declares operation_id (through $ref), as AdCP 3.2\'s does; none in 3.0.6', () => {
  const r30 = loadRelease(sdkReleaseDir());
  assert.equal(pushOperationIdTools(r30, ['create_media_buy', 'get_products', 'sync_creatives']), [], 'AdCP 3.0.6');
  const id = (p: string): string => `/schemas/9.1.0/${p}`;
  const push = (operationId: boolean) => ({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { url: { type: 'string' }, ...(operationId ? { operation_id: { type: 'string' } } : {}) },
  });
  const release = tinyRelease({
    'core/push-32.json': { ...push(true), $id: id('core/push-32.json') },
    'core/push-30.json': { ...push(false), $id: id('core/push-30.json') },
    'media-buy/make-thing-request.json': {
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: id('media-buy/make-thing-request.json'),
      type: 'object',
      allOf: [{ properties: { push_notification_config: { $ref: '../core/push-32.json' } } }],
      properties: { thing: { $ref: '../core/thing.json' } },
    },
    'media-buy/get-things-request.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: id('media-buy/get-things-request.json'), type: 'object', properties: { push_notification_config: { $ref: id('core/push-30.json') } } },
  });
  assert.equal(pushOperationIdTools(loadRelease(release), ['get_adcp_capabilities', 'get_things', 'make_thing']), ['make_thing']);
});

test('the profile file: surface sandbox for a sandbox profile, none for production; fillable per release', async () => {
  const id = (p: string): string => `/schemas/9.1.0/${p}`;
  const caps = JSON.parse(readFileSync(join(tinyRelease(), 'protocol/caps-response.json'), 'utf8')) as { properties: Record<string, unknown> };
  caps.properties.identity = { type: 'object', properties: { brand_json_url: { type: 'string' } } };
  const release = tinyRelease({ 'protocol/caps-response.json': { ...caps, $id: id('protocol/caps-response.json') } });
  const capabilities = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };
  const work = writeTree(
    {
      'profiles/a.json': { name: 'sandboxed', surface: 'sandbox', tools: ['get_adcp_capabilities', 'get_things', 'comply_test_controller'], shared_tools: ['comply_test_controller'], capabilities },
      'profiles/b.json': { name: 'productive', tools: ['get_adcp_capabilities', 'get_things'], capabilities },
      'adcp-codegen.config.json': { releases: [release], profiles: ['profiles/*.json'], out: 'generated' },
    },
    tempDir('adcp-profile-file-'),
  );
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  const read = (name: string) => (JSON.parse(readFileSync(join(work, 'generated/profiles', `${name}.json`), 'utf8')) as { profile: Record<string, unknown> & { releases: Record<string, unknown>[] } }).profile;
  assert.is(read('sandboxed').surface, 'sandbox');
  assert.is(read('productive').surface, undefined);
  assert.equal(read('productive').releases[0]!.fillable, ['identity.brand_json_url']);
  // The committed 3.0.6 set: production, nothing to fill.
  const gp = (JSON.parse(readFileSync(join(repoRoot, 'generated/profiles/guaranteed-publisher.json'), 'utf8')) as { profile: Record<string, unknown> & { releases: Record<string, unknown>[] } }).profile;
  assert.is(gp.surface, undefined);
  assert.is(gp.releases[0]!.fillable, undefined);
});

test.run();

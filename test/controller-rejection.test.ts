import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { setAt } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';

/**
 * The compliance test controller answers a request its schema refuses in its own vocabulary — the ControllerError
 * arm: `success: false`, `error: "INVALID_PARAMS"` (comply-test-controller.mdx, "Error codes") — not as an AdCP
 * INVALID_REQUEST, which every other tool keeps. A sandbox set over the tiny fixture release, whose controller
 * requires `scenario` and, for force_creative_status, params.creative_id (as AdCP 3.2's does).
 */
const id = (p: string): string => `/schemas/9.1.0/${p}`;
const manifest = JSON.parse(readFileSync(join(tinyRelease(), 'manifest.json'), 'utf8')) as { tools: Record<string, Record<string, unknown>> };
manifest.tools.comply_test_controller = { ...manifest.tools.comply_test_controller, request_schema: 'compliance/controller-request.json', response_schema: 'compliance/controller-response.json' };
const release = tinyRelease({
  'manifest.json': manifest,
  'compliance/controller-request.json': {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id('compliance/controller-request.json'),
    type: 'object',
    required: ['scenario'],
    properties: { scenario: { type: 'string' }, params: { type: 'object' }, context: { type: 'object' } },
    if: { properties: { scenario: { const: 'force_creative_status' } } },
    then: { required: ['params'], properties: { params: { required: ['creative_id'] } } },
  },
  'compliance/controller-response.json': { $schema: 'http://json-schema.org/draft-07/schema#', $id: id('compliance/controller-response.json'), type: 'object' },
});
const work = writeTree(
  {
    'package.json': { name: 'agent', private: true, type: 'module' },
    'profiles/sandbox.json': {
      name: 'sandbox-seller',
      surface: 'sandbox',
      tools: ['get_adcp_capabilities', 'get_things', 'comply_test_controller'],
      shared_tools: ['comply_test_controller'],
      capabilities: { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] },
    },
    'adcp-codegen.config.json': { releases: [release], profiles: ['profiles/*.json'], out: 'generated' },
  },
  tempDir('adcp-codegen-controller-'),
);
symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');

type Body = Record<string, any>;
const bodyOf = (r: { content: { text: string }[]; structuredContent?: Body }): Body => {
  assert.equal(r.structuredContent, JSON.parse(r.content[0]!.text));
  return r.structuredContent!;
};

test('a controller request its schema refuses is the ControllerError INVALID_PARAMS, issues and context included', async () => {
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  const { loadProfile } = await setAt(join(work, 'generated'));
  for (const mode of ['production', 'development'] as const) {
    const agent = await loadProfile('sandbox-seller' as never, { mode });
    let called = 0;
    const handler = () => (called++, { success: true, previous_state: 'pending_review', current_state: 'approved' });
    const r = await agent.call('comply_test_controller', { scenario: 'force_creative_status', params: {}, context: { probe: mode } }, handler);
    assert.not.ok(r.isError, 'the task answered, in the controller vocabulary');
    const b = bodyOf(r);
    assert.is(b.success, false);
    assert.is(b.error, 'INVALID_PARAMS');
    assert.match(b.error_detail, /comply_test_controller: \/params\/creative_id is required/);
    // The issue points at the missing property itself, as an INVALID_REQUEST's would (issues.ts).
    assert.equal(b.issues.map((i: Body) => [i.pointer, i.keyword, i.missingProperty]), [['/params/creative_id', 'required', 'creative_id']]);
    assert.equal(b.context, { probe: mode });
    assert.is(b.status, 'failed');
    assert.is(b.adcp_version, '9.1');
    assert.is(b.adcp_error, undefined);
    assert.is(bodyOf(await agent.call('comply_test_controller', {}, handler)).error, 'INVALID_PARAMS');
    assert.is(called, 0, 'the handler never sees a refused request');
    assert.is(bodyOf(await agent.call('comply_test_controller', { scenario: 'force_creative_status', params: { creative_id: 'c1' } }, handler)).current_state, 'approved');
    assert.is(called, 1);
    // Every other tool keeps AdCP's own error.
    const other = await agent.call('get_things', { limit: 'many', context: { probe: 'other' } }, () => ({ things: [] }));
    assert.ok(other.isError);
    assert.is(bodyOf(other).adcp_error.code, 'INVALID_REQUEST');
    assert.equal(bodyOf(other).context, { probe: 'other' });
  }
});

test.run();

import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { setAt } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';

/**
 * Releases by their AdCP wire version, end to end (issue 19, point 1): a pre-release is served, advertised, echoed
 * and laid out as `MAJOR.MINOR-TAG`, and a profile may name it by `MAJOR.MINOR` where that is unambiguous. The
 * negotiation rules themselves are tested one by one in release-select.test.ts.
 */
const beta = tinyRelease({}, '9.2.0-beta.3');
const stable = tinyRelease({}, '9.1.0');
const work = tempDir('adcp-codegen-versions-');
writeTree(
  {
    'package.json': { name: 'agent', private: true, type: 'module' },
    'profiles/things.json': {
      name: 'things-seller',
      tools: ['get_adcp_capabilities', 'get_things', 'make_thing'],
      capabilities: { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] },
      // "9.2" names the lone 9.2 pre-release.
      releases: ['9.2', '9.1'],
    },
    'adcp-codegen.config.json': { releases: [stable, beta], profiles: ['profiles/*.json'], out: 'generated' },
  },
  work,
);
symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
const out = join(work, 'generated');

test('a pre-release is keyed by its wire version: paths, profile file, entry types', async () => {
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  assert.ok(existsSync(join(out, 'releases/9.2-beta.3/validate.cjs')), 'releases/9.2-beta.3/ holds the pre-release');
  const profile = JSON.parse(readFileSync(join(out, 'profiles/things-seller.json'), 'utf8')).profile as { releases: { key: string; version: string }[] };
  assert.equal(profile.releases.map((r) => [r.key, r.version]), [['9.2-beta.3', '9.2.0-beta.3'], ['9.1', '9.1.0']]);
  const types = readFileSync(join(out, 'index.d.ts'), 'utf8');
  assert.match(types, /export type \* as V9_2_beta_3 from '\.\/releases\/9\.2-beta\.3\/types\.js';/);
  assert.match(types, /"9\.2-beta\.3": V9_2_beta_3Tools;/);
});

test('served, advertised and echoed at release precision with the tag; build_version is the full version', async () => {
  const { loadProfile } = await setAt(out);
  const agent = await loadProfile('things-seller' as never);
  assert.equal(agent.releases, ['9.2-beta.3', '9.1']);
  for (const [key, build] of [['9.2-beta.3', '9.2.0-beta.3'], ['9.1', '9.1.0']] as const) {
    const adcp = agent.capabilities(key).adcp as Record<string, unknown>;
    assert.equal(adcp.supported_versions, ['9.1', '9.2-beta.3']);
    assert.is(adcp.build_version, build);
  }
  const served = async (args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const r = await agent.call('get_adcp_capabilities', { context: { c: 1 }, ...args }, (_a, ctx) => agent.capabilities(ctx.release));
    return r.structuredContent!;
  };
  const body = await served({ adcp_version: '9.2-beta.3' });
  assert.is(body.adcp_version, '9.2-beta.3');
  assert.is((body.adcp as Record<string, unknown>).build_version, '9.2.0-beta.3');
  // A buyer that pins no release, or only the major, is served the stable release (default-release.test.ts).
  assert.is((await served({})).adcp_version, '9.1');
  assert.is((await served({ adcp_major_version: 9 })).adcp_version, '9.1');
  // A release pin never lands on a pre-release.
  assert.is((await served({ adcp_version: '9.2' })).adcp_version, '9.1');
  const refused = await served({ adcp_version: '9.2-beta.2', adcp_major_version: 9 });
  const error = refused.adcp_error as { code: string; details: Record<string, unknown> };
  assert.is(error.code, 'VERSION_UNSUPPORTED');
  assert.equal(error.details, { adcp_version: '9.2-beta.2', adcp_major_version: 9, supported_versions: ['9.2-beta.3', '9.1'], supported_majors: [9] });
  assert.equal(refused.context, { c: 1 });
});

test('a per-release handler set is keyed by wire version', async () => {
  const { loadProfile } = await setAt(out);
  const agent = await loadProfile('things-seller' as never);
  const handler = { '9.2-beta.3': () => ({ things: [] }), '9.1': () => ({ things: [{ id: 'old' }] }) };
  const r = await agent.call('get_things', { adcp_version: '9.1' }, handler);
  assert.equal(r.structuredContent!.things, [{ id: 'old' }]);
  assert.is(r.structuredContent!.adcp_version, '9.1');
});

test('a profile naming MAJOR.MINOR is refused where two pre-releases have it, and a release named twice', async () => {
  const other = tinyRelease({}, '9.2.0-beta.2');
  const dir = tempDir('adcp-codegen-versions-ambiguous-');
  writeTree(
    {
      'package.json': { name: 'agent', private: true, type: 'module' },
      'profiles/things.json': { name: 'things-seller', tools: ['get_adcp_capabilities'], capabilities: { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] }, releases: ['9.2'] },
      'adcp-codegen.config.json': { releases: [stable, beta, other], profiles: ['profiles/*.json'], out: 'generated' },
    },
    dir,
  );
  let run = await runCli(['generate'], dir);
  assert.is(run.code, 1);
  assert.match(run.stderr, /profiles\/things\.json#\/releases\/0/);
  assert.match(run.stderr, /9\.2 is ambiguous: configured as 9\.2-beta\.3 and 9\.2-beta\.2/);
  writeTree({ 'profiles/things.json': { name: 'things-seller', tools: ['get_adcp_capabilities'], capabilities: { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] }, releases: ['9.2-beta.3', '9.2-beta.2', '9.1', '9.2-beta.3'] } }, dir);
  run = await runCli(['generate'], dir);
  assert.is(run.code, 1);
  assert.match(run.stderr, /#\/releases\/3/);
});

test.run();

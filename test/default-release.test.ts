import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { setAt } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';

/**
 * The stable release by default (issue 40 point 7): a call pinning no release (no adcp_version; or only
 * adcp_major_version) is served the profile's highest stable release; a pre-release only to an exact pin, or when
 * the profile names it as its `default_release` (a sandbox deployment for that pre-release's conformance). The
 * generator resolves and checks the default; the generated profile data carries it; the runtime serves it, echoes
 * it, and labels what it answers before a release is chosen with it. release-select.test.ts has the rules one by one.
 */
const beta = tinyRelease({}, '9.2.0-beta.3');
const stable = tinyRelease({}, '9.1.0');
const capabilities = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };
const tools = ['get_adcp_capabilities', 'get_things'];

function agentRepo(profiles: Record<string, Record<string, unknown>>, releases = [stable, beta]): string {
  const dir = tempDir('adcp-codegen-default-release-');
  writeTree(
    {
      'package.json': { name: 'agent', private: true, type: 'module' },
      ...Object.fromEntries(Object.entries(profiles).map(([name, p]) => [`profiles/${name}.json`, { name, tools, capabilities, ...p }])),
      'adcp-codegen.config.json': { releases, profiles: ['profiles/*.json'], out: 'generated' },
    },
    dir,
  );
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

type Loaded = {
  defaultRelease: string | undefined;
  releases: readonly string[];
  capabilities(release?: string): Record<string, any>;
  call(tool: string, args: unknown, handler: unknown): Promise<{ isError?: boolean; structuredContent?: Record<string, any> }>;
};
const things = () => ({ things: [] });
const servedTo = async (agent: Loaded, args: Record<string, unknown>): Promise<string> => {
  const r = await agent.call('get_things', args, things);
  return r.isError === true ? r.structuredContent!.adcp_error.code : r.structuredContent!.adcp_version;
};

const repo = agentRepo({
  seller: {},
  'beta-sandbox': { surface: 'sandbox', default_release: '9.2' },
  'stable-named': { default_release: '9.1' },
});

test('generate resolves each default release into the profile data: the highest stable one, or the one named', async () => {
  const run = await runCli(['generate'], repo);
  assert.is(run.code, 0, run.stderr);
  assert.not.match(run.stderr, /warning/);
  const data = (name: string) => JSON.parse(readFileSync(join(repo, 'generated/profiles', `${name}.json`), 'utf8')).profile as { defaultRelease?: string };
  assert.is(data('seller').defaultRelease, '9.1');
  assert.is(data('beta-sandbox').defaultRelease, '9.2-beta.3', 'named by MAJOR.MINOR, as releases names them');
  assert.is(data('stable-named').defaultRelease, '9.1');
});

test('unpinned and major-only calls are served the stable release; the pre-release only to an exact pin', async () => {
  const { loadProfile } = await setAt(join(repo, 'generated'));
  const agent = (await loadProfile('seller' as never)) as unknown as Loaded;
  assert.is(agent.defaultRelease, '9.1');
  assert.equal(agent.releases, ['9.2-beta.3', '9.1']);
  assert.is(await servedTo(agent, {}), '9.1');
  assert.is(await servedTo(agent, { adcp_major_version: 9 }), '9.1');
  assert.is(await servedTo(agent, { adcp_version: '9.2-beta.3', adcp_major_version: 9 }), '9.2-beta.3');
  assert.is(await servedTo(agent, { adcp_version: '9.2' }), '9.1', 'a release pin never lands on a pre-release');
  // get_adcp_capabilities unpinned: answered in the default release; every served release still advertised.
  const caps = await agent.call('get_adcp_capabilities', {}, (_a: unknown, ctx: { release: string }) => agent.capabilities(ctx.release));
  assert.is(caps.structuredContent!.adcp_version, '9.1');
  assert.is(caps.structuredContent!.adcp.build_version, '9.1.0');
  assert.equal(caps.structuredContent!.adcp.supported_versions, ['9.1', '9.2-beta.3']);
  // The API's release arguments default to it too.
  assert.is(agent.capabilities().adcp.build_version, '9.1.0');
});

test('a profile naming its pre-release as default_release serves it to unpinned and major-only calls', async () => {
  const { loadProfile } = await setAt(join(repo, 'generated'));
  const agent = (await loadProfile('beta-sandbox' as never)) as unknown as Loaded;
  assert.is(agent.defaultRelease, '9.2-beta.3');
  assert.is(await servedTo(agent, {}), '9.2-beta.3');
  assert.is(await servedTo(agent, { adcp_major_version: 9 }), '9.2-beta.3');
  assert.is(await servedTo(agent, { adcp_version: '9.1' }), '9.1');
  assert.is(await servedTo(agent, { adcp_version: '9.3' }), '9.1', 'a release pin still never downshifts onto the pre-release');
  assert.is(agent.capabilities().adcp.build_version, '9.2.0-beta.3');
  // A rejection answered before a release is chosen (an unknown tool) is labelled with the default too.
  const { unknownToolResult } = await import('../runtime/agent.js');
  assert.is(unknownToolResult('nope', {}, agent.releases, agent.defaultRelease).structuredContent!.adcp_version, '9.2-beta.3');
});

test('a profile serving only pre-releases and naming none: a warning at generation (an error with --strict); unpinned calls refused', async () => {
  const dir = agentRepo({ 'beta-only': { releases: ['9.2-beta.3'] } });
  const run = await runCli(['generate'], dir);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /warning profiles\/beta-only\.json#\/default_release: serves only pre-releases \(9\.2-beta\.3\) and names no default_release/);
  const strict = await runCli(['generate', '--strict'], dir);
  assert.is(strict.code, 1);
  assert.match(strict.stderr, /profiles\/beta-only\.json#\/default_release: .*\(--strict\)/);
  const { loadProfile } = await setAt(join(dir, 'generated'));
  const agent = (await loadProfile('beta-only' as never)) as unknown as Loaded;
  assert.is(agent.defaultRelease, undefined);
  const refused = await agent.call('get_things', { adcp_major_version: 9, context: { c: 1 } }, things);
  assert.is(refused.structuredContent!.adcp_error.code, 'VERSION_UNSUPPORTED');
  assert.equal(refused.structuredContent!.adcp_error.details.supported_versions, ['9.2-beta.3']);
  assert.equal(refused.structuredContent!.context, { c: 1 });
  assert.is(await servedTo(agent, {}), 'VERSION_UNSUPPORTED');
  assert.is(await servedTo(agent, { adcp_version: '9.2-beta.3' }), '9.2-beta.3');
});

test('a bad default_release is a generation error naming the profile file and /default_release, and nothing is written', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ default_release: '9.0' }, /release 9\.0 is not one the profile serves \(it serves 9\.2-beta\.3, 9\.1\)/],
    [{ releases: ['9.1'], default_release: '9.2-beta.3' }, /release 9\.2-beta\.3 is not one the profile serves \(it serves 9\.1\)/],
    [{ default_release: '9.2.0-beta.3' }, /must match pattern/],
    [{ default_release: ['9.1'] }, /must be string/],
  ];
  for (const [fields, message] of cases) {
    const dir = agentRepo({ seller: fields });
    const run = await runCli(['generate'], dir);
    assert.is(run.code, 1, JSON.stringify(fields));
    assert.match(run.stderr, /profiles\/seller\.json#\/default_release/, JSON.stringify(fields));
    assert.match(run.stderr, message, JSON.stringify(fields));
    assert.not.match(run.stderr, /^\s+at /m, 'one line, no stack');
    assert.not.ok(existsSync(join(dir, 'generated/profiles')), 'no set written');
  }
  const ambiguous = agentRepo({ seller: { default_release: '9.2' } }, [stable, beta, tinyRelease({}, '9.2.0-beta.2')]);
  const run = await runCli(['generate'], ambiguous);
  assert.is(run.code, 1);
  assert.match(run.stderr, /#\/default_release: release 9\.2 is ambiguous: the profile serves 9\.2-beta\.3 and 9\.2-beta\.2; name one/);
});

test.run();

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadRelease } from '../generator/load/index.js';
import { undeclaredCapabilities } from '../generator/project/index.js';
import { runCli } from './helpers/cli.js';
import { tinyRelease, writeTree } from './helpers/fixture-release.js';
import { sdkReleaseDir } from './helpers/releases.js';

/**
 * Capability keys a release does not define (generator/project/capability-keys.ts): AdCP's capability objects are
 * mostly open, so a misspelt or invented key passes the schema and would reach every buyer as written.
 */
test('AdCP 3.0.6: invented and misspelt keys are named by pointer; declared ones, maps, free-form ext and the projection\'s lists are not', () => {
  const release = loadRelease(sdkReleaseDir());
  const capabilities = {
    adcp: { major_versions: [3], idempotency: { replay_ttl_seconds: 86400 } },
    supported_protocols: ['media_buy'],
    colour: 'blue',
    media_buy: { supported_pricing_models: ['cpm'], supported_delivery_types: ['guaranteed'], suported_formats: [] },
    ext: { anything: { goes: 1 } },
  };
  assert.equal(
    undeclaredCapabilities(capabilities, release).map((u) => [u.pointer, u.key]),
    [
      ['/capabilities/colour', 'colour'],
      ['/capabilities/media_buy/suported_formats', 'suported_formats'],
    ],
  );
});

test('generate: an undefined capability key is a warning naming file and pointer (advertised as written); --strict makes it an error', async () => {
  const release = tinyRelease();
  const caps = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'], colour: 'blue', media_buy: { lifecycle_tools: [] } };
  const work = writeTree({ 'p.json': { name: 'p', tools: ['get_adcp_capabilities', 'get_things'], capabilities: caps } });
  const run = await runCli(['generate', '--release', release, '--profile', 'p.json', '--out', 'out'], work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /p\.json#\/capabilities\/colour: capability "colour" is not defined by AdCP 9\.1\.0's get_adcp_capabilities response; it is advertised as written/);
  const strict = await runCli(['generate', '--strict', '--release', release, '--profile', 'p.json', '--out', 'out2'], work);
  assert.is(strict.code, 1);
  assert.match(strict.stderr, /p\.json#\/capabilities\/colour: capability "colour" is not defined.*\(--strict\)/);
});

test.run();

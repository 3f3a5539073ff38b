import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, snapshot } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixture-release.js';
import { exampleHandlers, setAt } from '../helpers/generated.js';
import { repoRoot, sharedReleaseDir, sharedReleaseKey } from '../helpers/releases.js';
import { EXPECTED_3_0 } from '../helpers/expected-selection.js';

/** The shared 3.2 release's key (`3.2-beta.5`): its AdCP wire version. */
const K32 = sharedReleaseKey();

/**
 * The real-release suite: every example profile generated against AdCP 3.0.6 (@adcp/sdk) and 3.2.0-beta.5 together,
 * plus a 3.2-only seller that claims the lifecycle tools, then served from one process to buyers pinned to either.
 */
const release32 = sharedReleaseDir();
if (release32 === undefined) throw new Error('../shared/adcp/3.2.0-beta.5 is required for the real-release suite');

const work = tempDir('adcp-codegen-real-');
cpSync(join(repoRoot, 'schemas'), join(work, 'schemas'), { recursive: true });
// An agent repository has its MCP SDK installed; the generated runtime resolves it from there.
symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
writeFileSync(
  join(work, 'schemas/profiles/lifecycle-seller.json'),
  JSON.stringify({
    name: 'lifecycle-seller',
    tools: ['get_adcp_capabilities', 'list_products', 'request_proposals', 'refine_proposals', 'accept_proposal', 'buy_products', 'control_media_buy', 'get_media_buys', 'comply_test_controller'],
    surface: 'sandbox',
    releases: ['3.2'],
    // A sandbox serving only the pre-release names it as its default: calls that pin no release are served it.
    default_release: '3.2',
    capabilities: {
      adcp: { major_versions: [3], idempotency: { supported: true, replay_ttl_seconds: 86400 } },
      supported_protocols: ['signals'],
      media_buy: {
        supported_pricing_models: ['cpm'],
        lifecycle_tools: ['list_products', 'request_proposals', 'accept_proposal', 'buy_products', 'control_media_buy'],
      },
    },
  }),
);
writeFileSync(
  join(work, 'adcp-codegen.config.json'),
  JSON.stringify({
    releases: [join(repoRoot, 'node_modules/@adcp/sdk/dist/lib/schemas-data/3.0'), release32],
    profiles: ['schemas/profiles/*.json'],
    normalizations: ['schemas/normalizations/*.json'],
    overlays: ['schemas/overlays/*.json'],
  }),
);
const out = join(work, 'generated');
let first: Record<string, string> = {};

/** Hand-checked against the 3.2.0-beta.5 manifest. */
const EXPECTED_3_2: Record<string, string[]> = {
  ...EXPECTED_3_0,
  // supported_protocols names only signals, which it implements no tool of: the base protocol and the exact lifecycle claims remain. refine_proposals and
  // get_media_buys are implemented but unclaimed, so not served; the sandbox surface admits comply_test_controller,
  // but its compliance protocol is not enabled, so it is not served either.
  'lifecycle-seller': ['accept_proposal', 'buy_products', 'control_media_buy', 'get_adcp_capabilities', 'list_products', 'request_proposals'],
};

test('3.0.6 and 3.2.0-beta.5 together with every example profile: success, then byte-identical and a no-op', async () => {
  let run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  first = snapshot(out);
  run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /nothing changed/);
  assert.equal(snapshot(out), first);
  run = await runCli(['generate', '--check'], work);
  assert.is(run.code, 0, run.stderr);
});

test('selection per profile and release matches the hand-checked expectation', () => {
  for (const [name, tools32] of Object.entries(EXPECTED_3_2)) {
    const profile = JSON.parse(readFileSync(join(out, `profiles/${name}.json`), 'utf8')).profile as { releases: { key: string; tools: string[] }[] };
    const byKey = Object.fromEntries(profile.releases.map((r) => [r.key, r.tools]));
    assert.equal(byKey[K32], tools32, `${name} on ${K32}`);
    if (name !== 'lifecycle-seller') assert.equal(byKey['3.0'], EXPECTED_3_0[name], `${name} on 3.0`);
    else assert.equal(Object.keys(byKey), [K32]);
  }
});

test('one process serves buyers pinned to 3.0 and 3.2; the endpoint advertises the 3.2 surface, structural, without outputSchema', async () => {
  const { loadProfile } = await setAt(out);
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
  assert.equal(agent.releases, [K32, '3.0']);
  const server = new McpServer({ name: 's', version: '1' });
  agent.registerMcp(server, await exampleHandlers(agent));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(b);
  const { tools } = await client.listTools();
  // Production default: no outputSchema (MCP clients would validate AdCP errors against it) and structural annotations.
  assert.ok(tools.every((t) => t.outputSchema === undefined));
  assert.not.match(JSON.stringify(tools), /"(title|examples|enumDescriptions|\$comment)":/);
  assert.match(JSON.stringify(agent.toolsList(K32).find((t) => t.name === 'get_products')!.inputSchema), /"buying_mode"/);

  const ask = async (pin: Record<string, unknown>) => {
    const r = (await client.callTool({ name: 'get_products', arguments: { buying_mode: 'brief', brief: 'homepage', brand: { domain: 'acme.example' }, ...pin } })) as {
      isError?: boolean;
      content: { text: string }[];
      structuredContent?: Record<string, unknown>;
    };
    assert.not.ok(r.isError, r.content[0]!.text);
    assert.equal(JSON.parse(r.content[0]!.text), r.structuredContent);
    return r.structuredContent!.adcp_version;
  };
  // A buyer that pins no release, or only the major, is served the stable 3.0; the pre-release only to its exact pin.
  assert.is(await ask({}), '3.0');
  assert.is(await ask({ adcp_version: K32 }), K32);
  // A release pin never lands on a pre-release (versioning.mdx): the 3.2 release is not served, 3.0 is below it.
  assert.is(await ask({ adcp_version: '3.2' }), '3.0');
  assert.is(await ask({ adcp_version: '3.1' }), '3.0');
  assert.is(await ask({ adcp_version: '3.0' }), '3.0');
  assert.is(await ask({ adcp_major_version: 3 }), '3.0');
  await client.close();

  // Interleaved buyers on both releases from one loaded agent each get their own answer.
  const results = await Promise.all(
    Array.from({ length: 400 }, (_, i) =>
      agent.call('get_products', { buying_mode: 'brief', brief: `b${i}`, adcp_version: i % 2 === 0 ? K32 : '3.0', context: { i } }, (args, ctx) => ({
        products: [],
        ...(ctx.release === K32 ? { cache_scope: 'public' } : {}),
        ...(args.brief === `b${i}` ? {} : { wrong: true }),
      })),
    ),
  );
  results.forEach((r, i) => {
    assert.not.ok(r.isError, r.content[0]!.text);
    const body = JSON.parse(r.content[0]!.text) as Record<string, unknown>;
    assert.equal(body.context, { i });
    assert.is(body.adcp_version, i % 2 === 0 ? K32 : '3.0');
  });
});

test('a 3.2-only profile: lifecycle claims served, its default_release to unpinned calls, VERSION_UNSUPPORTED for a 3.0 pin', async () => {
  const { loadProfile } = await setAt(out);
  const agent = await loadProfile('lifecycle-seller' as never, { mode: 'production' });
  assert.equal(agent.releases, [K32]);
  assert.is(agent.defaultRelease, K32);
  const unpinned = await agent.call('get_adcp_capabilities', {}, () => agent.capabilities(K32));
  assert.is(unpinned.structuredContent!.adcp_version, K32);
  const r = await agent.call('list_products', { adcp_version: '3.0', context: { k: 1 } }, () => ({}));
  const body = JSON.parse(r.content[0]!.text) as { adcp_error: { code: string; details: { supported_versions: string[] } }; context: unknown };
  assert.is(body.adcp_error.code, 'VERSION_UNSUPPORTED');
  assert.equal(body.adcp_error.details.supported_versions, [K32]);
  assert.equal(body.context, { k: 1 });
});

test.run();

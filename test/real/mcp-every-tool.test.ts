import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { randomUUID } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bundleSchema, refusedEnvelopeFields } from '../../generator/project/index.js';
import { loadRelease, type JsonSchemaObject, type Release } from '../../generator/load/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixture-release.js';
import { setAt } from '../helpers/generated.js';
import { repoRoot, sdkReleaseDir, sharedComplianceDir, sharedReleaseDir, sharedReleaseKey } from '../helpers/releases.js';
import { Sampler } from '../helpers/sampler.js';
import { loadStoryboardSamples } from '../helpers/storyboards.js';
import { serveAgent } from '../helpers/serve.js';

/** The shared 3.2 release's key (`3.2-beta.5`): its AdCP wire version. */
const K32 = sharedReleaseKey();

/**
 * The outside proof: agents for sandbox profiles selecting every tool of AdCP 3.2.0-beta.5 and every tool of the
 * embedded 3.0.6, served over MCP Streamable HTTP on 127.0.0.1 and driven by the official Client. listTools must
 * succeed (the client checks every entry); every tool answers a valid call with a schema-valid handler body, as
 * structuredContent the client accepts (for the profile advertising output schemas, the client validates it against
 * them, rejections included); every tool answers an invalid call with INVALID_REQUEST and the caller's context (the
 * compliance controller with its own INVALID_PARAMS).
 * Requests come from the compliance storyboards where one is valid for the tool, else from a schema-driven sampler;
 * handler bodies from the sampler. Both are checked with the generated validators before use.
 */
const release32Dir = sharedReleaseDir();
const complianceDir = sharedComplianceDir();
if (release32Dir === undefined || complianceDir === undefined) throw new Error('../shared/adcp is required for the real-release suite');
const r30 = loadRelease(sdkReleaseDir(), '@adcp/sdk');
const r32 = loadRelease(release32Dir, '3.2.0-beta.5');
const toolsOf = (r: Release): string[] => [...r.tools.keys()].filter((t) => !r.unavailable.has(t)).sort();

const work = tempDir('adcp-codegen-every-tool-');
symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
const caps = { adcp: { major_versions: [3], idempotency: { supported: true, replay_ttl_seconds: 86400 } }, supported_protocols: ['media_buy'] };
const profiles: Record<string, Record<string, unknown>> = {
  // Every tool as a shared tool: selected by exact name whatever its protocol (the sandbox admits compliance). Serving
  // only the pre-release, it names it as the default that calls pinning no release are served.
  'every-3-2': { name: 'every-3-2', tools: toolsOf(r32), shared_tools: toolsOf(r32), surface: 'sandbox', releases: ['3.2'], default_release: '3.2', capabilities: caps },
  'every-3-0': {
    name: 'every-3-0',
    tools: toolsOf(r30),
    shared_tools: toolsOf(r30),
    surface: 'sandbox',
    releases: ['3.0'],
    advertise: { outputSchema: true },
    capabilities: caps,
  },
  'both-releases': {
    name: 'both-releases',
    tools: ['get_adcp_capabilities', 'get_products', 'create_media_buy', 'list_accounts'],
    shared_tools: ['list_accounts'],
    advertise: { annotations: 'structural', outputSchema: true },
    capabilities: caps,
  },
};
mkdirSync(join(work, 'profiles'));
for (const [name, p] of Object.entries(profiles)) writeFileSync(join(work, 'profiles', `${name}.json`), JSON.stringify(p));
writeFileSync(join(work, 'adcp-codegen.config.json'), JSON.stringify({ releases: [sdkReleaseDir(), release32Dir], profiles: ['profiles/*.json'], out: 'generated' }));

type Agent = Awaited<ReturnType<Awaited<ReturnType<typeof setAt>>['loadProfile']>>;
type ToolResult = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: Record<string, any> };

const storyboards = loadStoryboardSamples(complianceDir).filter((s) => !s.expectError);

/** Self-contained canonical schemas, bundled once each (a 3.2 response closure takes ~0.1 s to bundle). */
const bundles = new Map<string, JsonSchemaObject>();
function bundled(release: Release, path: string): JsonSchemaObject {
  const key = `${release.key}\0${path}`;
  let doc = bundles.get(key);
  if (doc === undefined) bundles.set(key, (doc = bundleSchema(release, path)));
  return doc;
}

/** A request for `tool` the generated validator accepts: a storyboard's where one is valid, else a sampled one. */
function validRequest(agent: Agent, release: Release, tool: string): Record<string, unknown> {
  const ok = (req: unknown): req is Record<string, unknown> => agent.validateRequest(tool as never, req, { release: release.key }).ok;
  // Pinned to the release under test (a sampled pin is any version the pattern admits), with a context to echo, and
  // a fresh idempotency key: storyboards and the sampler reuse theirs, which the runtime would replay or refuse.
  const withContext = (req: Record<string, unknown>): Record<string, unknown> => {
    const pinned = { ...req };
    if (typeof pinned.idempotency_key === 'string') pinned.idempotency_key = randomUUID();
    if ('adcp_version' in pinned) pinned.adcp_version = release.key;
    if ('adcp_major_version' in pinned) pinned.adcp_major_version = release.major;
    const c = { ...pinned, context: { probe: tool, release: release.key } };
    return ok(c) ? c : pinned;
  };
  for (const s of storyboards) if (s.task === tool && ok(s.request)) return withContext(s.request);
  const sampled = new Sampler(bundled(release, release.tools.get(tool)!.requestSchema)).sample();
  assert.ok(ok(sampled), `${release.key} ${tool}: the sampler found no valid request`);
  return withContext(sampled);
}

/** A success body for `tool` that is valid once the runtime adds its envelope (checked with the generated validator). */
function validBody(agent: Agent, release: Release, tool: string): Record<string, unknown> {
  const def = release.tools.get(tool)!;
  const refused = refusedEnvelopeFields(release, def);
  const sampler = new Sampler(bundled(release, def.responseSchema));
  const sent = (b: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = { ...b, status: b.status ?? 'completed', adcp_version: release.key };
    for (const f of refused) if (f !== 'status' || b.status === undefined) delete out[f];
    return out;
  };
  const envelope = Object.fromEntries([['status', 'completed'], ['adcp_version', release.key]].filter(([k]) => !refused.includes(k!)));
  // A task whose own `status` is domain state (acquire_rights: "acquired") gets it from the handler instead.
  for (const seed of [envelope, { ...envelope, status: undefined }]) {
    const { status, ...rest } = seed as Record<string, unknown>;
    const body = sampler.sample(status === undefined ? rest : seed) as Record<string, unknown>;
    const { adcp_version: _v, ...handlerBody } = body;
    if (agent.validateResponse(tool as never, sent(handlerBody), { release: release.key }).ok) return handlerBody;
  }
  throw new Error(`${release.key} ${tool}: the sampler found no valid response body`);
}

/**
 * The same request with one declared property given a value of the wrong type: a schema failure for any tool.
 * Required properties first, then the others (never the version pins, whose failure is VERSION_UNSUPPORTED); the
 * first change the generated validator rejects.
 */
function invalidRequest(agent: Agent, release: Release, tool: string, valid: Record<string, unknown>): Record<string, unknown> {
  const doc = bundled(release, release.tools.get(tool)!.requestSchema) as { required?: string[]; properties?: Record<string, unknown> };
  const pins = new Set(['adcp_version', 'adcp_major_version', 'context']);
  const names = [...new Set([...(doc.required ?? []), ...Object.keys(valid), ...Object.keys(doc.properties ?? {}), 'ext'])].filter((n) => !pins.has(n));
  for (const name of names) {
    for (const wrong of [12345, 'not-a-valid-value', [12345]]) {
      const bad = { ...valid, [name]: wrong };
      if (!agent.validateRequest(tool as never, bad, { release: release.key }).ok) return bad;
    }
  }
  throw new Error(`${release.key} ${tool}: no invalid variant found`);
}

/** The buyer's API key: every server here requires it (apiKeyAuth), as a deployed agent does. */
const API_KEY = 'sk_every_tool_buyer';
const authenticator = async () => (await setAt(join(work, 'generated'))).apiKeyAuth({ [API_KEY]: { principal: 'every-tool-buyer' } });

/** A client presenting `key` (null: no credentials). */
async function connect(url: string, key: string | null = API_KEY): Promise<Client> {
  const client = new Client({ name: 'every-tool-buyer', version: '1.0.0' });
  const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

test('generate the every-tool profiles; every tools/list passed the MCP SDK check at build time', async () => {
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /tools\/list\(s\) accepted by the MCP SDK/);
});

for (const [profile, release] of [
  ['every-3-2', r32],
  ['every-3-0', r30],
] as const) {
  test(`${profile}: with the buyer's key, listTools, then every tool over Streamable HTTP — a valid call succeeds, an invalid one is INVALID_REQUEST with context; without it, only discovery`, async () => {
    const { loadProfile } = await setAt(join(work, 'generated'));
    const agent = await loadProfile(profile as never, { mode: 'development' });
    const tools = agent.tools();
    assert.equal([...tools], toolsOf(release), 'every tool of the release is served');
    if (release === r32) assert.is(tools.length, 72);
    const bodies = new Map(tools.filter((t) => t !== 'get_adcp_capabilities').map((t) => [t, validBody(agent, release, t)]));
    const handlers = Object.fromEntries([...bodies.keys()].map((t) => [t, () => structuredClone(bodies.get(t)!)]));
    const server = await serveAgent(agent, handlers, await authenticator());
    const client = await connect(server.url);
    const anonymous = await connect(server.url, null);
    try {
      // Without credentials: discovery (tools/list, get_adcp_capabilities) answers, every other tool is HTTP 401.
      assert.is((await anonymous.listTools()).tools.length, tools.length);
      assert.not.ok(((await anonymous.callTool({ name: 'get_adcp_capabilities', arguments: {} })) as ToolResult).isError);
      const protectedTool = tools.find((t) => t !== 'get_adcp_capabilities')!;
      const refused = await anonymous.callTool({ name: protectedTool, arguments: validRequest(agent, release, protectedTool) }).then((r) => `answered ${JSON.stringify(r).slice(0, 200)}`, (e: unknown) => String(e));
      // The client reports the 401's body: the entry's "unauthorized" / "invalid_token".
      assert.match(String(refused), /"error":"unauthorized"/, `${protectedTool} without credentials: ${refused}`);
      const wrong = await connect(server.url, 'sk_not_a_key').then(() => 'connected', (e: unknown) => String(e));
      assert.match(wrong, /"error":"invalid_token"/, 'a wrong key is refused from initialize on');

      const listed = await client.listTools();
      assert.equal(listed.tools.map((t) => t.name), [...tools]);
      const advertisesOutput = profiles[profile]!.advertise !== undefined;
      assert.is(listed.tools.every((t) => t.outputSchema !== undefined), advertisesOutput);
      for (const tool of tools) {
        const request = validRequest(agent, release, tool);
        const ok = (await client.callTool({ name: tool, arguments: request })) as ToolResult;
        assert.not.ok(ok.isError, `${tool}: ${ok.content[0]?.text}`);
        assert.equal(ok.structuredContent, JSON.parse(ok.content[0]!.text), tool);
        if (request.context !== undefined) assert.equal(ok.structuredContent!.context, request.context, `${tool}: context echoed`);

        const bad = invalidRequest(agent, release, tool, { ...request, context: { probe: `${tool}-invalid` } });
        assert.not.ok(agent.validateRequest(tool, bad, { release: release.key }).ok, `${tool}: the invalid request is invalid`);
        const rejected = (await client.callTool({ name: tool, arguments: bad })) as ToolResult;
        if (tool === 'comply_test_controller') {
          // The controller answers in its own vocabulary (comply-test-controller.mdx, "Error codes"): a task result.
          assert.not.ok(rejected.isError, tool);
          assert.equal([rejected.structuredContent!.success, rejected.structuredContent!.error], [false, 'INVALID_PARAMS'], `${tool}: ${rejected.content[0]!.text}`);
        } else {
          assert.ok(rejected.isError, tool);
          assert.is(rejected.structuredContent!.adcp_error.code, 'INVALID_REQUEST', `${tool}: ${rejected.content[0]!.text}`);
        }
        assert.equal(rejected.structuredContent!.context, { probe: `${tool}-invalid` }, `${tool}: context echoed on rejection`);
        assert.equal(rejected.structuredContent, JSON.parse(rejected.content[0]!.text));
      }
      const unknown = (await client.callTool({ name: 'no_such_tool', arguments: { context: { probe: 'unknown' } } })) as ToolResult;
      assert.is(unknown.structuredContent!.adcp_error.code, 'UNSUPPORTED_FEATURE');
      assert.equal(unknown.structuredContent!.context, { probe: 'unknown' });
    } finally {
      await Promise.all([client.close(), anonymous.close()]);
      await server.close();
    }
  });
}

test('both-releases: one outputSchema per tool admits the 3.2 body, the 3.0 body, an async body and the error body', async () => {
  const { loadProfile } = await setAt(join(work, 'generated'));
  const agent = await loadProfile('both-releases' as never, { mode: 'development' });
  assert.equal(agent.releases, [K32, '3.0']);
  const body32 = validBody(agent, r32, 'create_media_buy');
  const body30 = validBody(agent, r30, 'create_media_buy');
  const submitted = { status: 'submitted', task_id: 'task_1' };
  let next: unknown;
  const server = await serveAgent(
    agent,
    {
      get_products: () => validBody(agent, r32, 'get_products'),
      list_accounts: () => ({ accounts: [] }),
      create_media_buy: (_args: unknown, ctx: { release: string }) => next ?? (ctx.release === K32 ? body32 : body30),
    },
    await authenticator(),
  );
  const client = await connect(server.url);
  try {
    const { tools } = await client.listTools();
    const out = tools.find((t) => t.name === 'create_media_buy')!.outputSchema as unknown as { anyOf: unknown[]; description: string };
    assert.ok(out.anyOf.length >= 4, out.description);
    for (const release of [r32, r30]) {
      const request = { ...validRequest(agent, release, 'create_media_buy'), adcp_version: release.key, idempotency_key: randomUUID() };
      next = undefined;
      const ok = (await client.callTool({ name: 'create_media_buy', arguments: request })) as ToolResult;
      assert.not.ok(ok.isError, ok.content[0]?.text);
      assert.is(ok.structuredContent!.adcp_version, release.key);
      next = submitted;
      // A new key: the same one would replay the completed answer above (the runtime keeps the replay contract).
      const pending = (await client.callTool({ name: 'create_media_buy', arguments: { ...request, idempotency_key: randomUUID() } })) as ToolResult;
      assert.not.ok(pending.isError, pending.content[0]?.text);
      assert.is(pending.structuredContent!.status, 'submitted');
      const rejected = (await client.callTool({ name: 'create_media_buy', arguments: { ...request, packages: 'none' } })) as ToolResult;
      assert.is(rejected.structuredContent!.adcp_error.code, 'INVALID_REQUEST');
    }
    // A client validating against a schema that did not admit these bodies would have thrown above.
  } finally {
    await client.close();
    await server.close();
  }
});

test.run();

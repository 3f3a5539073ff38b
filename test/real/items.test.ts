import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { createRuntimeAjv, itemOutcomes } from '../../generator/compile/index.js';
import { bundleSchema } from '../../generator/project/index.js';
import { loadRelease, type JsonSchemaObject, type Release } from '../../generator/load/index.js';
import { isPlainObject } from '../../generator/shared/index.js';
import type { ItemOutcomesModule, ItemPairing } from '../../runtime/artifacts/contract.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixture-release.js';
import { setAt } from '../helpers/generated.js';
import { repoRoot, sdkReleaseDir, sharedComplianceDir, sharedReleaseDir } from '../helpers/releases.js';
import { Sampler } from '../helpers/sampler.js';
import { fillPlaceholders, loadStoryboardSamples } from '../helpers/storyboards.js';
import { serveAgent } from '../helpers/serve.js';

/**
 * Per-item outcomes (issue 19 point 2) on the real releases, over MCP Streamable HTTP with the official client: one
 * sandbox profile serving every batch tool of AdCP 3.0.6 and 3.2.0-beta.5, in development (so every merged body is
 * checked against its release's response schema before it is sent), each answer checked again with run-time Ajv.
 * For every tool whose response answers items row by row: a valid item and an item broken inside, in one call — the
 * broken one is its failed row, the handler gets the other; the broken item alone — the runtime answers it; and
 * AdCP's own vector, the notification_config_event_scope storyboard, step by step.
 */
const release32Dir = sharedReleaseDir();
const complianceDir = sharedComplianceDir();
if (release32Dir === undefined || complianceDir === undefined) throw new Error('../shared/adcp is required for the real-release suite');
const r30 = loadRelease(sdkReleaseDir(), '@adcp/sdk');
const r32 = loadRelease(release32Dir, '3.2.0-beta.5');
const batchTools = (r: Release) => [...r.tools.values()].filter((t) => !r.unavailable.has(t.name) && itemOutcomes(r, t) !== undefined).map((t) => t.name).sort();
const tools = [...new Set([...batchTools(r30), ...batchTools(r32)])].sort();

const work = tempDir('adcp-codegen-items-');
symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
mkdirSync(join(work, 'profiles'));
const caps = { adcp: { major_versions: [3], idempotency: { supported: true, replay_ttl_seconds: 86400 } }, supported_protocols: ['media_buy'] };
// A sandbox for 3.2's storyboards, as the reference seller's: calls that pin no release (the vector's) are served 3.2.
writeFileSync(join(work, 'profiles', 'batch.json'), JSON.stringify({ name: 'batch', tools: ['get_adcp_capabilities', ...tools], shared_tools: tools, surface: 'sandbox', default_release: r32.key, capabilities: caps }));
writeFileSync(join(work, 'adcp-codegen.config.json'), JSON.stringify({ releases: [sdkReleaseDir(), release32Dir], profiles: ['profiles/*.json'], out: 'generated' }));
type ToolResult = { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, any> };
type Row = Record<string, any>;
const storyboards = loadStoryboardSamples(complianceDir).filter((s) => !s.expectError);

test('the batch tools the schemas name, per release', () => {
  assert.equal(batchTools(r30), ['sync_accounts', 'sync_audiences', 'sync_catalogs', 'sync_creatives', 'sync_event_sources', 'sync_governance']);
  // 3.2's sync_catalogs says request-schema failures are operation-level in both modes: none there.
  assert.equal(batchTools(r32), ['preview_creative', 'sync_accounts', 'sync_audiences', 'sync_creatives', 'sync_event_sources', 'sync_governance']);
});

test('generate the batch profile over both releases', async () => {
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
});

const items = (release: Release, tool: string): ItemOutcomesModule =>
  createRequire(import.meta.url)(join(work, 'generated', `releases/${release.key}/items/${tool}.cjs`)) as ItemOutcomesModule;

/**
 * Where no storyboard sends a batch: preview_creative answers `requests[]` row by row only in its batch mode, which
 * `request_type` selects (the sampler otherwise takes the first mode, single).
 */
const SEEDS: Readonly<Record<string, Record<string, unknown>>> = { preview_creative: { request_type: 'batch' } };

/** A schema-valid request for `tool` with two items in an array answered row by row, each carrying its row's identity. */
function requestWith(release: Release, tool: string, module: ItemOutcomesModule, ok: (r: unknown) => boolean): Record<string, any> {
  const gate = module.gate === null ? {} : { [module.gate.property]: module.gate.value };
  const candidates = [
    ...storyboards.filter((s) => s.task === tool).map((s) => s.request as Record<string, any>),
    new Sampler(bundleSchema(release, release.tools.get(tool)!.requestSchema)).sample(SEEDS[tool] ?? {}) as Record<string, any>,
  ];
  for (const c of candidates) {
    const req: Record<string, any> = { ...c, ...gate, adcp_version: release.key };
    const pairing = module.pairings.find((p) => Array.isArray(req[p.request]) && req[p.request].length > 0);
    if (pairing === undefined) continue;
    const array = pairing.request;
    // An identifying field the item may carry but does not (a preview by manifest has no creative_id): give it one,
    // and drop what its schema then forbids beside it (the manifest).
    let first: Record<string, any> = { ...req[array][0] };
    for (const f of pairing.identity) if (first[f] === undefined) first[f] = `${f}_1`;
    for (const k of Object.keys(first)) {
      if (validItem(pairing, first) || pairing.identity.includes(k)) break;
      const { [k]: _dropped, ...rest } = first;
      if (validItem(pairing, rest)) first = rest;
    }
    req[array] = [first];
    // Two items: the first, and a copy with its identifying strings changed where that stays valid (a second
    // account, creative, …), else the same again.
    const second = structuredClone(req[array][0]);
    for (const f of pairing.identity) if (typeof second[f] === 'string') second[f] = `x${second[f]}`;
    for (const two of [{ ...req, [array]: [req[array][0], second] }, { ...req, [array]: [req[array][0], structuredClone(req[array][0])] }]) {
      if (ok(two)) return { request: two, array } as unknown as Record<string, any>;
    }
  }
  throw new Error(`${release.key} ${tool}: no valid request with items`);
}

function validItem(p: ItemPairing, item: unknown): boolean {
  const ok = p.validateItem(item) === true;
  p.validateItem.errors = null;
  return ok;
}

/**
 * The item broken inside, away from the fields its row copies: the first change its own validator refuses — a value
 * of the wrong type, a container replaced by a string, a field removed, an unknown field (a closed item).
 */
function broken(p: ItemPairing, item: Record<string, any>, declared: readonly string[]): Record<string, any> {
  const tries: ((copy: Record<string, any>) => void)[] = [];
  const at = (copy: Record<string, any>, path: string[]) => path.slice(0, -1).reduce((o, k) => o[k], copy);
  const visit = (node: unknown, path: string[]) => {
    const own = path.length === 1 && p.identity.includes(path[0]!);
    if (own) return;
    if (path.length > 0) {
      const wrong = typeof node === 'string' ? 12345 : isPlainObject(node) ? 'not-an-object' : Array.isArray(node) ? 'not-an-array' : 'not-a-valid-value';
      tries.push((c) => void (at(c, path)[path[path.length - 1]!] = wrong));
    }
    if (Array.isArray(node)) node.forEach((v, i) => visit(v, [...path, String(i)]));
    else if (isPlainObject(node)) for (const [k, v] of Object.entries(node)) visit(v, [...path, k]);
  };
  visit(item, []);
  for (const k of Object.keys(item)) if (!p.identity.includes(k)) tries.push((c) => void delete c[k]);
  tries.push((c) => void (c.adcp_probe_unknown_field = true));
  // A field the item's schema declares but this item lacks, given a value of no JSON Schema type it could have.
  for (const k of declared) if (!(k in item)) for (const wrong of [12345, 'not-a-valid-value', {}]) tries.push((c) => void (c[k] = wrong));
  for (const change of tries) {
    const copy = structuredClone(item);
    change(copy);
    const ok = p.validateItem(copy) === true;
    p.validateItem.errors = null;
    if (!ok) return copy;
  }
  throw new Error(`no change to the item is refused by its schema: ${JSON.stringify(item).slice(0, 200)}`);
}

/**
 * A handler row for an item: a row the row schema admits (sampled, so conditional requirements are met), with the
 * item's identifying fields, and each outcome field at a value that is not a failure.
 */
function successRow(release: Release, tool: string, p: ItemPairing, item: Record<string, any>): Row {
  const schema = bundleSchema(release, release.tools.get(tool)!.responseSchema) as JsonSchemaObject;
  const arm = ([...((schema.oneOf as JsonSchemaObject[] | undefined) ?? []), schema] as JsonSchemaObject[]).find((a) => isPlainObject(a.properties) && p.response in (a.properties as object))!;
  const rowSchema = resolve(schema, (arm.properties as Record<string, JsonSchemaObject>)[p.response]!.items as JsonSchemaObject);
  const seed: Row = {};
  for (const f of p.identity) seed[f] = item[f];
  for (const [f, failure] of Object.entries(p.outcome)) {
    const prop = resolve(schema, (rowSchema.properties as Record<string, JsonSchemaObject>)[f]!);
    seed[f] = typeof failure === 'boolean' ? !failure : (prop.enum as unknown[]).find((v) => v !== 'failed' && v !== 'rejected');
  }
  const sampled = new Sampler({ ...rowSchema, $defs: schema.$defs } as Record<string, unknown>).sample(seed) as Row;
  return { ...sampled, ...seed };
}

/** The properties the request's items declare (the bundled request schema). */
function declaredItemFields(release: Release, tool: string, array: string): string[] {
  const schema = bundleSchema(release, release.tools.get(tool)!.requestSchema) as JsonSchemaObject;
  const items = resolve(schema, resolve(schema, (schema.properties as Record<string, JsonSchemaObject>)[array]!).items as JsonSchemaObject);
  return Object.keys((items.properties as object | undefined) ?? {});
}

function resolve(root: JsonSchemaObject, node: JsonSchemaObject): JsonSchemaObject {
  let n = node;
  for (let i = 0; i < 8 && typeof n.$ref === 'string' && n.$ref.startsWith('#/'); i++) {
    n = n.$ref.slice(2).split('/').reduce((o: any, k) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], root) as JsonSchemaObject;
  }
  return n;
}

for (const release of [r30, r32]) {
  test(`${release.version}: every batch tool over MCP — the broken item is its failed row, the handler answers the other; alone, the runtime answers it`, async () => {
    const { loadProfile } = await setAt(join(work, 'generated'));
    const agent = await loadProfile('batch' as never, { mode: 'development' });
    const ajv = createRuntimeAjv(release);
    const served: string[] = [];
    const seen: Record<string, any>[] = [];
    let answer: (args: Record<string, any>) => unknown = () => ({});
    // One handler per release (never converted): each answers in the release under test.
    const handlers = Object.fromEntries(
      tools.map((t) => {
        const fn = (args: Record<string, any>, ctx: Record<string, any>) => (seen.push({ tool: t, args, ctx }), answer(args));
        return [t, Object.fromEntries([r30, r32].filter((r) => r.tools.has(t) && !r.unavailable.has(t)).map((r) => [r.key, fn]))];
      }),
    );
    const server = await serveAgent(agent, handlers);
    const client = new Client({ name: 'batch-buyer', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      for (const tool of batchTools(release)) {
        const module = items(release, tool);
        const { request, array } = requestWith(release, tool, module, (r) => agent.validateRequest(tool as never, r, { release: release.key }).ok) as unknown as { request: Record<string, any>; array: string };
        const p = module.pairings.find((x) => x.request === array)!;
        const bad = broken(p, request[array][1], declaredItemFields(release, tool, array));
        const validate = ajv.getSchema(release.schemas.byPath.get(release.tools.get(tool)!.responseSchema)!.id)!;
        answer = (args) => ({ ...(module.body ?? {}), [p.response]: args[array].map((item: Row) => successRow(release, tool, p, item)) });

        seen.length = 0;
        // A storyboard's request carries its own fixed idempotency_key, and the two calls here differ: each its own key,
        // or the second is the agent's IDEMPOTENCY_CONFLICT.
        const key = (): Record<string, string> => (typeof request.idempotency_key === 'string' ? { idempotency_key: randomUUID() } : {});
        const mixed = (await client.callTool({ name: tool, arguments: { ...request, ...key(), [array]: [request[array][0], bad], context: { probe: tool } } })) as ToolResult;
        assert.not.ok(mixed.isError, `${release.key} ${tool}: ${mixed.content[0]?.text}`);
        const body = mixed.structuredContent!;
        assert.ok(validate(body), `${release.key} ${tool}: ${JSON.stringify(validate.errors)}`);
        const rows = body[p.response] as Row[];
        assert.is(rows.length, 2, tool);
        for (const [f, v] of Object.entries(p.outcome)) assert.is(rows[1]![f], v, `${tool}: ${f}`);
        for (const f of p.identity) assert.equal(rows[1]![f], bad[f], `${tool}: ${f} copied`);
        assert.is(rows[1]!.errors[0].code, 'INVALID_REQUEST');
        assert.ok(!rows[1]!.errors[0].field.startsWith(array), `${tool}: field relative to the item (${rows[1]!.errors[0].field})`);
        assert.is(rows[1]!.errors[0].field, rows[1]!.errors[0].issues[0].pointer.slice(1).replace(/\/(\d+)/g, '[$1]').replace(/\//g, '.'));
        assert.ok(rows[1]!.errors[0].issues[0].schema_id.startsWith(`https://adcontextprotocol.org/schemas/${release.version}/`) || rows[1]!.errors[0].issues[0].schema_id.startsWith(`/schemas/${release.version}/`));
        assert.equal(body.context, { probe: tool });
        assert.is(seen.length, 1);
        assert.is(seen[0]!.args[array].length, 1, `${tool}: the handler got the valid item only`);
        assert.equal(seen[0]!.ctx.requestIndex, { [array]: [0] });

        seen.length = 0;
        const alone = (await client.callTool({ name: tool, arguments: { ...request, ...key(), [array]: [bad] } })) as ToolResult;
        assert.not.ok(alone.isError, `${release.key} ${tool}: ${alone.content[0]?.text}`);
        assert.ok(validate(alone.structuredContent), `${release.key} ${tool}: ${JSON.stringify(validate.errors)}`);
        assert.is((alone.structuredContent![p.response] as Row[])[0]!.errors[0].code, 'INVALID_REQUEST');
        assert.is(seen.length, 0, `${tool}: the handler never sees an invalid item`);
        served.push(tool);
      }
      assert.equal(served, batchTools(release));
    } finally {
      await client.close();
      await server.close();
    }
  });
}

test('AdCP\'s own vector: notification_config_event_scope, every validation of its step, over MCP', async () => {
  const { loadProfile } = await setAt(join(work, 'generated'));
  const doc = parse(readFileSync(join(complianceDir, 'universal/notification-config-event-scope.yaml'), 'utf8')) as { phases: { steps: Record<string, any>[] }[] };
  const step = doc.phases[0]!.steps[0]!;
  assert.is(step.task, 'sync_accounts');
  const ajv = createRuntimeAjv(r32);
  const validate = ajv.getSchema(r32.schemas.byPath.get(step.response_schema_ref)!.id)!;
  for (const mode of ['production', 'development'] as const) {
    const agent = await loadProfile('batch' as never, { mode });
    let called = false;
    const handlers = Object.fromEntries(tools.map((t) => [t, Object.fromEntries([r30, r32].filter((r) => r.tools.has(t) && !r.unavailable.has(t)).map((r) => [r.key, () => ((called = true), {})]))]));
    const server = await serveAgent(agent, handlers);
    const client = new Client({ name: 'storyboard-runner', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const r = (await client.callTool({ name: 'sync_accounts', arguments: fillPlaceholders(step.sample_request) as Record<string, unknown> })) as ToolResult;
      assert.not.ok(r.isError, r.content[0]!.text);
      const body = r.structuredContent!;
      assert.is(body.adcp_version, r32.key, 'answered in 3.2');
      for (const v of step.validations as { check: string; path?: string; value?: unknown; allowed_values?: unknown[] }[]) {
        if (v.check === 'response_schema') assert.ok(validate(body), JSON.stringify(validate.errors));
        else if (v.check === 'field_value') {
          const actual = v.path!.split(/\.|\[(\d+)\]/).filter((k) => k !== undefined && k !== '').reduce((o: any, k) => o?.[k], body);
          if (v.allowed_values !== undefined) assert.ok(v.allowed_values.includes(actual), `${v.path}: ${JSON.stringify(actual)}`);
          else assert.equal(actual, v.value, v.path);
        } else throw new Error(`unexpected check ${v.check}`);
      }
      assert.not.ok(called, 'the handler never sees the invalid account');
    } finally {
      await client.close();
      await server.close();
    }
  }
});

test.run();

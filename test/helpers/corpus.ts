import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { loadRelease, type JsonSchemaObject, type Release } from '../../generator/load/index.js';
import { bundleSchema, refusedEnvelopeFields, statusIsDomainState } from '../../generator/project/index.js';
import { runCli } from './cli.js';
import { tempDir } from './fixture-release.js';
import { setAt } from './generated.js';
import { repoRoot, sdkReleaseDir } from './releases.js';
import { Sampler, type SampleOptions } from './sampler.js';
import { loadStoryboardSamples, type StoryboardSample } from './storyboards.js';

/**
 * The conversion corpus (issue 21): valid newer-release response bodies for every tool AdCP 3.0.6 and 3.2.0-beta.5
 * both serve, and valid 3.0.6 requests, generated into one two-release set whose handlers are written in 3.2's
 * shape. Bodies come from the response schemas' own `examples`, the storyboards' `sample_response`s, the example
 * seller's handlers, and the schema-driven sampler (minimal, rich, last-arm); every one is kept only when the
 * generated 3.2 validator (Ajv over the canonical schema) accepts it as the runtime would send it. Requests come
 * from the 3.0.6 storyboards in @adcp/sdk where one validates, else from the sampler. test/real/convert-corpus.test.ts
 * asserts on it; bench/convert.ts reports it.
 */

export interface CorpusBody {
  readonly tool: string;
  readonly source: 'schema example' | 'storyboard' | 'example seller' | 'sampled minimal' | 'sampled rich' | 'sampled last';
  readonly body: Record<string, unknown>;
}

type Result = { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, any> };
export interface CorpusAgent {
  readonly releases: readonly string[];
  tools(release?: string): readonly string[];
  call(tool: string, args: unknown, handler: unknown, ctx?: Record<string, unknown>): Promise<Result>;
  validateRequest(tool: string, args: unknown, options?: { release?: string }): { ok: boolean; issues?: { pointer: string; keyword: string; message: string; missingProperty?: string }[] };
  validateResponse(tool: string, body: unknown, options?: { release?: string }): { ok: boolean; issues?: { pointer: string; message: string }[] };
  normalize(tool: string, args: unknown, options?: { release?: string }): { value: unknown };
  strip(tool: string, args: unknown, options?: { release?: string }): { value: unknown };
}

export interface ConversionSet {
  /** The newer release's compliance storyboards, when this machine has them. */
  readonly newerCompliance?: string;
  readonly newer: Release;
  readonly older: Release;
  readonly tools: readonly string[];
  readonly out: string;
  /** Development mode: validates what it answers. */
  readonly agent: CorpusAgent;
  /** Production mode, where conversions matter most: what a production buyer gets. */
  readonly production: CorpusAgent;
}

/** 3.0.6's storyboards, shipped inside @adcp/sdk (so npm test has them too). */
export function sdkComplianceDir(): string {
  return join(sdkReleaseDir(), '../../../../compliance/cache/3.0.6');
}

/** A sandbox profile serving every tool both releases can serve, generated into a temporary agent repository. */
export async function conversionSet(newerDir: string, newerCompliance?: string): Promise<ConversionSet> {
  const older = loadRelease(sdkReleaseDir(), '@adcp/sdk');
  const newer = loadRelease(newerDir);
  const available = (r: Release, t: string): boolean => r.tools.has(t) && !r.unavailable.has(t);
  const tools = [...newer.tools.keys()].filter((t) => available(newer, t) && available(older, t)).sort();
  const work = tempDir('adcp-codegen-conversion-set-');
  symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
  mkdirSync(join(work, 'profiles'));
  const capabilities = { adcp: { major_versions: [3], idempotency: { supported: true, replay_ttl_seconds: 86400 } }, supported_protocols: ['media_buy'] };
  writeFileSync(join(work, 'profiles/both.json'), JSON.stringify({ name: 'both', tools, shared_tools: tools, surface: 'sandbox', capabilities }));
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'agent', private: true, type: 'module' }));
  writeFileSync(
    join(work, 'adcp-codegen.config.json'),
    JSON.stringify({ releases: [sdkReleaseDir(), newerDir], profiles: ['profiles/*.json'], normalizations: [join(repoRoot, 'schemas/normalizations/*.json')], out: 'generated' }),
  );
  const run = await runCli(['generate'], work);
  if (run.code !== 0) throw new Error(`generating the conversion set failed:\n${run.stderr}`);
  const out = join(work, 'generated');
  const { loadProfile } = await setAt(out);
  const agent = (await loadProfile('both' as never, { mode: 'development' })) as unknown as CorpusAgent;
  const production = (await loadProfile('both' as never, { mode: 'production' })) as unknown as CorpusAgent;
  return { newerCompliance, newer, older, tools, out, agent, production };
}

/** Self-contained canonical schemas, bundled once each. */
const bundles = new Map<string, JsonSchemaObject>();
function bundled(release: Release, path: string): JsonSchemaObject {
  const key = `${release.key}\0${path}`;
  let doc = bundles.get(key);
  if (doc === undefined) bundles.set(key, (doc = bundleSchema(release, path)));
  return doc;
}

/** The body as the runtime sends it in `release`: its envelope added (status, adcp_version), refused fields left out. */
export function sentAs(release: Release, tool: string, body: Record<string, unknown>): Record<string, unknown> {
  const def = release.tools.get(tool)!;
  const refused = refusedEnvelopeFields(release, def);
  const out: Record<string, unknown> = { ...body, adcp_version: release.key };
  if (body.status === undefined && !statusIsDomainState(release, def)) out.status = 'completed';
  for (const f of refused) if (f !== 'status' || body.status === undefined) delete out[f];
  return out;
}

/** Envelope fields a handler does not send: the runtime's own. */
function handlerBody(body: Record<string, unknown>): Record<string, unknown> {
  const { adcp_version: _v, adcp_major_version: _m, context: _c, ...rest } = body;
  return rest;
}

/** Every valid newer-release body of the corpus, by source. */
export async function responseCorpus(set: ConversionSet): Promise<CorpusBody[]> {
  const { newer, agent } = set;
  const out: CorpusBody[] = [];
  const seen = new Set<string>();
  const keep = (tool: string, source: CorpusBody['source'], raw: unknown): void => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
    // An `adcp_error` member makes a body the runtime's error answer, not a response: not one to convert.
    if ('adcp_error' in raw) return;
    const body = handlerBody(raw as Record<string, unknown>);
    const key = `${tool}\0${JSON.stringify(body)}`;
    if (seen.has(key) || !agent.validateResponse(tool, sentAs(newer, tool, body), { release: newer.key }).ok) return;
    seen.add(key);
    out.push({ tool, source, body });
  };
  for (const tool of set.tools) {
    const def = newer.tools.get(tool)!;
    for (const path of [def.responseSchema, ...def.asyncResponseSchemas]) {
      const file = newer.schemas.byPath.get(path);
      for (const example of Array.isArray(file?.schema.examples) ? (file!.schema.examples as unknown[]) : []) keep(tool, 'schema example', exampleValue(example));
    }
  }
  if (set.newerCompliance !== undefined) for (const s of storyboardResponses(set.newerCompliance)) if (set.tools.includes(s.task)) keep(s.task, 'storyboard', s.response);
  for (const [tool, body] of await sellerBodies(set)) keep(tool, 'example seller', body);
  const minimal = new Map<string, Record<string, unknown>>();
  for (const tool of set.tools) {
    const def = newer.tools.get(tool)!;
    const sampler = new Sampler(bundled(newer, def.responseSchema));
    const envelope = Object.fromEntries([['status', 'completed'], ['adcp_version', newer.key]].filter(([k]) => !refusedEnvelopeFields(newer, def).includes(k!)));
    for (const [variant, source] of [
      ['minimal', 'sampled minimal'],
      ['rich', 'sampled rich'],
      ['last', 'sampled last'],
    ] as const) {
      // A task whose own `status` is domain state gets it from the sampler instead of the envelope.
      for (const seed of [envelope, { ...envelope, status: undefined }]) {
        const { status, ...rest } = seed as Record<string, unknown>;
        const sample = sampler.sample(status === undefined ? rest : seed, { variant } satisfies SampleOptions) as Record<string, unknown>;
        // The rich samplers fill the envelope's optional error member too: a response has none.
        if (sample !== null && typeof sample === 'object') delete sample.adcp_error;
        if (variant === 'minimal' && !minimal.has(tool)) minimal.set(tool, sample);
        keep(tool, source, sample);
      }
    }
  }
  // The examples of the definitions a body lists (core/product.json's products in a get_products body): each in a
  // minimal body of its tool, as the only element of its list.
  for (const tool of set.tools) {
    const base = minimal.get(tool);
    if (base === undefined) continue;
    for (const [member, examples] of listedExamples(newer, newer.tools.get(tool)!.responseSchema)) {
      for (const example of examples) keep(tool, 'schema example', { ...base, [member]: [exampleValue(example)] });
    }
  }
  return out;
}

/** AdCP examples are `{ description, data }` (the body in `data`), or the value itself. */
function exampleValue(example: unknown): unknown {
  return example !== null && typeof example === 'object' && 'data' in example ? (example as { data: unknown }).data : example;
}

/** Per root list of a response (its members and its arms'), the `examples` of the definition its items refer to. */
function listedExamples(release: Release, path: string): [string, unknown[]][] {
  const out: [string, unknown[]][] = [];
  const seen = new Set<unknown>();
  const resolve = (node: unknown): Record<string, unknown> | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    const ref = release.graph.referenceAt(node);
    return (ref?.target?.schema ?? node) as Record<string, unknown>;
  };
  const visit = (node: Record<string, unknown> | undefined): void => {
    if (node === undefined || seen.has(node)) return;
    seen.add(node);
    for (const [name, prop] of Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>)) {
      const items = resolve(resolve(prop)?.items);
      if (Array.isArray(items?.examples) && items!.examples.length > 0) out.push([name, items!.examples as unknown[]]);
    }
    for (const k of ['allOf', 'oneOf', 'anyOf']) for (const arm of (node[k] ?? []) as unknown[]) visit(resolve(arm));
  };
  visit(release.schemas.byPath.get(path)?.schema);
  return out;
}

/** `sample_response`s of storyboard steps, by task. */
function storyboardResponses(complianceDir: string): { task: string; response: unknown }[] {
  const out: { task: string; response: unknown }[] = [];
  for (const file of yamlFiles(complianceDir)) {
    const doc = parse(readFileSync(file, 'utf8')) as { phases?: { steps?: { task?: unknown; sample_response?: unknown }[] }[] };
    for (const phase of doc?.phases ?? []) for (const step of phase?.steps ?? []) if (typeof step?.task === 'string' && step.sample_response !== undefined) out.push({ task: step.task, response: step.sample_response });
  }
  return out;
}

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...yamlFiles(full));
    else if (/\.ya?ml$/.test(name)) out.push(full);
  }
  return out;
}

/**
 * The reference seller's answers (examples/seller-agent.js `createSellerHandlers`) to a valid newer request of each
 * tool it implements: the tools of its profile (schemas/profiles/guaranteed-publisher.json), served here in the newer
 * release alone, so each is one function in that release's shape.
 */
async function sellerBodies(set: ConversionSet): Promise<[string, unknown][]> {
  const path = join(repoRoot, 'examples/seller-agent.js');
  if (!existsSync(path)) return [];
  const mod = (await import(pathToFileURL(path).href)) as { createSellerHandlers?: (agent: unknown) => Record<string, (args: unknown, ctx: unknown) => unknown> };
  if (typeof mod.createSellerHandlers !== 'function') throw new Error('examples/seller-agent.js no longer exports createSellerHandlers: the conversion corpus reads the example seller through it');
  const profile = JSON.parse(readFileSync(join(repoRoot, 'schemas/profiles/guaranteed-publisher.json'), 'utf8')) as { tools: string[] };
  const tools = profile.tools.filter((t) => set.tools.includes(t));
  const handlers = mod.createSellerHandlers({
    releases: [set.newer.key],
    tools: () => tools,
    capabilities: () => ({}),
    toolsList: () => [],
    validateResponse: (tool: string, body: unknown, options: { release: string }) => set.agent.validateResponse(tool, body, options),
  });
  const out: [string, unknown][] = [];
  for (const tool of set.tools) {
    const h = handlers[tool];
    if (typeof h !== 'function') continue;
    try {
      out.push([tool, await h(validRequest(set, set.newer, tool), { tool, release: set.newer.key, mode: 'development', normalized: [], stripped: [] })]);
    } catch {
      // A stub that needs state it does not have (no media buy created yet) gives no body: nothing to convert.
    }
  }
  return out;
}

let olderStoryboards: StoryboardSample[] | undefined;
let newerStoryboards: StoryboardSample[] | undefined;

/** Storyboard requests of a release's compliance suite that are not deliberate negatives. */
export function storyboardRequests(dir: string): StoryboardSample[] {
  return loadStoryboardSamples(dir).filter((s) => !s.expectError);
}

/** A request for `tool` valid in `release` (the generated validator says so), pinned to it. */
export function validRequest(set: ConversionSet, release: Release, tool: string): Record<string, unknown> {
  const ok = (req: unknown): req is Record<string, unknown> => set.agent.validateRequest(tool, req, { release: release.key }).ok;
  const pin = (req: Record<string, unknown>): Record<string, unknown> => {
    const pinned = { ...req, adcp_version: release.key };
    return ok(pinned) ? pinned : req;
  };
  const samples = release === set.older ? (olderStoryboards ??= storyboardRequests(sdkComplianceDir())) : (newerStoryboards ??= set.newerCompliance === undefined ? [] : storyboardRequests(set.newerCompliance));
  for (const s of samples) if (s.task === tool && ok(s.request)) return pin(s.request);
  const sampled = new Sampler(bundled(release, release.tools.get(tool)!.requestSchema)).sample();
  if (!ok(sampled)) throw new Error(`${release.key} ${tool}: the sampler found no valid request`);
  return pin(sampled);
}

export interface Measured {
  readonly entry: CorpusBody;
  /** Valid under the older release with no conversion at all (the body as written, in the older envelope). */
  readonly validAsIs: boolean;
  /** What a production buyer pinned to the older release received, converted. */
  readonly sent: Record<string, unknown>;
  /** Why the body sent is not valid under the older release's canonical response schema; empty when it is. */
  readonly issues: readonly string[];
}

/**
 * Each corpus body answered to a buyer pinned to the older release by a handler written in the newer shape, in
 * production (conversions run; nothing is validated on the way out), then checked with the older release's
 * generated validator.
 */
export async function measureDown(set: ConversionSet, corpus: readonly CorpusBody[]): Promise<Measured[]> {
  const out: Measured[] = [];
  const requests = new Map<string, Record<string, unknown>>();
  for (const entry of corpus) {
    let request = requests.get(entry.tool);
    // Pinned even where the older request declares no adcp_version (3.0's check_governance): production strips it.
    if (request === undefined) requests.set(entry.tool, (request = { ...validRequest(set, set.older, entry.tool), adcp_version: set.older.key }));
    const validAsIs = set.agent.validateResponse(entry.tool, sentAs(set.older, entry.tool, entry.body), { release: set.older.key }).ok;
    const result = await set.production.call(entry.tool, request, () => structuredClone(entry.body));
    const sent = result.structuredContent ?? {};
    const verdict = result.isError === true ? { ok: false, issues: [{ pointer: '', message: `answered as an error: ${result.content[0]!.text}` }] } : set.agent.validateResponse(entry.tool, sent, { release: set.older.key });
    out.push({ entry, validAsIs, sent, issues: verdict.ok ? [] : (verdict.issues ?? []).map((i) => `${i.pointer} ${i.message}`) });
  }
  return out;
}

export interface MeasuredRequest {
  readonly sample: StoryboardSample;
  readonly validAsIs: boolean;
  /** After the up-conversion the handler receives: valid under the newer release. */
  readonly valid: boolean;
  /** Valid but for `required` fields the older release does not send (the handler's args type makes those optional). */
  readonly validButGaps: boolean;
  readonly issues: readonly string[];
}

/**
 * The 3.0.6 storyboard requests (valid there) of the tools both serve, converted up as the runtime converts them
 * for a handler written in the newer shape: conversion rules, then the newer normalizer and deep-strip.
 */
export async function measureUp(set: ConversionSet, gaps: (tool: string) => readonly string[]): Promise<MeasuredRequest[]> {
  const { agent, older, newer } = set;
  const out: MeasuredRequest[] = [];
  for (const sample of storyboardRequests(sdkComplianceDir())) {
    if (!set.tools.includes(sample.task)) continue;
    const tool = sample.task;
    const parsed = agent.strip(tool, agent.normalize(tool, sample.request, { release: older.key }).value, { release: older.key }).value;
    if (!agent.validateRequest(tool, parsed, { release: older.key }).ok) continue;
    const validAsIs = agent.validateRequest(tool, parsed, { release: newer.key }).ok;
    const converted = conversionModule(set, tool).request(parsed).value;
    const up = agent.strip(tool, agent.normalize(tool, converted, { release: newer.key }).value, { release: newer.key }).value;
    const verdict = agent.validateRequest(tool, up, { release: newer.key });
    const allowed = new Set(gaps(tool));
    const issues = (verdict.issues ?? []).map((i) => `${i.pointer} ${i.keyword} ${i.message}`);
    const onlyGaps = (verdict.issues ?? []).every((i) => i.keyword === 'required' && i.missingProperty !== undefined && allowed.has(placeOf(i.pointer)));
    out.push({ sample, validAsIs, valid: verdict.ok, validButGaps: verdict.ok || onlyGaps, issues });
  }
  return out;
}

/** `/packages/0` + `bidding` → `packages/*\/bidding`: an issue's place as the gaps name it. */
/** Where a missing property belongs, array indices as `*`: its issue's pointer is the property's own. */
function placeOf(pointer: string): string {
  return pointer === '' ? '' : pointer.slice(1).split('/').map((t) => (/^\d+$/.test(t) ? '*' : t)).join('/');
}

/** The generated conversion module of a tool between the set's two releases. */
export function conversionModule(set: ConversionSet, tool: string): { request(args: unknown): { value: unknown; applied: unknown[] }; response(body: unknown, request: unknown): { value: unknown; applied: unknown[] } } {
  const index = createRequire(import.meta.url)(join(set.out, `releases/${set.older.key}/convert/${set.newer.key}/index.cjs`)) as Record<string, ReturnType<typeof conversionModule>>;
  return index[tool]!;
}

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileStrip, compileStripModules, compileStripSource, interpretStrip } from '../generator/compile/index.js';
import { sha256, shortHash } from '../generator/shared/index.js';
import { loadRelease, type Release, releaseAjv } from '../generator/load/index.js';
import type { StripModule } from '../runtime/artifacts/contract.js';
import { tempDir } from './helpers/fixture-release.js';
import { sdkReleaseDir } from './helpers/releases.js';
import { writeEmitted } from './helpers/differential.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { isObj } from './helpers/strips.js';

const requireCjs = createRequire(import.meta.url);

/** Deep-strip modules emitted for AdCP 3.0.6: one per tool, shared definitions packed, loaded on first use. */

// ── the 3.0.6 release from @adcp/sdk, through the emitted modules ─────────────────────────────────────────────

const release: Release = loadRelease(sdkReleaseDir());
const emitted = compileStripModules(release);

/** Description texts of a schema (long enough to be unmistakable in generated code). */
function descriptions(schema: unknown, out: string[] = []): string[] {
  if (Array.isArray(schema)) schema.forEach((x) => descriptions(x, out));
  else if (isObj(schema)) {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'description' && typeof v === 'string' && v.length > 30) out.push(v.slice(0, 30));
      else descriptions(v, out);
    }
  }
  return out;
}

function writeModules(files: ReturnType<typeof compileStripModules>): string {
  const out = tempDir('adcp-strip-');
  writeEmitted(out, files);
  return out;
}

test('3.0.6: one strip module per available tool, shared modules content-addressed, deterministic, self-contained', () => {
  const tools = [...release.tools.keys()].filter((t) => !release.unavailable.has(t));
  for (const t of tools) assert.ok(emitted.some((f) => f.path === `releases/3.0/strip/${t}.cjs`), t);
  for (const t of release.unavailable.keys()) assert.not.ok(emitted.some((f) => f.path === `releases/3.0/strip/${t}.cjs`), t);
  for (const f of emitted) {
    if (f.path.includes('/_shared/')) assert.ok(f.path.endsWith(`.${shortHash(sha256(f.contents))}.cjs`), `${f.path} named by its content`);
    for (const [, spec] of f.contents.matchAll(/require\("([^"]*)"\)/g)) assert.ok(spec!.startsWith('./'), `${f.path} requires only relative paths`);
    for (const i of f.inputs) {
      const file = [...release.schemas.byPath.values()].find((x) => `adcp-3.0.6:${x.path}` === i.name)!;
      for (const text of descriptions(file.schema)) assert.not.ok(f.contents.includes(text), `${f.path}: no schema text embedded (${text})`);
    }
    for (const i of f.inputs) assert.match(i.name, /^adcp-3\.0\.6:/);
  }
  assert.equal(compileStripModules(release).map((f) => [f.path, f.contents]), emitted.map((f) => [f.path, f.contents]), 'deterministic');
  const one = compileStripModules(release, ['create_media_buy']);
  const all = new Map(emitted.map((f) => [f.path, f.contents]));
  for (const f of one) assert.is(all.get(f.path), f.contents, `${f.path}: the same module whatever the tool selection`);
  assert.ok(one.length < emitted.length);
  const cmb = one.find((f) => f.path === 'releases/3.0/strip/create_media_buy.cjs')!;
  assert.ok(cmb.inputs.some((i) => i.name === 'adcp-3.0.6:media-buy/create-media-buy-request.json'));
});

test('3.0.6: shared modules packed into few files that require each other without a cycle; create_media_buy\'s strip reaches at most five', () => {
  const packs = new Map(emitted.filter((f) => f.path.startsWith('releases/3.0/strip/_shared/')).map((f) => [f.path.slice('releases/3.0/strip/_shared/'.length), f.contents]));
  // A pack names the packs it requires in its `elsewhere` table; a tool module requires packs directly.
  const requires = (text: string): string[] => [...text.matchAll(/: "\.\/([^"]+\.cjs)",$/gm), ...text.matchAll(/require\("\.\/_shared\/([^"]+)"\)/g)].map((m) => m[1]!);
  const state = new Map<string, 'open' | 'done'>();
  const visit = (name: string, path: string[]): void => {
    assert.ok(packs.has(name), `${name} is a pack`);
    assert.not.equal(state.get(name), 'open', `a cycle of packs: ${[...path, name].join(' → ')}`);
    if (state.get(name) === 'done') return;
    state.set(name, 'open');
    for (const d of requires(packs.get(name)!)) visit(d, [...path, name]);
    state.set(name, 'done');
  };
  for (const name of [...packs.keys()].sort()) visit(name, []);
  // Exact tool sets alone gave 57 packs here (and 10 files for the first create_media_buy strip): merged, far fewer.
  assert.ok(packs.size <= 15, `${packs.size} packs`);
  const cmb = emitted.find((f) => f.path === 'releases/3.0/strip/create_media_buy.cjs')!.contents;
  const closure = new Set<string>();
  const stack = requires(cmb);
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (!closure.has(n)) closure.add(n), stack.push(...requires(packs.get(n)!));
  }
  assert.ok(closure.size >= 1 && closure.size <= 5, `${closure.size} packs for create_media_buy: ${[...closure].join(', ')}`);
});

test('3.0.6: a strip module requires what it calls into on first call: a value without the field never loads that pack', () => {
  const dir = writeModules(emitted);
  const shared = join(dir, 'releases/3.0/strip/_shared/');
  const loadedPacks = (): string[] => Object.keys(requireCjs.cache).filter((k) => k.startsWith(shared)).sort();
  const strip = (requireCjs(join(dir, 'releases/3.0/strip/create_media_buy.cjs')) as StripModule).strip;
  const atLoad = loadedPacks();
  assert.ok(strip(createMediaBuyRequest()).removed.length === 0);
  const minimal = loadedPacks();
  // Every declared field of the request and of a package present, as an object and as an array of one.
  const names = (path: string): string[] => Object.keys([...release.schemas.byPath.values()].find((f) => f.path === path)!.schema.properties as object);
  const every = (shape: () => unknown, packages: unknown[]): Record<string, unknown> => ({ ...Object.fromEntries(names('media-buy/create-media-buy-request.json').map((k) => [k, shape()])), packages });
  const pkg = (shape: () => unknown): Record<string, unknown> => Object.fromEntries(names('media-buy/package-request.json').map((k) => [k, shape()]));
  strip(every(() => ({}), [pkg(() => ({})), pkg(() => [{}])]));
  strip(every(() => [{}], [pkg(() => ({})), pkg(() => [{}])]));
  const full = loadedPacks();
  for (const p of [...atLoad, ...minimal]) assert.ok(full.includes(p), p);
  assert.ok(atLoad.length <= minimal.length && minimal.length < full.length, `packs loaded: ${atLoad.length} at load, ${minimal.length} after a minimal request, ${full.length} after the examples`);
});

test('3.0.6: schema examples survive injected unknown fields through the emitted modules, like compileStrip and the interpreter', () => {
  const dir = writeModules(emitted);
  const ajv = releaseAjv(release);
  let checked = 0;
  for (const tool of release.tools.values()) {
    if (release.unavailable.has(tool.name)) continue;
    const file = release.schemas.byPath.get(tool.requestSchema)!;
    const examples = Array.isArray(file.schema.examples) ? (file.schema.examples as { data?: unknown }[]) : [];
    if (examples.length === 0) continue;
    const validate = ajv.getSchema(file.id)!;
    const moduleStrip = (requireCjs(join(dir, `releases/3.0/strip/${tool.name}.cjs`)) as StripModule).strip;
    const memory = compileStrip(file.schema, { resolve: release.schemas.resolve });
    const walk = interpretStrip(file.schema, { resolve: release.schemas.resolve });
    for (const ex of examples) {
      if (!validate(ex.data)) continue;
      assert.ok(moduleStrip(ex.data).value === ex.data);
      // An unknown field in every object where, alone, it makes validation fail.
      const places = objectPlaces(ex.data).filter((p) => !validate(injectAt(ex.data, [p])));
      const injected = injectAt(ex.data, places);
      places.forEach((p, i) => (places[i] = `${p}/futureField`));
      const r = moduleStrip(injected);
      assert.equal(r.value, ex.data, `${tool.name}: ${JSON.stringify(r)}`);
      assert.equal([...r.removed].sort(), places.sort());
      assert.ok(validate(r.value));
      assert.equal(memory(injected), r);
      assert.equal(walk(injected), r);
      checked++;
    }
  }
  assert.ok(checked >= 15, `${checked} examples checked`);
});

function objectPlaces(value: unknown, pointer = '', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => objectPlaces(v, `${pointer}/${i}`, out));
  else if (isObj(value)) {
    out.push(pointer);
    for (const k of Object.keys(value)) objectPlaces(value[k], `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  }
  return out;
}

function injectAt(value: unknown, places: readonly string[]): unknown {
  const copy = structuredClone(value);
  for (const p of places) {
    let node = copy as Record<string, unknown>;
    for (const t of p === '' ? [] : p.slice(1).split('/')) node = node[t.replace(/~1/g, '/').replace(/~0/g, '~')] as Record<string, unknown>;
    node.futureField = { v: 1 };
  }
  return copy;
}

test('compileStrip: no schema text in the generated code beyond names and consts', () => {
  const file = release.schemas.byPath.get(release.tools.get('create_media_buy')!.requestSchema)!;
  const source = compileStripSource(file.schema, { resolve: release.schemas.resolve });
  for (const text of descriptions(file.schema)) assert.not.ok(source.includes(text), text);
  assert.match(source, /function s_create_media_buy_request\(v, c, d\)/);
});

test.run();

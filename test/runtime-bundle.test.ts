import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BUNDLE, BUNDLE_FACADE, MODULES, ON_DEMAND, PREBUNDLE, bundleRuntime, prebundled, runtimeSources } from '../generator/emit/index.js';
import { repoRoot } from './helpers/releases.js';

/** The runtime as one bundled module (issue 12 point 2), built from the compiled runtime/*.ts as generation does. */

const dist = join(repoRoot, 'dist', 'runtime');
const sources = runtimeSources(dist);

test('runtime bundle: an entry importing only node: builtins; each facade exports exactly its module\'s names, the same objects', async () => {
  const { entry, modules, facades } = bundleRuntime(sources);
  for (const m of entry.matchAll(/^import .* from (['"])([^'"]+)\1;$/gm)) assert.ok(m[2]!.startsWith('node:'), `the entry imports ${m[2]}`);
  assert.is(facades.size, sources.length);
  // The entry (index.js's second half) holds the bootstrap alone (the loader and the private cache it reads); the
  // other modules are one CommonJS artifact it loads with the code cache.
  const bootstrap = ['./artifacts/loader.js', './artifacts/user-cache.js'];
  assert.equal([...entry.matchAll(/^  "(\.\/[^"]+)": function/gm)].map((m) => m[1]), bootstrap);
  // The rest: modules.cjs, and the groups a valid call never reaches, one artifact each; every module in one place.
  const { onDemand } = bundleRuntime(sources);
  const idsOf = (text: string) => [...text.matchAll(/^  "(\.\/[^"]+)": function/gm)].map((m) => m[1]);
  assert.equal([...onDemand.keys()].sort(), Object.keys(ON_DEMAND).sort());
  for (const [name, text] of onDemand) assert.equal(idsOf(text), ON_DEMAND[name]!.map((n) => `./${n}`), name);
  assert.equal(
    [...idsOf(modules), ...[...onDemand.values()].flatMap(idsOf)].sort(),
    sources.map((s) => `./${s.name}`).filter((n) => !bootstrap.includes(n)).sort(),
  );
  assert.not.ok(modules.includes('import.meta'), 'a CommonJS function has no import.meta: it is a parameter');
  const root = mkdtempSync(join(tmpdir(), 'adcp-runtime-bundle-'));
  const dir = join(root, 'runtime');
  try {
    mkdirSync(dir);
    writeFileSync(join(root, 'package.json'), '{"type":"module"}');
    writeFileSync(join(root, 'index.js'), entry);
    writeFileSync(join(dir, BUNDLE), BUNDLE_FACADE);
    writeFileSync(join(dir, MODULES), modules);
    for (const [name, text] of onDemand) writeFileSync(join(dir, name), text);
    for (const [name, text] of facades) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    for (const s of sources) {
      const original = (await import(pathToFileURL(join(dist, s.name)).href)) as Record<string, unknown>;
      const facade = (await import(pathToFileURL(join(dir, s.name)).href)) as Record<string, unknown>;
      assert.equal(Object.keys(facade).sort(), Object.keys(original).sort(), `${s.name} exports the same names`);
      for (const k of Object.keys(facade)) assert.is(typeof facade[k], typeof original[k], `${s.name} ${k}`);
    }
    // One class, whichever way it is imported: a handler's `new AdcpError` from runtime/wire/errors.js is the agent's.
    const bundled = (await import(pathToFileURL(join(dir, BUNDLE)).href)) as { runtimeModule: (id: string) => Record<string, unknown>; createAgent: unknown };
    const errors = (await import(pathToFileURL(join(dir, 'wire/errors.js')).href)) as Record<string, unknown>;
    assert.is(errors.AdcpError, bundled.runtimeModule('./wire/errors.js').AdcpError);
    assert.is(bundled.createAgent, bundled.runtimeModule('./agent.js').createAgent);
    assert.type(bundled.createAgent, 'function');
    assert.throws(() => bundled.runtimeModule('./nope.js'), /no module \.\/nope\.js/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('runtime bundle: an on-demand module is read and evaluated when a member is first used, not when it is required', async () => {
  // A stand-in runtime: the real bootstrap, an agent.js (modules.cjs) that imports call/items.js (batches.cjs).
  const bootstrap = sources.filter((s) => s.name === 'artifacts/loader.js' || s.name === 'artifacts/user-cache.js');
  const made = bundleRuntime([
    ...bootstrap,
    { name: 'agent.js', text: "import { plan, Row } from './call/items.js';\nexport const createAgent = () => null;\nexport const use = (x) => [plan(x), new Row() instanceof Row];\n" },
    { name: 'call/items.js', text: 'globalThis.__itemsEvaluated = (globalThis.__itemsEvaluated ?? 0) + 1;\nexport const plan = (x) => x * 2;\nexport class Row {}\n' },
  ]);
  assert.equal([...made.onDemand.keys()], ['batches.cjs']);
  const root = mkdtempSync(join(tmpdir(), 'adcp-runtime-on-demand-'));
  try {
    mkdirSync(join(root, 'runtime'));
    writeFileSync(join(root, 'package.json'), '{"type":"module"}');
    writeFileSync(join(root, 'index.js'), made.entry);
    writeFileSync(join(root, 'runtime', MODULES), made.modules);
    writeFileSync(join(root, 'runtime', 'batches.cjs'), made.onDemand.get('batches.cjs')!);
    const g = globalThis as { __itemsEvaluated?: number };
    delete g.__itemsEvaluated;
    const { runtimeModule } = (await import(pathToFileURL(join(root, 'index.js')).href)) as { runtimeModule: (id: string) => Record<string, unknown> };
    const { loadedArtifacts } = runtimeModule('./artifacts/loader.js') as { loadedArtifacts: (dir: string) => string[] };
    assert.equal(loadedArtifacts(root), ['runtime/modules.cjs'], 'importing agent.js, which requires items.js, reads no on-demand artifact');
    assert.is(g.__itemsEvaluated, undefined);
    assert.equal((runtimeModule('./agent.js').use as (x: number) => unknown)(21), [42, true]);
    assert.equal(loadedArtifacts(root), ['runtime/batches.cjs', 'runtime/modules.cjs']);
    assert.is(g.__itemsEvaluated, 1);
    assert.is(runtimeModule('./call/items.js').plan, runtimeModule('./call/items.js').plan, 'evaluated once');
    assert.is(g.__itemsEvaluated, 1);
    assert.throws(() => runtimeModule('__proto__'), /no module __proto__/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('runtime bundle: deterministic, and a runtime module may import only node: builtins and the runtime', () => {
  assert.is(bundleRuntime(sources).entry, bundleRuntime([...sources].reverse()).entry);
  assert.is(bundleRuntime(sources).modules, bundleRuntime([...sources].reverse()).modules);
  assert.equal([...bundleRuntime(sources).onDemand], [...bundleRuntime([...sources].reverse()).onDemand]);
  // A name left in ON_DEMAND after its module was renamed would load nothing on demand: every name is a module.
  for (const names of Object.values(ON_DEMAND)) for (const n of names) assert.ok(sources.some((s) => s.name === n), `ON_DEMAND lists ${n}`);
  assert.throws(() => bundleRuntime([...sources, { name: 'extra.js', text: "import x from 'lodash';\nexport const y = x;\n" }]), /runtime\/extra\.js imports lodash/);
  assert.throws(() => bundleRuntime([{ name: BUNDLE, text: 'export {};' }]), /bundle's own name/);
  assert.throws(
    () => bundleRuntime([{ name: 'artifacts/loader.js', text: "import { x } from '../other.js';\nexport const y = x;\n" }, { name: 'other.js', text: 'export const x = 1;\n' }]),
    /the bootstrap \(artifacts\/loader\.js, artifacts\/user-cache\.js\) is bundled alone/,
  );
  assert.throws(() => bundleRuntime([{ name: 'agent.js', text: "import { x } from './missing.js';\nexport const y = x;\n" }]), /imports \.\/missing\.js, which is not a runtime module/);
  const folders = bundleRuntime([
    { name: 'artifacts/loader.js', text: "import { x } from './user-cache.js';\nexport const y = x;\n" },
    { name: 'artifacts/user-cache.js', text: 'export const x = 1;\n' },
    { name: 'call/a.js', text: "import { x } from '../artifacts/user-cache.js';\nexport { y } from '../wire/b.js';\nexport const z = x;\n" },
    { name: 'wire/b.js', text: 'export const y = 2;\n' },
  ]);
  assert.ok(folders.entry.includes('"./artifacts/user-cache.js": function'), 'the bootstrap imports itself');
  // Every relative import becomes the module's id, from whatever folder it is written in.
  assert.ok(folders.modules.includes('require("./artifacts/user-cache.js")') && folders.modules.includes('require("./wire/b.js")'), folders.modules);
  assert.match(folders.facades.get('call/a.js')!, /^import \{ runtimeModule \} from '\.\.\/\.\.\/index\.js';/);
});

test('runtime bundle: ASCII only (one byte per character to compile), the escaped characters the same ones at run time', async () => {
  const { entry, modules } = bundleRuntime(sources);
  assert.not.ok(/[^\x00-\x7f]/.test(entry), 'index.js\'s runtime half is ASCII');
  assert.not.ok(/[^\x00-\x7f]/.test(modules), 'runtime/modules.cjs is ASCII');
  for (const [name, text] of bundleRuntime(sources).onDemand) assert.not.ok(/[^\x00-\x7f]/.test(text), `runtime/${name} is ASCII`);
  const own = {
    name: 'chars.js',
    text: [
      '// a note → with — dashes',
      "export const s = 'a … b';",
      'export const d = "“quoted”";',
      'export const t = `x — ${1 + 1} … y`;',
      "export const r = /é+/.test('éé');",
      '/* block ≤ comment */ export const q = 6 / 2 / 3;',
    ].join('\n'),
  };
  const made = bundleRuntime([...sources, own]);
  assert.not.ok(/[^\x00-\x7f]/.test(made.modules));
  const root = mkdtempSync(join(tmpdir(), 'adcp-runtime-ascii-'));
  try {
    mkdirSync(join(root, 'runtime'));
    writeFileSync(join(root, 'package.json'), '{"type":"module"}');
    writeFileSync(join(root, 'index.js'), made.entry);
    writeFileSync(join(root, 'runtime', MODULES), made.modules);
    const { runtimeModule } = (await import(pathToFileURL(join(root, 'index.js')).href)) as { runtimeModule: (id: string) => Record<string, unknown> };
    assert.equal(runtimeModule('./chars.js'), { s: 'a … b', d: '“quoted”', t: 'x — 2 … y', r: true, q: 1 });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  assert.throws(() => bundleRuntime([{ name: 'ident.js', text: 'export const café = 1;\n' }]), /runtime\/ident\.js: a non-ASCII character outside a comment or literal/);
  assert.throws(() => bundleRuntime([{ name: 'tag.js', text: 'const tag = (s) => s.raw[0];\nexport const v = tag`é`;\n' }]), /runtime\/tag\.js: a non-ASCII character/);
});

test('prebuilt bundle: the one the build wrote is the bundle of the compiled runtime now; a stale one is not used', () => {
  const now = bundleRuntime(runtimeSources(dist));
  const built = prebundled(runtimeSources(dist), join(repoRoot, 'dist', PREBUNDLE));
  assert.is(built.entry, now.entry);
  assert.is(built.modules, now.modules);
  assert.equal([...built.onDemand], [...now.onDemand]);
  assert.equal([...built.facades], [...now.facades]);
  // Made from other sources (a runtime module changed since): ignored, the bundle is made from the sources given.
  const dir = mkdtempSync(join(tmpdir(), 'adcp-prebundle-'));
  try {
    const stale = join(dir, PREBUNDLE);
    const file = JSON.parse(readFileSync(join(repoRoot, 'dist', PREBUNDLE), 'utf8')) as { inputs: Record<string, string>; modules: string };
    writeFileSync(stale, JSON.stringify({ ...file, modules: '/* stale */', inputs: { ...file.inputs, 'agent.js': '0'.repeat(64) } }));
    assert.is(prebundled(runtimeSources(dist), stale).modules, now.modules);
    writeFileSync(stale, JSON.stringify({ ...file, modules: '/* same inputs */' }));
    assert.is(prebundled(runtimeSources(dist), stale).modules, '/* same inputs */', 'used when made from exactly these sources');
    assert.is(prebundled(runtimeSources(dist), join(dir, 'missing.json')).modules, now.modules);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

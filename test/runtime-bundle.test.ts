import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BUNDLE, bundleRuntime } from '../generator/emit/index.js';
import { repoRoot } from './helpers/releases.js';

/** The runtime as one bundled module (issue 12 point 2), built from the compiled runtime/*.ts as generation does. */

const dist = join(repoRoot, 'dist', 'runtime');
const sources = readdirSync(dist)
  .filter((n) => n.endsWith('.js'))
  .map((name) => ({ name, text: readFileSync(join(dist, name), 'utf8') }));

test('runtime bundle: one module importing only node: builtins; each facade exports exactly its module\'s names, the same objects', async () => {
  const { bundle, facades } = bundleRuntime(sources);
  for (const m of bundle.matchAll(/^import .* from (['"])([^'"]+)\1;$/gm)) assert.ok(m[2]!.startsWith('node:'), `the bundle imports ${m[2]}`);
  assert.is(facades.size, sources.length);
  const dir = mkdtempSync(join(tmpdir(), 'adcp-runtime-bundle-'));
  try {
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
    writeFileSync(join(dir, BUNDLE), bundle);
    for (const [name, text] of facades) writeFileSync(join(dir, name), text);
    for (const s of sources) {
      const original = (await import(pathToFileURL(join(dist, s.name)).href)) as Record<string, unknown>;
      const facade = (await import(pathToFileURL(join(dir, s.name)).href)) as Record<string, unknown>;
      assert.equal(Object.keys(facade).sort(), Object.keys(original).sort(), `${s.name} exports the same names`);
      for (const k of Object.keys(facade)) assert.is(typeof facade[k], typeof original[k], `${s.name} ${k}`);
    }
    // One class, whichever way it is imported: a handler's `new AdcpError` from runtime/errors.js is the agent's.
    const bundled = (await import(pathToFileURL(join(dir, BUNDLE)).href)) as { runtimeModule: (id: string) => Record<string, unknown>; createAgent: unknown };
    const errors = (await import(pathToFileURL(join(dir, 'errors.js')).href)) as Record<string, unknown>;
    assert.is(errors.AdcpError, bundled.runtimeModule('./errors.js').AdcpError);
    assert.is(bundled.createAgent, bundled.runtimeModule('./agent.js').createAgent);
    assert.type(bundled.createAgent, 'function');
    assert.throws(() => bundled.runtimeModule('./nope.js'), /no module \.\/nope\.js/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('runtime bundle: deterministic, and a runtime module may import only node: builtins and the runtime', () => {
  assert.is(bundleRuntime(sources).bundle, bundleRuntime([...sources].reverse()).bundle);
  assert.throws(() => bundleRuntime([...sources, { name: 'extra.js', text: "import x from 'lodash';\nexport const y = x;\n" }]), /runtime\/extra\.js imports lodash/);
  assert.throws(() => bundleRuntime([{ name: BUNDLE, text: 'export {};' }]), /bundle's own name/);
});

test.run();

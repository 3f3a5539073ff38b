import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ON_DEMAND } from '../generator/emit/index.js';
import { generate } from '../generator/generate.js';
import { silentLogger } from '../generator/shared/index.js';
import { listFiles } from '../generator/write/index.js';
import { tempDir } from './helpers/fixture-release.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot, sdkReleaseDir } from './helpers/releases.js';

/**
 * Issue 12 point 2, on a freshly generated set (AdCP 3.0.6, the example guaranteed-publisher profile): the runtime
 * loads as one module, `loadProfile` loads no artifact, the profile's tools/list entries are not read before a list
 * is asked for, and the first call of a tool touches only that tool's files.
 */
const work = tempDir('adcp-first-call-');
writeFileSync(join(work, 'profile.json'), readFileSync(join(repoRoot, 'schemas/profiles/guaranteed-publisher.json')));
writeFileSync(
  join(work, 'adcp-codegen.config.json'),
  JSON.stringify({
    releases: [sdkReleaseDir()],
    profiles: ['profile.json'],
    normalizations: [join(repoRoot, 'schemas/normalizations/*.json')],
    overlays: [join(repoRoot, 'schemas/overlays/*.json')],
    out: 'generated',
  }),
);
const out = join(work, 'generated');
// As in an agent's repository, its dependencies beside the set: the runtime's store (better-sqlite3) resolves from there.
symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');

/** Files reachable from one module by its literal relative requires (lazy ones included): its static closure. */
function staticClosure(start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length > 0) {
    const p = stack.pop()!;
    if (seen.has(p)) continue;
    seen.add(p);
    const text = readFileSync(join(out, p), 'utf8');
    // (Formatted output may quote with ' or ".)
    // Inside a strip pack, `require("./x.cjs")` names a packed module, not a file: packs name the packs they require
    // from in a table (`elsewhere`).
    const packed = p.includes('/strip/_shared/');
    if (!packed) for (const m of text.matchAll(/require\(\s*['"]([^'"]+)['"]\s*\)/g)) stack.push(posix.normalize(posix.join(posix.dirname(p), m[1]!)));
    for (const m of text.matchAll(/^\s*['"]\.\/[^'"]+\.cjs['"]:\s*['"](\.\/[^'"]+\.cjs)['"],?$/gm)) stack.push(posix.normalize(posix.join(posix.dirname(p), m[1]!)));
  }
  return seen;
}

test('the runtime is one module; loadProfile loads no artifact nor the tools/list; the first call touches only its tool\'s files', async () => {
  try {
    await generate({ config: join(work, 'adcp-codegen.config.json'), logger: silentLogger });
    // index.js, the one ES module a cold start loads, holds the runtime's loader and imports nothing (builtins come
    // from process.getBuiltinModule: an ES import of one costs its facade); runtime/bundle.js only re-exports its names.
    const imports = (file: string) => [...readFileSync(join(out, file), 'utf8').matchAll(/^(?:import|export) [^'"]*['"]([^'"]+)['"];?$/gm)].map((m) => m[1]!);
    assert.equal(imports('index.js'), []);
    assert.equal(imports('runtime/bundle.js'), ['../index.js']);

    // Without the tools/list file, loading and calling still work: neither reads it; the first list does.
    const lists = join(out, 'profiles/guaranteed-publisher.tools-list.json');
    assert.ok(existsSync(lists));
    renameSync(lists, `${lists}.away`);
    const probe = join(work, 'probe.mjs');
    writeFileSync(
      probe,
      [
        `const { loadProfile } = await import(${JSON.stringify(pathToFileURL(join(out, 'index.js')).href)});`,
        `const { runtimeModule } = await import(${JSON.stringify(pathToFileURL(join(out, 'runtime/bundle.js')).href)});`,
        `const { loadedArtifacts } = runtimeModule('./artifacts/loader.js');`,
        `const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });`,
        `const atLoad = loadedArtifacts(${JSON.stringify(out)});`,
        // A read takes no idempotency key: it reaches neither the protocol services nor the store.
        `const read = await agent.call('get_products', { buying_mode: 'brief', brief: 'display', context: { n: 1 } }, () => ({ products: [] }));`,
        `const afterRead = loadedArtifacts(${JSON.stringify(out)});`,
        `const r = await agent.call('create_media_buy', ${JSON.stringify(createMediaBuyRequest())}, () => ({ media_buy_id: 'mb_1', packages: [] }));`,
        `const loaded = loadedArtifacts(${JSON.stringify(out)});`,
        // A rejection reaches the runtime's on-demand modules (every defect named): loaded then, and answered.
        `const bad = await agent.call('create_media_buy', ${JSON.stringify(createMediaBuyRequest({ end_time: 7 }))}, () => ({ media_buy_id: 'mb_1', packages: [] }));`,
        `const afterBad = loadedArtifacts(${JSON.stringify(out)});`,
        `let listError = null; try { agent.endpointToolsList(); } catch (e) { listError = e.code + ' ' + e.message; }`,
        `process.stdout.write(JSON.stringify({ atLoad, readOk: read.isError !== true, readText: read.content[0].text, afterRead, ok: r.isError !== true, text: r.content[0].text, loaded, listError, bad: bad.structuredContent, afterBad }));`,
      ].join('\n'),
    );
    const run = JSON.parse(execFileSync(process.execPath, [probe], { encoding: 'utf8' })) as {
      atLoad: string[];
      readOk: boolean;
      readText: string;
      afterRead: string[];
      ok: boolean;
      text: string;
      loaded: string[];
      listError: string | null;
      bad: { adcp_error?: { code: string; issues?: { pointer: string }[] } };
      afterBad: string[];
    };
    assert.ok(run.ok, run.text);
    assert.ok(run.listError?.startsWith('ENOENT') && run.listError.includes('guaranteed-publisher.tools-list.json'), String(run.listError));
    renameSync(`${lists}.away`, lists);
    // The runtime's modules are one artifact, loaded by the bundle's loader (with the code cache) on import.
    assert.equal(run.atLoad, ['runtime/modules.cjs'], 'loadProfile loads no validator, strip or normalizer: only the runtime');
    const own = new Set<string>();
    for (const entry of ['validate.cjs', 'strip/create_media_buy.cjs', 'normalize/create_media_buy.cjs']) {
      const path = `releases/3.0/${entry}`;
      if (listFiles(out).includes(path)) for (const p of staticClosure(path)) own.add(p);
    }
    assert.ok(run.loaded.length > 0);
    const onDemand = Object.keys(ON_DEMAND).map((f) => `runtime/${f}`);
    assert.ok(run.readOk, run.readText);
    assert.equal(run.afterRead.filter((p) => onDemand.includes(p)), [], 'a read loads no on-demand runtime module');
    const afterRead = new Set(run.afterRead);
    for (const p of run.loaded.filter((p) => !afterRead.has(p) && !onDemand.includes(p))) assert.ok(own.has(p), `${p} belongs to create_media_buy's closure`);
    const byCreate = run.loaded.filter((p) => !afterRead.has(p));
    assert.not.ok(byCreate.some((p) => /get_products|list_creatives|sync_creatives/.test(p)), byCreate.join(', '));
    assert.ok(byCreate.length <= 30, `${byCreate.length} files for the first validated create_media_buy (request and response)`);
    // The runtime modules a valid call never reaches (ON_DEMAND) are not read by one, but for the protocol services a
    // key to keep reaches (its replay contract and the store); a rejection reads those it needs.
    assert.ok(onDemand.every((f) => listFiles(out).includes(f)), 'every on-demand group is in the set');
    assert.equal(run.loaded.filter((p) => onDemand.includes(p)), ['runtime/services.cjs'], 'a valid keyed call loads the services alone');
    assert.is(run.bad.adcp_error?.code, 'INVALID_REQUEST');
    assert.ok(run.bad.adcp_error?.issues?.some((i) => i.pointer === '/end_time'), JSON.stringify(run.bad));
    assert.equal(run.afterBad.filter((p) => onDemand.includes(p)), ['runtime/rejections.cjs', 'runtime/services.cjs']);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.run();

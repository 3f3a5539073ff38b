import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileValidators } from '../generator/compile/index.js';
import { loadRelease } from '../generator/load/index.js';
import { cacheArea, writeEntry, type CacheArea } from '../runtime/artifacts/user-cache.js';
import { codeCachePayload, foreignCachedData, rootPack } from './helpers/code-cache-plant.js';
import { writeEmitted } from './helpers/differential.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot, sdkReleaseDir } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';

/**
 * The runtime's V8 code cache (runtime/loader.ts; issue 11 point 2, issue 20 point 1): it lives in this user's
 * private cache (runtime/user-cache.ts), only ever holds V8's data for a generated module's own text, and an entry
 * that store did not write itself is never handed to V8.
 *
 * The attack is real: V8 checks cached data against the script only by its length (and the V8 build), so data
 * compiled from OTHER code of the same length is accepted and that other code runs. The first case of the second
 * test shows it (an entry forged with the store's own key does turn validation off); every other case must keep
 * validation on. Modules under 4 KB compile without a cache, so the case is the request's root pack (the entry
 * module, a few lines, only points at it).
 */

const release = loadRelease(sdkReleaseDir());
const files = compileValidators(release, ['create_media_buy']);
const ENTRY = `releases/${release.key}/validate.cjs`;
const VALID = createMediaBuyRequest();

interface Fixture {
  readonly dir: string;
  /** This fixture's private cache (what ADCP_CODEGEN_CACHE_DIR names for the probe). */
  readonly store: string;
  /** A new process validating a valid and an empty payload: `[true,false]` while validation is on. */
  run(env?: Record<string, string>): string;
  /** The store's `v8` area, as the probe's runtime sees it. */
  area(): CacheArea;
  /** The pack's entry in the store (there must be exactly one). */
  entry(): string;
  /** Replaces the pack's entry with foreign same-length code's data, authenticated with `key`. */
  plant(key: Buffer): string;
}

function fixture(): Fixture {
  const dir = tempDir('adcp-code-cache-');
  const store = join(tempDir('adcp-code-cache-store-'), 'cache');
  writeEmitted(dir, files);
  const script = join(dir, 'probe.mjs');
  writeFileSync(
    script,
    [
      `import { loadArtifact } from ${JSON.stringify(join(repoRoot, 'dist/runtime/artifacts/loader.js'))};`,
      `import { wrapValidator } from ${JSON.stringify(join(repoRoot, 'dist/runtime/issues/issues.js'))};`,
      `const v = wrapValidator(loadArtifact(${JSON.stringify(dir)}, ${JSON.stringify(ENTRY)}).create_media_buy.request);`,
      `process.stdout.write(JSON.stringify([v(${JSON.stringify(VALID)}).ok, v({}).ok]));`,
    ].join('\n'),
  );
  const run = (env: Record<string, string> = {}) =>
    execFileSync(process.execPath, [script], { env: { ...process.env, ADCP_CODEGEN_CACHE_DIR: store, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const pack = rootPack(join(dir, ENTRY), 'create_media_buy');
  assert.ok(pack.text.length >= 4096, 'the pack is cached (modules under 4 KB are not)');
  const packName = pack.file.split('/').pop()!;
  const area = (): CacheArea => withStore(store, () => cacheArea('v8'))!;
  const entry = () => {
    const v8 = join(store, 'v8');
    const found = existsSync(v8) ? readdirSync(v8).filter((f) => f.includes(packName) && f.endsWith('.v8')) : [];
    assert.is(found.length, 1, 'one code cache entry for the pack, named after its path');
    return join(v8, found[0]!);
  };
  const plant = (key: Buffer) => {
    const file = entry();
    const name = file.split('/').pop()!;
    // The genuine text as its copy, as the loader writes its own entries: only the key can tell it apart.
    assert.ok(writeEntry({ dir: join(store, 'v8'), key }, name, [codeCachePayload(pack.text, foreignCachedData(pack))]));
    return file;
  };
  return { dir, store, run, area, entry, plant };
}

/** `fn` with ADCP_CODEGEN_CACHE_DIR naming `store` (this process's own store is the test run's). */
function withStore<T>(store: string, fn: () => T): T {
  const before = process.env.ADCP_CODEGEN_CACHE_DIR;
  process.env.ADCP_CODEGEN_CACHE_DIR = store;
  try {
    return fn();
  } finally {
    process.env.ADCP_CODEGEN_CACHE_DIR = before;
  }
}

test('code cache: in the private cache, never beside the set; reused across processes, rebuilt when rejected', () => {
  const { dir, store, run, entry } = fixture();
  assert.is(run(), '[true,false]');
  assert.equal(readdirSync(dir).sort(), ['probe.mjs', 'releases', 'validate'], 'nothing written beside the generated set');
  const v8 = join(store, 'v8');
  assert.ok(readdirSync(v8).length > 1, 'the entry and the definitions it reached');
  assert.ok(readdirSync(v8).every((f) => f.endsWith('.v8')), 'only code caches in the v8 area');
  assert.ok(!readdirSync(v8).some((f) => f.includes('validate.cjs')), 'the entry module (under 4 KB) compiles from its text');
  for (const d of [store, v8]) assert.is(statSync(d).mode & 0o777, 0o700, `${d} is private`);
  assert.is(statSync(join(store, 'key')).mode & 0o777, 0o600, 'the key is private');
  assert.is(statSync(join(store, 'key')).size, 32);
  const file = entry();
  assert.is(statSync(file).mode & 0o777, 0o600, 'entries are private');
  const before = readFileSync(file);
  assert.is(run(), '[true,false]', 'second process: from the code cache');
  assert.ok(readFileSync(file).equals(before), 'an accepted entry is not rewritten');
  writeFileSync(file, 'not a code cache entry', { mode: 0o600 });
  assert.is(run(), '[true,false]', 'a broken entry is ignored');
  assert.is.not(readFileSync(file, 'utf8'), 'not a code cache entry', 'and rebuilt');
  // Data made for another module (another entry of this set, renamed under this name) is not offered to this text:
  // an entry names itself, and holds the exact text its data was made from.
  const other = readdirSync(v8).map((f) => join(v8, f)).find((f) => f !== file)!;
  writeFileSync(file, readFileSync(other), { mode: 0o600 });
  assert.is(run(), '[true,false]', 'another module\'s entry under this name is not used');
  assert.ok(readFileSync(file).includes(Buffer.from(file.split('/').pop()!)), 'and replaced by this module\'s');
  assert.is(run({ ADCP_CODEGEN_NO_CODE_CACHE: '1' }), '[true,false]');
  // No usable store at all: the store's path taken by a file, or a relative path (it would follow the working
  // directory into whatever repository that is).
  const blocked = join(tempDir('adcp-code-cache-blocked-'), 'cache');
  writeFileSync(blocked, 'not a directory');
  assert.is(run({ ADCP_CODEGEN_CACHE_DIR: blocked }), '[true,false]');
  assert.is(readFileSync(blocked, 'utf8'), 'not a directory');
  const cwdBefore = readdirSync(process.cwd()).sort();
  assert.is(run({ ADCP_CODEGEN_CACHE_DIR: 'relative-cache' }), '[true,false]');
  assert.equal(readdirSync(process.cwd()).sort(), cwdBefore, 'a relative store path makes no directory');
});

test('code cache: an entry this store did not write is never executed; validation stays on', () => {
  const { store, run, area, plant } = fixture();
  run();
  // The threat: data of foreign same-length code, with the genuine text as its copy and the store's own key (what
  // only this user's runtime, or someone with this user's rights, can write), does run.
  plant(area().key);
  assert.is(run(), '[true,true]', 'V8 accepts cached data of other code of the same length');

  // The same entry without the key: planted, copied from another store, restored from another machine's cache.
  plant(randomBytes(32));
  assert.is(run(), '[true,false]', 'an entry with another key: not used');
  assert.is(run(), '[true,false]', 'and replaced by a good one');

  // With the key, but readable or writable by others, or a link, or in a directory that is not private.
  for (const mode of [0o640, 0o604, 0o620]) {
    chmodSync(plant(area().key), mode);
    assert.is(run(), '[true,false]', `an entry of mode ${mode.toString(8)}: not read`);
  }
  const planted = plant(area().key);
  const elsewhere = join(tempDir('adcp-code-cache-elsewhere-'), 'planted.v8');
  renameSync(planted, elsewhere);
  symlinkSync(elsewhere, planted);
  assert.is(run(), '[true,false]', 'a symbolic link in place of an entry: not followed');
  rmSync(planted);
  run();
  plant(area().key);
  chmodSync(join(store, 'v8'), 0o750);
  assert.is(run(), '[true,false]', 'a v8 area others can read: no cache');
  chmodSync(join(store, 'v8'), 0o700);
  chmodSync(store, 0o755);
  assert.is(run(), '[true,false]', 'a store others can read: no cache');
  chmodSync(store, 0o700);
  chmodSync(join(store, 'key'), 0o644);
  assert.is(run(), '[true,false]', 'a key others can read (as a checkout writes every file): no cache');
  chmodSync(join(store, 'key'), 0o600);
  assert.is(run(), '[true,true]', 'the planted entry was only ever held back by those checks');

  if (process.getuid?.() === 0) {
    chownSync(plant(area().key), 4242, 4242);
    assert.is(run(), '[true,false]', 'an entry owned by another user: not read');
    chownSync(join(store, 'key'), 4242, 4242);
    assert.is(run(), '[true,false]', 'a key owned by another user: no cache');
  }

  // A link in place of the store, to a store (key and entry) someone else prepared.
  const { store: other, run: runOther, plant: plantOther, area: areaOther } = fixture();
  runOther();
  plantOther(areaOther().key);
  const linked = join(tempDir('adcp-code-cache-linked-'), 'cache');
  symlinkSync(other, linked);
  assert.is(run({ ADCP_CODEGEN_CACHE_DIR: linked }), '[true,false]', 'a symbolic link in place of the store: no cache');
});

test.run();

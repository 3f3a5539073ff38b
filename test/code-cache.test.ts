import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileValidators } from '../generator/compile/index.js';
import { loadRelease } from '../generator/load/index.js';
import { writeEmitted } from './helpers/differential.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot, sdkReleaseDir } from './helpers/releases.js';

/**
 * The runtime's V8 code cache (runtime/loader.ts, issue 11 point 2): it only ever holds V8's cached data for the
 * generated module's own text, and a file planted in it by someone else is never executed.
 *
 * The attack is real: V8 checks cached data against the script only by its length (and the V8 build), so cached
 * data compiled from OTHER code of the same length is accepted and that other code runs. The first case below shows
 * it (a planted file the loader trusts does turn validation off); every other case must keep validation on.
 *
 * The cache file of a module holds the exact text its data was made from (compared byte for byte, never run) and
 * the data. Modules under 4 KB are compiled without a cache, so the case is the request's root pack (the entry
 * module, a few lines, only points at it).
 */

const release = loadRelease(sdkReleaseDir());
const files = compileValidators(release, ['create_media_buy']);
const ENTRY = 'releases/3.0/validate/create_media_buy.request.cjs';
const PARAMS = 'exports, require, module, __filename, __dirname';
const VALID = createMediaBuyRequest();

function fixture(): { dir: string; run: (env?: Record<string, string>) => string; cacheDir: string; entryCache: () => string; plant: () => string; text: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-code-cache-'));
  writeEmitted(dir, files);
  const script = join(dir, 'probe.mjs');
  writeFileSync(
    script,
    [
      `import { loadArtifact } from ${JSON.stringify(join(repoRoot, 'dist/runtime/loader.js'))};`,
      `import { wrapValidator } from ${JSON.stringify(join(repoRoot, 'dist/runtime/issues.js'))};`,
      `const v = wrapValidator(loadArtifact(${JSON.stringify(dir)}, ${JSON.stringify(ENTRY)}).validate);`,
      `process.stdout.write(JSON.stringify([v(${JSON.stringify(VALID)}).ok, v({}).ok]));`,
    ].join('\n'),
  );
  const run = (env: Record<string, string> = {}) => execFileSync(process.execPath, [script], { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const cacheDir = join(dir, '.cache', 'v8');
  // The entry reads its validate from the root definition of a pack: `require('…/packs/<pack>.cjs')['<key>']`.
  const link = /require\((["'])([^"']+)\1\)\[\s*(["'])([^"']+)\3\s*\]/.exec(readFileSync(join(dir, ENTRY), 'utf8'))!;
  const packFile = join(dir, ENTRY, '..', link[2]!);
  const text = readFileSync(packFile);
  assert.ok(text.length >= 4096, 'the pack is cached (modules under 4 KB are not)');
  // The loader compiles exactly this text: the module's file, wrapped as CommonJS.
  const wrapped = `(function (${PARAMS}) {${text.toString('utf8')}\n})`;
  const packName = link[2]!.split('/').pop()!;
  const entryCache = () => {
    const found = existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.includes(packName) && f.endsWith('.v8')) : [];
    assert.is(found.length, 1, 'one code cache for the pack, named after its path');
    return join(cacheDir, found[0]!);
  };
  /** A cache file as the loader writes one: the text's length, the text, the data. */
  const cacheFileOf = (data: Buffer): Buffer => {
    const head = Buffer.alloc(4);
    head.writeUInt32LE(text.length, 0);
    return Buffer.concat([head, text, data]);
  };
  /** V8 cached data of a module as long as the real pack whose root definition accepts everything. */
  const plant = () => {
    const head = `(function (${PARAMS}) {exports[${JSON.stringify(link[4])}] = { validate: () => true };`;
    const evil = `${head}${' '.repeat(wrapped.length - head.length - 3)}\n})`;
    assert.is(evil.length, wrapped.length);
    const s = new Script(evil);
    // Run it (and its validate) first, so their bytecode is in the cached data rather than compiled later from the
    // real text at the same offsets.
    const fn = s.runInThisContext() as (exports: Record<string, { validate: () => boolean }>, require: null, module: object) => void;
    const module = { exports: {} as Record<string, { validate: () => boolean }> };
    fn(module.exports, null, module);
    module.exports[link[4]!]!.validate();
    const file = entryCache();
    rmSync(file);
    // With the real text as its copy, as the loader writes its own files: only owner and mode stop it.
    writeFileSync(file, cacheFileOf(s.createCachedData()), { mode: 0o600 });
    chmodSync(file, 0o600);
    return file;
  };
  return { dir, run, cacheDir, entryCache, plant, text };
}

test('code cache: holds only V8 data for the generated text, reused across processes, rebuilt when rejected', () => {
  const { dir, run, cacheDir, entryCache, text } = fixture();
  try {
    assert.is(run(), '[true,false]');
    assert.ok(readdirSync(cacheDir).length > 1, 'the entry and the definitions it reached');
    assert.ok(readdirSync(cacheDir).every((f) => f.endsWith('.v8')), 'only code caches in the cache directory');
    assert.ok(!readdirSync(cacheDir).some((f) => f.includes('create_media_buy.request.cjs')), 'the entry module (under 4 KB) compiles from its text');
    assert.is(readFileSync(join(dir, '.cache', '.gitignore'), 'utf8'), '*\n', 'the cache stays out of the agent repository');
    for (const d of [join(dir, '.cache'), cacheDir]) assert.is(statSync(d).mode & 0o077, 0, `${d} is private`);
    const file = entryCache();
    assert.is(statSync(file).mode & 0o077, 0, 'cache files are private');
    const before = readFileSync(file);
    assert.is(run(), '[true,false]', 'second process: from the code cache');
    assert.ok(readFileSync(file).equals(before), 'an accepted cache is not rewritten');
    writeFileSync(file, 'not a V8 code cache');
    assert.is(run(), '[true,false]', 'a rejected cache is ignored');
    assert.is.not(readFileSync(file, 'utf8'), 'not a V8 code cache', 'and rebuilt');
    // Data made for another module (another cache file of this set, renamed or linked under this name) is not
    // offered to this text: the file holds the exact text its data was made from, compared byte for byte.
    const other = readdirSync(cacheDir).map((f) => join(cacheDir, f)).find((f) => f !== file)!;
    const own = readFileSync(file);
    writeFileSync(file, readFileSync(other));
    assert.is(run(), '[true,false]', 'another module\'s data under this name is not used');
    assert.ok(readFileSync(file).subarray(0, 4 + text.length).equals(own.subarray(0, 4 + text.length)), 'and replaced by data for this module\'s text');
    // The same text but one byte (a regenerated module of the same length, say): V8 alone would take the old data.
    const changed = Buffer.from(own);
    changed[4 + text.length - 10] = changed[4 + text.length - 10] === 0x20 ? 0x0a : 0x20;
    writeFileSync(file, changed);
    assert.is(run(), '[true,false]', 'data made from a text differing in one byte is not used');
    assert.ok(readFileSync(file).equals(own) || readFileSync(file).subarray(0, 4 + text.length).equals(own.subarray(0, 4 + text.length)), 'and replaced');
    assert.is(run({ ADCP_CODEGEN_NO_CODE_CACHE: '1' }), '[true,false]');
    // No usable cache directory at all (the output's cache path is taken by a file, the temp dir does not exist).
    rmSync(join(dir, '.cache'), { recursive: true, force: true });
    writeFileSync(join(dir, '.cache'), 'not a directory');
    assert.is(run({ TMPDIR: '/nonexistent/adcp' }), '[true,false]');
    assert.is(readFileSync(join(dir, '.cache'), 'utf8'), 'not a directory');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('code cache: a planted file is never executed unless it is ours alone; validation stays on', () => {
  const { dir, run, cacheDir, plant } = fixture();
  try {
    run();
    // The threat: a trusted planted file does run. (Only this user could have written it, and this user can edit the
    // generated modules themselves; anyone else is stopped by the checks below.)
    plant();
    assert.is(run(), '[true,true]', 'V8 accepts cached data of other code of the same length');

    const groupWritable = plant();
    chmodSync(groupWritable, 0o620);
    assert.is(run(), '[true,false]', 'group-writable cache file: not read');
    const worldWritable = plant();
    chmodSync(worldWritable, 0o606);
    assert.is(run(), '[true,false]', 'world-writable cache file: not read');
    assert.is(run(), '[true,false]', 'and replaced by a good one');

    if (process.getuid?.() === 0) {
      const foreign = plant();
      chownSync(foreign, 4242, 4242);
      assert.is(run(), '[true,false]', 'cache file owned by another user: not read');
    }

    plant();
    chmodSync(cacheDir, 0o770);
    assert.is(run(), '[true,false]', 'group-writable cache directory: no cache');
    chmodSync(cacheDir, 0o700);
    chmodSync(join(dir, '.cache'), 0o777);
    assert.is(run(), '[true,false]', 'world-writable parent of the cache directory: no cache');
    chmodSync(join(dir, '.cache'), 0o700);

    // A link in place of the cache file, or of the cache directory, to a planted one.
    const elsewhere = mkdtempSync(join(tmpdir(), 'adcp-code-cache-planted-'));
    try {
      const planted = plant();
      const target = join(elsewhere, 'planted.v8');
      writeFileSync(target, readFileSync(planted), { mode: 0o600 });
      rmSync(planted);
      symlinkSync(target, planted);
      assert.is(run(), '[true,false]', 'a symbolic link in place of a cache file: not followed');

      const real = plant();
      const linkedDir = join(elsewhere, 'v8');
      mkdirSync(linkedDir, { mode: 0o700 });
      writeFileSync(join(linkedDir, real.slice(cacheDir.length + 1)), readFileSync(real), { mode: 0o600 });
      rmSync(cacheDir, { recursive: true });
      symlinkSync(linkedDir, cacheDir);
      assert.is(run(), '[true,false]', 'a symbolic link in place of the cache directory: no cache');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();

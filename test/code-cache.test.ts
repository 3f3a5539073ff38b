import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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
 */

const release = loadRelease(sdkReleaseDir());
const files = compileValidators(release, ['create_media_buy']);
const ENTRY = 'releases/3.0/validate/create_media_buy.request.cjs';
const PARAMS = 'exports, require, module, __filename, __dirname';
const VALID = createMediaBuyRequest();

function fixture(): { dir: string; run: (env?: Record<string, string>) => string; cacheDir: string; entryCache: () => string; plant: () => string } {
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
  // The loader compiles exactly this text: the entry module's file, wrapped as CommonJS.
  const wrapped = `(function (${PARAMS}) {${readFileSync(join(dir, ENTRY), 'utf8')}\n})`;
  const key = createHash('sha256').update(wrapped).digest('hex');
  const entryCache = () => {
    const found = existsSync(cacheDir) ? readdirSync(cacheDir).filter((f) => f.startsWith(`${key}-`) && f.endsWith('.v8')) : [];
    assert.is(found.length, 1, 'one code cache for the entry module, keyed by the SHA-256 of its text');
    return join(cacheDir, found[0]!);
  };
  /** V8 cached data of a module as long as the real one whose validate accepts everything, under the real key. */
  const plant = () => {
    const head = `(function (${PARAMS}) {exports.validate = () => true;`;
    const evil = `${head}${' '.repeat(wrapped.length - head.length - 3)}\n})`;
    assert.is(evil.length, wrapped.length);
    const s = new Script(evil);
    // Run it (and its validate) first, so their bytecode is in the cached data rather than compiled later from the
    // real text at the same offsets.
    const fn = s.runInThisContext() as (exports: { validate?: () => boolean }, require: null, module: object) => void;
    const module = { exports: {} as { validate?: () => boolean } };
    fn(module.exports, null, module);
    module.exports.validate!();
    const file = entryCache();
    rmSync(file);
    // Prefixed with the SHA-256 of the real text, as the loader writes its own files: only owner and mode stop it.
    writeFileSync(file, Buffer.concat([createHash('sha256').update(wrapped).digest(), s.createCachedData()]), { mode: 0o600 });
    chmodSync(file, 0o600);
    return file;
  };
  return { dir, run, cacheDir, entryCache, plant };
}

test('code cache: holds only V8 data for the generated text, reused across processes, rebuilt when rejected', () => {
  const { dir, run, cacheDir, entryCache } = fixture();
  try {
    assert.is(run(), '[true,false]');
    assert.ok(readdirSync(cacheDir).length > 1, 'the entry and the definitions it reached');
    assert.ok(readdirSync(cacheDir).every((f) => f.endsWith('.v8')), 'no script text in the cache: only code caches');
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
    // Data made for another module (another cache file of this set, renamed or linked under this key) is not offered
    // to this text: the file starts with the SHA-256 of the text it was made from.
    const other = readdirSync(cacheDir).map((f) => join(cacheDir, f)).find((f) => f !== file)!;
    const own = readFileSync(file);
    writeFileSync(file, readFileSync(other));
    assert.is(run(), '[true,false]', 'another module\'s data under this key is not used');
    assert.ok(readFileSync(file).subarray(0, 32).equals(own.subarray(0, 32)), 'and replaced by data for this module\'s text');
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

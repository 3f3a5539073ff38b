import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildCache } from '../generator/shared/index.js';
import { cacheArea, readEntry, writeEntry } from '../runtime/artifacts/user-cache.js';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';

/**
 * This user's private cache (runtime/user-cache.ts), the only store the runtime's code cache and the generator's
 * build cache read: where it is, its key, and that an entry it did not write itself is never returned.
 */

const MODULE = pathToFileURL(join(repoRoot, 'dist/runtime/artifacts/user-cache.js')).href;

/** In a new process with `env` (and no ADCP_CODEGEN_CACHE_DIR unless given): the v8 area's directory and key. */
function probe(env: Record<string, string | undefined>): { dir: string; key: string } | null {
  const script = `const { cacheArea } = await import(${JSON.stringify(MODULE)}); const a = cacheArea('v8'); process.stdout.write(JSON.stringify(a && { dir: a.dir, key: a.key.toString('hex') }));`;
  const { ADCP_CODEGEN_CACHE_DIR: _, XDG_CACHE_HOME: __, ...rest } = process.env;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...rest, ...env } as NodeJS.ProcessEnv, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { dir: string; key: string } | null;
}

function inStore<T>(dir: string, fn: () => T): T {
  const before = process.env.ADCP_CODEGEN_CACHE_DIR;
  process.env.ADCP_CODEGEN_CACHE_DIR = dir;
  try {
    return fn();
  } finally {
    process.env.ADCP_CODEGEN_CACHE_DIR = before;
  }
}

test('where: the override, else $XDG_CACHE_HOME, else ~/.cache, else the temp dir; never a relative path', () => {
  const base = tempDir('adcp-user-cache-where-');
  assert.is(probe({ ADCP_CODEGEN_CACHE_DIR: join(base, 'override') })?.dir, join(base, 'override', 'v8'));
  assert.is(probe({ XDG_CACHE_HOME: join(base, 'xdg'), HOME: join(base, 'home') })?.dir, join(base, 'xdg', 'adcp-codegen', 'v8'));
  assert.is(probe({ HOME: join(base, 'home') })?.dir, join(base, 'home', '.cache', 'adcp-codegen', 'v8'));
  assert.is(statSync(join(base, 'home', '.cache')).mode & 0o777, 0o700, 'a missing ~/.cache is made private, as XDG asks');
  // A home that cannot hold one (a file in its place): the temp dir, private to this user.
  writeFileSync(join(base, 'nohome'), '');
  const fallback = probe({ HOME: join(base, 'nohome') });
  assert.is(fallback?.dir, join(process.env.TMPDIR!, `adcp-codegen-${process.getuid!()}`, 'v8'));
  assert.is(probe({ ADCP_CODEGEN_CACHE_DIR: 'relative/cache' }), null, 'a relative override: no cache at all');
  assert.not.ok(existsSync(join(process.cwd(), 'relative')));
});

test('the key: made once, by whichever process comes first, the same for every process after', async () => {
  const dir = join(tempDir('adcp-user-cache-race-'), 'cache');
  const script = `const { cacheArea } = await import(${JSON.stringify(MODULE)}); process.stdout.write(cacheArea('x')?.key.toString('hex') ?? 'none');`;
  const keys = await Promise.all(
    Array.from({ length: 6 }, () =>
      new Promise<string>((resolve, reject) => {
        let out = '';
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, ADCP_CODEGEN_CACHE_DIR: dir } });
        child.stdout.on('data', (c: Buffer) => (out += String(c)));
        child.on('error', reject);
        // 'close', not 'exit': a child's stdout may still hold its output when it exits (a loaded CI machine read '').
        child.on('close', () => resolve(out));
      }),
    ),
  );
  assert.is(new Set(keys).size, 1, keys.join(' '));
  assert.is(keys[0], readFileSync(join(dir, 'key')).toString('hex'));
  assert.equal(readdirSync(dir).sort(), ['key', 'x'], 'no temporary key file left behind');
});

test('entries: read back only with this store\'s key, under the name they were written as', () => {
  const dir = join(tempDir('adcp-user-cache-entries-'), 'cache');
  const area = inStore(dir, () => cacheArea('prettier'))!;
  assert.ok(writeEntry(area, 'a', [Buffer.from('formatted '), Buffer.from('text')]));
  assert.is(readEntry(area, 'a')?.toString(), 'formatted text');
  assert.is(readEntry(area, 'b'), undefined, 'a miss');
  assert.ok(writeEntry({ dir: area.dir, key: randomBytes(32) }, 'c', [Buffer.from('planted')]));
  assert.is(readEntry(area, 'c'), undefined, 'written with another key');
  renameSync(join(area.dir, 'a'), join(area.dir, 'd'));
  assert.is(readEntry(area, 'd'), undefined, 'renamed');
  writeFileSync(join(area.dir, 'e'), 'ADCPCG01', { mode: 0o600 });
  assert.is(readEntry(area, 'e'), undefined, 'truncated');
  assert.ok(writeEntry(area, 'f', []));
  assert.is(readEntry(area, 'f')?.length, 0, 'an empty payload is a valid entry');
});

test('the build cache over it: says when the private cache is unusable, and then neither keeps nor returns anything', () => {
  const dir = join(tempDir('adcp-user-cache-open-'), 'cache');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  const open = inStore(dir, () => buildCache());
  assert.match(open.unusable ?? '', /no private cache usable: .* must be a directory this user owns that no one else can read or write; every run compiles everything/);
  inStore(dir, () => open.set('prettier', 'k', 'text'));
  assert.is(inStore(dir, () => open.get('prettier', 'k')), undefined);
  assert.equal(readdirSync(dir), [], 'nothing written into a directory others can read');
  chmodSync(dir, 0o700);
  const usable = inStore(dir, () => buildCache());
  assert.is(usable.unusable, undefined);
  inStore(dir, () => usable.set('prettier', 'k', 'text'));
  assert.is(inStore(dir, () => usable.get('prettier', 'k')), 'text');
  assert.is(inStore(dir, () => buildCache({ read: false }).get('prettier', 'k')), undefined, '--check reads nothing');
});

test.run();

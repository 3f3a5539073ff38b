/**
 * Loads generated CommonJS artifacts synchronously, lazily and once, with a V8 code cache that can only ever speed up
 * compiling a generated module's own text.
 *
 * A validator module is loaded on the first call of its tool; what it requires loads when it is first reached. The
 * code that runs is always the text of the module file in the generated set, read at load time. The cache holds V8's
 * code cache for that text (`vm.Script` `cachedData`) after an exact copy of the text it was made from; the data is
 * offered to V8 only when that copy equals, byte for byte, the text being compiled now (V8's own check is the build
 * and the source length only, and `cachedDataRejected` says when the data did not fit; it is rewritten then). The
 * copy is compared, never executed. Comparing the bytes, rather than keying files by a digest of the text, is exact
 * and costs a memcmp where a digest would cost loading `node:crypto` (with its ciphers and streams, ~3-5 ms of a
 * cold start) and hashing the text. Cached data is compiled code, so it is only read from a directory chain and from
 * files owned by the current user and writable by no one else, opened without following symbolic links; on any
 * doubt the module is compiled from its text without a cache. The code cache is written after the current turn
 * (when the module has usually run, so the functions it compiled lazily are in it); a read-only output, a missing
 * directory or ADCP_CODEGEN_NO_CODE_CACHE=1 means compiling.
 *
 * Copied into the generated output with the rest of the runtime: node: builtins only.
 */
import { accessSync, closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Script } from 'node:vm';

interface CjsModule {
  exports: unknown;
}

type ModuleFunction = (exports: unknown, require: (id: string) => unknown, module: CjsModule, filename: string, dirname: string) => void;

/** Bump when the wrapper below or the cache file layout changes: the copy compared is the module file's text only. */
const WRAPPER_VERSION = '4';
const MODULE_PARAMS = 'exports, require, module, __filename, __dirname';

/** Node and V8 build: cached code from another build is useless (V8 would reject it anyway). */
const RUNTIME_KEY = `w${WRAPPER_VERSION}-${process.version}-${process.arch}-v8_${process.versions.v8}`.replace(/[^A-Za-z0-9_.-]/g, '_');

/** A cache file: the text's byte length (uint32, little-endian), the text, then V8's cached data. */
const LENGTH_BYTES = 4;

/**
 * Modules shorter than this compile from their text: for a few kilobytes V8's lazy compile costs less than opening,
 * checking and deserialising a cache file (measured: ~0.07 ms against ~0.2 ms per module at a cold start).
 */
const MIN_CACHED_BYTES = 4096;

/** A code cache larger than this is not ours to trust (the largest generated module compiles to a few MB). */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

const loaded = new Map<string, CjsModule>();
const loadedBy = new Map<string, Set<string>>();
const cacheDirs = new Map<string, string | null>();
const resolved = new Map<string, string>();
const pendingWrites: (() => void)[] = [];
let flushScheduled = false;
let exitHook = false;

/**
 * The `module.exports` of `<outDir>/<relPath>`, loading it (and what it requires) on first use. `relPath` must stay
 * inside `outDir`; artifacts may require only relative paths inside it.
 */
export function loadArtifact(outDir: string, relPath: string): unknown {
  const root = resolve(outDir);
  return requireModule(root, inside(root, resolve(root, relPath), relPath));
}

/** Several artifacts at once (every validator of a profile, say). */
export function loadArtifacts(outDir: string, relPaths: readonly string[]): unknown[] {
  return relPaths.map((rel) => loadArtifact(outDir, rel));
}

/** Paths (relative to `outDir`, sorted) of every module loaded from it so far: what the calls really pulled in. */
export function loadedArtifacts(outDir: string): string[] {
  const root = resolve(outDir);
  return [...(loadedBy.get(root) ?? [])].map((p) => relative(root, p).split(sep).join('/')).sort();
}

/** Writes pending code caches now rather than after the current turn (benchmarks, tests). */
export function flushCodeCache(): void {
  flushScheduled = false;
  for (const write of pendingWrites.splice(0)) {
    try {
      write();
    } catch {
      // A cache we cannot write costs the next process a compile, nothing more.
    }
  }
}

/** `file` (absolute and normalised by `resolve`) when it lies strictly inside `root` (also resolved). */
function inside(root: string, file: string, asked: string): string {
  // A prefix test on two resolved paths: no `..` segment is left in either, so a path under root starts with it.
  const prefix = root.endsWith(sep) ? root : root + sep;
  if (file.length <= prefix.length || !file.startsWith(prefix)) {
    throw new Error(`artifact ${JSON.stringify(asked)} is outside the generated directory`);
  }
  return file;
}

function requireModule(root: string, file: string): unknown {
  const known = loaded.get(file);
  if (known !== undefined) return known.exports;
  const fn = compileModule(root, file, readWrapped(file));
  const module: CjsModule = { exports: {} };
  // Registered before it runs, so a definition cycle sees the partly initialised exports (they set `validate` first).
  loaded.set(file, module);
  let set = loadedBy.get(root);
  if (set === undefined) loadedBy.set(root, (set = new Set()));
  set.add(file);
  const dir = dirname(file);
  const requireArtifact = (id: string): unknown => requireModule(root, resolveRequire(root, file, dir, id));
  try {
    fn.call(module.exports, module.exports, requireArtifact, module, file, dir);
  } catch (e) {
    loaded.delete(file);
    set.delete(file);
    throw e;
  }
  return module.exports;
}

function resolveRequire(root: string, file: string, dir: string, id: string): string {
  const key = `${dir}\0${id}`;
  const known = resolved.get(key);
  if (known !== undefined) return known;
  if (!id.startsWith('./') && !id.startsWith('../')) {
    throw new Error(`${relative(root, file)}: generated artifacts may require only relative paths, not ${JSON.stringify(id)}`);
  }
  const target = inside(root, resolve(dir, id), id);
  resolved.set(key, target);
  return target;
}

/** The CommonJS wrapper around a module's text, as bytes (ASCII). */
const WRAP_HEAD = Buffer.from(`(function (${MODULE_PARAMS}) {`);
const WRAP_TAIL = Buffer.from('\n})');

/** A module file read once into its wrapper: `bytes` is the wrapped source, `text` the file's bytes within it. */
interface Wrapped {
  readonly bytes: Buffer;
  readonly text: Buffer;
}

/**
 * The file's bytes read straight between the wrapper's, so the source V8 compiles is decoded once into one flat
 * string (decoding the text and then concatenating the wrapper made two copies of every module on the JS heap,
 * enough to cost a cold start a garbage collection).
 */
function readWrapped(file: string): Wrapped {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const bytes = Buffer.allocUnsafe(WRAP_HEAD.length + size + WRAP_TAIL.length);
    WRAP_HEAD.copy(bytes, 0);
    if (!readFully(fd, bytes, WRAP_HEAD.length, size)) throw new Error(`${file} changed while it was read`);
    WRAP_TAIL.copy(bytes, WRAP_HEAD.length + size);
    return { bytes, text: bytes.subarray(WRAP_HEAD.length, WRAP_HEAD.length + size) };
  } finally {
    closeSync(fd);
  }
}

/** The file's first `size` bytes into `buf` at `at`; false when it ends sooner (it changed while read). */
function readFully(fd: number, buf: Buffer, at: number, size: number): boolean {
  for (let n = 0; n < size; ) {
    const got = readSync(fd, buf, at + n, size - n, n);
    if (got === 0) return false;
    n += got;
  }
  return true;
}

/**
 * Compiles the module text, wrapped as CommonJS, with V8's code cache for exactly this text when a trusted one
 * exists; otherwise a code cache is written once the module has run.
 */
function compileModule(root: string, file: string, { bytes, text }: Wrapped): ModuleFunction {
  const wrapped = bytes.toString('utf8');
  const cacheDir = text.length < MIN_CACHED_BYTES || process.env.ADCP_CODEGEN_NO_CODE_CACHE === '1' ? null : codeCacheDir(root);
  if (cacheDir === null) return new Script(wrapped, { filename: file }).runInThisContext() as ModuleFunction;
  const cacheFile = join(cacheDir, cacheName(root, file));
  const stored = readPrivate(cacheFile);
  const cachedData = stored !== undefined && madeFrom(stored, text) ? stored.subarray(LENGTH_BYTES + text.length) : undefined;
  const script = new Script(wrapped, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected === true) {
    schedule(() => {
      const head = Buffer.allocUnsafe(LENGTH_BYTES);
      head.writeUInt32LE(text.length, 0);
      writePrivate(cacheFile, Buffer.concat([head, text, script.createCachedData()]));
    });
  }
  return script.runInThisContext() as ModuleFunction;
}

/** Whether a cache file's data was made from exactly `text` (its stored copy is the same bytes). */
function madeFrom(stored: Buffer, text: Buffer): boolean {
  const end = LENGTH_BYTES + text.length;
  return stored.length > end && stored.readUInt32LE(0) === text.length && stored.subarray(LENGTH_BYTES, end).equals(text);
}

/**
 * The cache file of a module: its path inside the set, made a file name, and a hash of the set's directory (the
 * temp-dir fallback is shared by every set of this user; without it two sets would keep replacing each other's
 * entries). Names only find entries: what makes an entry usable is `madeFrom`.
 */
function cacheName(root: string, file: string): string {
  // `file` lies inside `root` (both resolved: `inside`), so its path in the set is what follows the root; the suffix
  // is the same for every module of a set (a cold start names a dozen entries: measured ~0.4 ms before this).
  let suffix = cacheSuffixes.get(root);
  if (suffix === undefined) cacheSuffixes.set(root, (suffix = `-${fnv1a(root)}-${RUNTIME_KEY}.v8`));
  return file.slice(root.length + (root.endsWith(sep) ? 0 : 1)).replace(/[^A-Za-z0-9_.-]/g, '~') + suffix;
}

const cacheSuffixes = new Map<string, string>();

/** FNV-1a, 32 bits, hex: a short, stable tag of a string (not a security boundary; see `madeFrom`). */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;

/** Ours alone: owned by this user, writable by no one else. */
function ownedPrivately(st: { uid: number; mode: number }): boolean {
  return uid !== undefined && st.uid === uid && (st.mode & 0o022) === 0;
}

/**
 * A cache file's bytes, only when it is a regular file (not a link: opened with O_NOFOLLOW) that this user owns and
 * no one else can write; anything else is as good as no cache.
 */
function readPrivate(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || !ownedPrivately(st) || st.size === 0 || st.size > MAX_CACHE_BYTES) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    return readFully(fd, buf, 0, st.size) ? buf : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

let tmpSerial = 0;

/** Written to a new private file (never an existing one: `wx`), then renamed into place. */
function writePrivate(file: string, data: Buffer): void {
  const tmp = `${file}.${process.pid}-${Date.now().toString(36)}-${tmpSerial++}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
  try {
    renameSync(tmp, file);
  } catch (e) {
    unlinkSync(tmp);
    throw e;
  }
}

function hookExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', flushCodeCache);
}

function schedule(write: () => void): void {
  pendingWrites.push(write);
  hookExit();
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushCodeCache).unref();
  }
}

/**
 * `<outDir>/.cache/v8` when it can be ours, else a private `adcp-codegen-v8-<uid>` directory under the OS temp dir,
 * else none. Every directory from the cache root down must be a real directory (not a link) owned by this user and
 * writable by no one else: whoever can write there could plant compiled code. Without a user id to compare
 * (Windows) there is no cache.
 */
function codeCacheDir(root: string): string | null {
  const known = cacheDirs.get(root);
  if (known !== undefined) return known;
  let chosen: string | null = null;
  if (uid !== undefined) {
    // Thunks: the temp-dir fallback (and node:os with it) is only looked at when the output cannot hold the cache.
    const candidates: (() => [string, string[]])[] = [
      () => [join(root, '.cache', 'v8'), [join(root, '.cache'), join(root, '.cache', 'v8')]],
      () => [join(tmpdir(), `adcp-codegen-v8-${uid}`), [join(tmpdir(), `adcp-codegen-v8-${uid}`)]],
    ];
    for (const candidate of candidates) {
      try {
        const [dir, chain] = candidate();
        let created = false;
        for (const d of chain) {
          // Created only when missing (a failed mkdir throws, and building that error costs more than the lstat).
          let st = lstatSync(d, { throwIfNoEntry: false });
          if (st === undefined) {
            try {
              mkdirSync(d, { mode: 0o700 });
              created = true;
            } catch (e) {
              if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
            }
            st = lstatSync(d);
          }
          if (!st.isDirectory() || !ownedPrivately(st)) throw new Error(`${d} is not private`);
        }
        // Checked once, when the directory is made (a cold start pays for every syscall): an existing cache directory
        // that turns out read-only only means writes fail, which costs nothing but the cache.
        if (created) {
          accessSync(dir, constants.W_OK);
          if (dir.startsWith(join(root, '.cache'))) {
            // The output directory is committed by agents: keep the cache out of their repository.
            try {
              writeFileSync(join(root, '.cache', '.gitignore'), '*\n', { flag: 'wx', mode: 0o644 });
            } catch (e) {
              if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
            }
          }
        }
        chosen = dir;
        break;
      } catch {
        // read-only output (a container image, a package), or a directory that is not ours alone: try the next place
      }
    }
  }
  cacheDirs.set(root, chosen);
  return chosen;
}

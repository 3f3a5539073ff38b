/**
 * Loads generated CommonJS artifacts synchronously, lazily and once, with a V8 code cache that can only ever speed up
 * compiling a generated module's own text.
 *
 * A validator module is loaded on the first call of its tool; what it requires loads when it is first reached. The
 * code that runs is always the text of the module file in the generated set, read at load time. Nothing else in the
 * set's tree decides what runs: the code cache lives in this user's private cache (user-cache.ts), never beside the
 * set, so no file a repository carries is ever handed to V8 as compiled code.
 *
 * An entry holds V8's code cache for a module's text (`vm.Script` `cachedData`) after an exact copy of the text it was
 * made from; the data is offered to V8 only when that copy equals, byte for byte, the text being compiled now (V8's
 * own check is the build and the source length only, and `cachedDataRejected` says when the data did not fit; it is
 * rewritten then), and only from an entry the store's own key authenticates (user-cache.ts: a planted or copied entry
 * is ignored). The copy is compared, never executed. Comparing the bytes, rather than keying entries by a digest of
 * the text, is exact and costs a memcmp where a digest would cost loading `node:crypto` (~5 ms of a cold start) and
 * hashing the text. The code cache is written after the current turn (when the module has usually run, so the
 * functions it compiled lazily are in it); no usable private cache, or ADCP_CODEGEN_NO_CODE_CACHE=1, means compiling.
 *
 * Copied into the generated output with the rest of the runtime: node: builtins and the bootstrap's user-cache.ts.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { Script } from 'node:vm';
import { cacheArea, readEntry, readFully, writeEntry, type CacheArea } from './user-cache.js';

interface CjsModule {
  exports: unknown;
}

type ModuleFunction = (exports: unknown, require: (id: string) => unknown, module: CjsModule, filename: string, dirname: string) => void;

/** Bump when the wrapper below or the cache file layout changes: the copy compared is the module file's text only. */
const WRAPPER_VERSION = '5';
const MODULE_PARAMS = 'exports, require, module, __filename, __dirname';

/** Node and V8 build: cached code from another build is useless (V8 would reject it anyway). */
const RUNTIME_KEY = `w${WRAPPER_VERSION}-${process.version}-${process.arch}-v8_${process.versions.v8}`.replace(/[^A-Za-z0-9_.-]/g, '_');

/** An entry's payload: the text's byte length (uint32, little-endian), the text, then V8's cached data. */
const LENGTH_BYTES = 4;

/**
 * Modules shorter than this compile from their text: for a few kilobytes V8's lazy compile costs less than opening,
 * checking and deserialising a cache file (measured: ~0.07 ms against ~0.2 ms per module at a cold start).
 */
const MIN_CACHED_BYTES = 4096;

const loaded = new Map<string, CjsModule>();
const loadedBy = new Map<string, Set<string>>();
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

/**
 * Compiles the module text, wrapped as CommonJS, with V8's code cache for exactly this text when this user's private
 * cache holds one; otherwise a code cache is written there once the module has run.
 */
function compileModule(root: string, file: string, { bytes, text }: Wrapped): ModuleFunction {
  const wrapped = bytes.toString('utf8');
  const area = text.length < MIN_CACHED_BYTES ? null : codeCache();
  if (area === null) return new Script(wrapped, { filename: file }).runInThisContext() as ModuleFunction;
  const name = cacheName(root, file);
  const stored = readEntry(area, name);
  const cachedData = stored !== undefined && madeFrom(stored, text) ? stored.subarray(LENGTH_BYTES + text.length) : undefined;
  const script = new Script(wrapped, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected === true) {
    schedule(() => {
      const head = Buffer.allocUnsafe(LENGTH_BYTES);
      head.writeUInt32LE(text.length, 0);
      writeEntry(area, name, [head, text, script.createCachedData()]);
    });
  }
  return script.runInThisContext() as ModuleFunction;
}

/** Whether an entry's data was made from exactly `text` (its stored copy is the same bytes). */
function madeFrom(stored: Buffer, text: Buffer): boolean {
  const end = LENGTH_BYTES + text.length;
  return stored.length > end && stored.readUInt32LE(0) === text.length && stored.subarray(LENGTH_BYTES, end).equals(text);
}

let codeCacheArea: CacheArea | null | undefined;

/** The private cache's `v8` area, or null: none usable, or ADCP_CODEGEN_NO_CODE_CACHE=1. Looked up once a process. */
function codeCache(): CacheArea | null {
  if (codeCacheArea === undefined) codeCacheArea = process.env.ADCP_CODEGEN_NO_CODE_CACHE === '1' ? null : cacheArea('v8');
  return codeCacheArea;
}

/**
 * The entry name of a module: its path inside the set, made a file name, a hash of the set's directory (one store
 * serves every set of this user; without it two sets would keep replacing each other's entries) and the Node build.
 * Names only find entries: what makes an entry usable is its key (user-cache.ts) and `madeFrom`.
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

const EXIT_FLUSHES = Symbol.for('adcp-codegen.code-cache-flushes');

/**
 * One exit listener for every set loaded in the process, each of which bundles its own loader (a test process, or a
 * host serving several agents, loads many): a listener per set passed Node's limit of ten.
 */
function hookExit(): void {
  if (exitHook) return;
  exitHook = true;
  const registry = globalThis as unknown as Record<symbol, Set<() => void> | undefined>;
  let flushes = registry[EXIT_FLUSHES];
  if (flushes === undefined) {
    const all = (flushes = registry[EXIT_FLUSHES] = new Set());
    process.once('exit', () => {
      for (const flush of all) flush();
    });
  }
  flushes.add(flushCodeCache);
}

function schedule(write: () => void): void {
  pendingWrites.push(write);
  hookExit();
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushCodeCache).unref();
  }
}

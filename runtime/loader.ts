/**
 * Loads generated CommonJS artifacts synchronously, lazily and once, with a V8 code cache. A validator is loaded on
 * the first call of its tool, together with the definition modules it requires and nothing else. Each module is
 * compiled through `vm.Script` with `cachedData` read from a cache directory keyed by the module's content hash and
 * the Node/V8 version; a missing or rejected cache (`cachedDataRejected`) is rebuilt after the module has run, so
 * the functions it compiled on first use are in it. The cache is an optimisation only: a read-only or missing
 * directory, a corrupt file or ADCP_CODEGEN_NO_CODE_CACHE=1 simply means compiling from source.
 *
 * Copied into the generated output with the rest of the runtime: node: builtins only.
 */
import { accessSync, constants, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Script } from 'node:vm';

interface CjsModule {
  exports: unknown;
}

type ModuleFunction = (exports: unknown, require: (id: string) => unknown, module: CjsModule, filename: string, dirname: string) => void;

/** Bump when the wrapper below changes: cached code for the old wrapper must not be offered to the new one. */
const WRAPPER_VERSION = '1';
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {';
const WRAPPER_TAIL = '\n})';

const modules = new Map<string, CjsModule>();
const loadedBy = new Map<string, Set<string>>();
const cacheDirs = new Map<string, string | null>();
const pending: { script: Script; file: string }[] = [];
let flushScheduled = false;
let exitHook = false;

/**
 * The `module.exports` of `<outDir>/<relPath>`, loading it (and what it requires) on first use. `relPath` must stay
 * inside `outDir`; artifacts may require only relative paths inside it.
 */
export function loadArtifact(outDir: string, relPath: string): unknown {
  const root = resolve(outDir);
  return load(root, inside(root, resolve(root, relPath), relPath));
}

/** Paths (relative to `outDir`, sorted) of every module loaded from it so far: what a call really pulled in. */
export function loadedArtifacts(outDir: string): string[] {
  const root = resolve(outDir);
  return [...(loadedBy.get(root) ?? [])].map((p) => relative(root, p).split(sep).join('/')).sort();
}

/** Writes the code caches still pending now rather than after the current turn (benchmarks, tests). */
export function flushCodeCache(): void {
  flushScheduled = false;
  for (const { script, file } of pending.splice(0)) {
    try {
      const data = script.createCachedData();
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, data);
      renameSync(tmp, file);
    } catch {
      // A cache we cannot write costs the next process a compile, nothing more.
    }
  }
}

function inside(root: string, file: string, asked: string): string {
  const rel = relative(root, file);
  if (rel === '' || rel.startsWith('..') || resolve(root, rel) !== file) {
    throw new Error(`artifact ${JSON.stringify(asked)} is outside the generated directory`);
  }
  return file;
}

function load(root: string, file: string): unknown {
  const known = modules.get(file);
  if (known !== undefined) return known.exports;
  const source = readFileSync(file, 'utf8');
  const module: CjsModule = { exports: {} };
  // Registered before it runs, so a definition cycle sees the partly initialised exports (they set `validate` first).
  modules.set(file, module);
  let set = loadedBy.get(root);
  if (set === undefined) loadedBy.set(root, (set = new Set()));
  set.add(file);
  try {
    const fn = compile(root, file, source);
    const dir = dirname(file);
    const requireArtifact = (id: string): unknown => {
      if (!id.startsWith('./') && !id.startsWith('../')) {
        throw new Error(`${relative(root, file)}: generated artifacts may require only relative paths, not ${JSON.stringify(id)}`);
      }
      return load(root, inside(root, resolve(dir, id), id));
    };
    fn.call(module.exports, module.exports, requireArtifact, module, file, dir);
  } catch (e) {
    modules.delete(file);
    set.delete(file);
    throw e;
  }
  return module.exports;
}

function compile(root: string, file: string, source: string): ModuleFunction {
  const wrapped = WRAPPER_HEAD + source + WRAPPER_TAIL;
  const cacheDir = process.env.ADCP_CODEGEN_NO_CODE_CACHE === '1' ? null : codeCacheDir(root);
  if (cacheDir === null) return new Script(wrapped, { filename: file }).runInThisContext() as ModuleFunction;
  const cacheFile = join(cacheDir, `${contentKey(source)}-${source.length}-${RUNTIME_KEY}.v8`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(wrapped, { filename: file, cachedData });
  if (cachedData === undefined || script.cachedDataRejected === true) schedule(script, cacheFile);
  return script.runInThisContext() as ModuleFunction;
}

/** Node and V8 build: cached code from another build is useless (V8 would reject it anyway). */
const RUNTIME_KEY = `w${WRAPPER_VERSION}-${process.version}-${process.arch}-v8_${process.versions.v8}`.replace(/[^A-Za-z0-9_.-]/g, '_');

/**
 * A 64-bit content hash (two FNV-1a lanes) of the module text, in plain JavaScript: node:crypto's first use
 * initialises OpenSSL, which alone costs more than loading a tool's validators from the cache.
 */
function contentKey(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** `<outDir>/.cache/v8` when writable, else a directory under the OS temp dir, else none. */
function codeCacheDir(root: string): string | null {
  const known = cacheDirs.get(root);
  if (known !== undefined) return known;
  let chosen: string | null = null;
  for (const dir of [join(root, '.cache', 'v8'), join(tmpdir(), 'adcp-codegen-v8-cache')]) {
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK);
      chosen = dir;
      break;
    } catch {
      // read-only output (a container image, a package): try the next place
    }
  }
  cacheDirs.set(root, chosen);
  return chosen;
}

/**
 * Cached data is produced after the current turn: by then the caller has usually run the validator once, so the
 * lazily compiled validate functions are in the cache too. Pending caches are also written at exit.
 */
function schedule(script: Script, file: string): void {
  pending.push({ script, file });
  if (!exitHook) {
    exitHook = true;
    process.once('exit', flushCodeCache);
  }
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushCodeCache).unref();
  }
}

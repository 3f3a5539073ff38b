/**
 * Loads generated CommonJS artifacts synchronously, lazily and once, with a V8 code cache.
 *
 * A validator module is loaded on the first call of its tool; the definitions it uses are required on first use
 * (generated code calls a stub that requires the definition's module and replaces itself), so a payload loads only
 * the code it reaches. Loading many small modules one by one costs more in file reads and compiles than the code
 * itself, so the loader keeps a *snapshot* per entry (a tool module, or a set loaded together by loadArtifacts) in
 * a cache directory: the modules that entry has loaded so far, concatenated into one script, plus V8's code cache
 * for that script (`vm.Script` `cachedData`, checked with `cachedDataRejected` and rebuilt when rejected). Keyed by
 * the entry's content hash and the Node/V8 build: generated modules are content-addressed (a definition's file
 * name carries the hash of its text and of everything it requires), so an entry's text determines its closure.
 * The first process loads from the files and writes the snapshot after its first turn (when it has usually
 * validated once) and again at exit if more modules joined; the next compiles the snapshot and writes the code
 * cache once the code has run (so the validate functions are compiled in it); later processes deserialize. The
 * cache is an optimisation only: a read-only or missing directory, a corrupt file or ADCP_CODEGEN_NO_CODE_CACHE=1
 * means loading the files.
 *
 * Copied into the generated output with the rest of the runtime: node: builtins only.
 */
import { accessSync, constants, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { Script } from 'node:vm';

interface CjsModule {
  exports: unknown;
}

type ModuleFunction = (exports: unknown, require: (id: string) => unknown, module: CjsModule, filename: string, dirname: string) => void;

/** Bump when the wrappers below change: cached code for old wrappers must not be offered to new ones. */
const WRAPPER_VERSION = '2';
const MODULE_PARAMS = 'exports, require, module, __filename, __dirname';

/** Node and V8 build: cached code from another build is useless (V8 would reject it anyway). */
const RUNTIME_KEY = `w${WRAPPER_VERSION}-${process.version}-${process.arch}-v8_${process.versions.v8}`.replace(/[^A-Za-z0-9_.-]/g, '_');

interface Loaded {
  readonly module: CjsModule;
  readonly source: string;
  /** Modules it required while it ran, in order (its part of the closure). */
  readonly deps: string[];
}

const loaded = new Map<string, Loaded>();
/** Module functions from a snapshot that have not run yet. */
const pendingFactories = new Map<string, ModuleFunction>();
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
  return loadArtifacts(outDir, [relPath])[0];
}

/**
 * Several artifacts at once (every validator of a profile, say): their closures share one snapshot, so a module
 * required by many of them is read and compiled once.
 */
export function loadArtifacts(outDir: string, relPaths: readonly string[]): unknown[] {
  const root = resolve(outDir);
  const files = relPaths.map((rel) => inside(root, resolve(root, rel), rel));
  if (files.every((f) => loaded.has(f))) return files.map((f) => loaded.get(f)!.module.exports);
  return loadEntries(root, files);
}

/** Paths (relative to `outDir`, sorted) of every module loaded from it so far: what the calls really pulled in. */
export function loadedArtifacts(outDir: string): string[] {
  const root = resolve(outDir);
  return [...(loadedBy.get(root) ?? [])].map((p) => relative(root, p).split(sep).join('/')).sort();
}

/** Writes pending snapshots and code caches now rather than after the current turn (benchmarks, tests). */
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

function inside(root: string, file: string, asked: string): string {
  const rel = relative(root, file);
  if (rel === '' || rel.startsWith('..') || resolve(root, rel) !== file) {
    throw new Error(`artifact ${JSON.stringify(asked)} is outside the generated directory`);
  }
  return file;
}

/**
 * A module required by another: already loaded, from a snapshot, or from its file — in which case the entry whose
 * closure it joins picks it up in its snapshot (the requires each module made are recorded).
 */
function requireModule(root: string, file: string): unknown {
  const known = loaded.get(file);
  if (known !== undefined) return known.module.exports;
  const factory = pendingFactories.get(file);
  if (factory !== undefined) return run(root, file, factory, undefined);
  return fromFile(root, file);
}

/**
 * Entry modules (a tool's validator, or a set of them): their snapshot when there is one, else their files, and a
 * snapshot for the next process. The snapshot key covers the entries' texts, which determine their closures.
 */
function loadEntries(root: string, files: readonly string[]): unknown[] {
  {
    const cacheDir = process.env.ADCP_CODEGEN_NO_CODE_CACHE === '1' ? null : codeCacheDir(root);
    if (cacheDir === null) return files.map((f) => requireModule(root, f));
    const sources = files.map((f) => (loaded.has(f) ? '' : readFileSync(f, 'utf8')));
    const text = sources.join('\0');
    const snapshot = join(cacheDir, `${contentKey(text)}-${text.length}-${files.length}-${RUNTIME_KEY}`);
    const haveSnapshot = loadSnapshot(root, snapshot, files);
    let complete = haveSnapshot;
    const exports = files.map((f, i) => {
      const known = loaded.get(f);
      if (known !== undefined) return known.module.exports;
      const factory = pendingFactories.get(f);
      if (factory !== undefined) return run(root, f, factory, undefined);
      complete = false;
      return run(root, f, compileModule(f, sources[i]!), sources[i]!);
    });
    if (!complete) scheduleSnapshot(root, files, snapshot);
    else hookExit();
    return exports;
  }
}

function fromFile(root: string, file: string): unknown {
  const source = readFileSync(file, 'utf8');
  return run(root, file, compileModule(file, source), source);
}

function run(root: string, file: string, fn: ModuleFunction, source: string | undefined): unknown {
  pendingFactories.delete(file);
  const module: CjsModule = { exports: {} };
  const record: Loaded = { module, source: source ?? '', deps: [] };
  // Registered before it runs, so a definition cycle sees the partly initialised exports (they set `validate` first).
  loaded.set(file, record);
  let set = loadedBy.get(root);
  if (set === undefined) loadedBy.set(root, (set = new Set()));
  set.add(file);
  const dir = dirname(file);
  const requireArtifact = (id: string): unknown => {
    const target = resolveRequire(root, file, dir, id);
    record.deps.push(target);
    return requireModule(root, target);
  };
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

function compileModule(file: string, source: string): ModuleFunction {
  return new Script(`(function (${MODULE_PARAMS}) {${source}\n})`, { filename: file }).runInThisContext() as ModuleFunction;
}

/**
 * Registers the module functions of a snapshot (`<key>.js`, one script defining every module of an entry's
 * closure) without running them; with its code cache (`<key>.v8`) when V8 accepts it, otherwise a new code cache is
 * written once the modules have run. False when there is no usable snapshot.
 */
function loadSnapshot(root: string, base: string, entries: readonly string[]): boolean {
  let text: string;
  try {
    text = readFileSync(`${base}.js`, 'utf8');
  } catch {
    return false;
  }
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(`${base}.v8`);
  } catch {
    cachedData = undefined;
  }
  try {
    const script = new Script(text, { filename: `${base}.js`, cachedData });
    const define = script.runInThisContext() as (register: (rel: string, fn: ModuleFunction) => void) => void;
    const held: string[] = [];
    define((rel, fn) => {
      const file = join(root, rel);
      held.push(file);
      if (!loaded.has(file)) pendingFactories.set(file, fn);
    });
    snapshots.set(base, { root, entries, modules: held.length, held });
    if (cachedData === undefined || script.cachedDataRejected === true) {
      schedule(() => writeAtomically(`${base}.v8`, script.createCachedData()));
    }
    return true;
  } catch {
    return false;
  }
}

/** Snapshots this process read or wrote, with how many modules they hold: grown ones are rewritten at exit. */
const snapshots = new Map<string, { root: string; entries: readonly string[]; modules: number; held: string[] }>();

/**
 * After the current turn (by which time the caller has usually validated once): the modules the entries have
 * loaded so far, as one script, for the next process. Definitions load on first use, so this is what payloads
 * really reach; modules loaded later are added when the process exits.
 */
function scheduleSnapshot(root: string, entries: readonly string[], base: string): void {
  snapshots.set(base, { root, entries, modules: 0, held: [] });
  schedule(() => writeSnapshot(base));
  hookExit();
}

function writeSnapshot(base: string): void {
  const known = snapshots.get(base);
  if (known === undefined) return;
  // What this process loaded, plus what the snapshot held that this process did not need: it only ever grows.
  const order = closureOf(known.entries);
  const inOrder = new Set(order);
  for (const file of known.held) if (!inOrder.has(file)) order.push(file);
  if (order.length <= known.modules) return;
  const parts = order.map((file) => {
    const rel = relative(known.root, file).split(sep).join('/');
    // Modules that ran from a snapshot are read again from their files (off the hot path).
    const source = loaded.get(file)!.source || readFileSync(file, 'utf8');
    return `define(${JSON.stringify(rel)}, function (${MODULE_PARAMS}) {${source}\n});`;
  });
  writeAtomically(`${base}.js`, `(function (define) {\n${parts.join('\n')}\n})`);
  known.modules = order.length;
  known.held = order;
}

/** The loaded modules reachable from the entries through the requires they made, entries first. */
function closureOf(entries: readonly string[]): string[] {
  const order: string[] = [];
  const seen = new Set<string>();
  const stack = [...entries].reverse();
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const record = loaded.get(file);
    if (record === undefined) continue;
    order.push(file);
    for (let i = record.deps.length - 1; i >= 0; i--) stack.push(record.deps[i]!);
  }
  return order;
}

function hookExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    flushCodeCache();
    for (const base of snapshots.keys()) {
      try {
        writeSnapshot(base);
      } catch {
        // best effort
      }
    }
  });
}

function writeAtomically(file: string, data: string | Buffer): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, file);
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
 * `<outDir>/.cache/v8` when writable, else a private directory under the OS temp dir, else none. Cached scripts
 * run as code, so a shared temp directory is only used when the directory is ours and no one else can write it.
 */
function codeCacheDir(root: string): string | null {
  const known = cacheDirs.get(root);
  if (known !== undefined) return known;
  let chosen: string | null = null;
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const candidates: [string, boolean][] = [
    [join(root, '.cache', 'v8'), false],
    [join(tmpdir(), `adcp-codegen-v8-${uid ?? 'user'}`), true],
  ];
  for (const [dir, shared] of candidates) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      accessSync(dir, constants.W_OK);
      if (shared) {
        const st = statSync(dir);
        if ((uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) continue;
      } else {
        // The output directory is committed by agents: keep the cache out of their repository.
        const ignore = join(root, '.cache', '.gitignore');
        try {
          accessSync(ignore);
        } catch {
          writeFileSync(ignore, '*\n');
        }
      }
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
 * A 64-bit content hash (two FNV-1a style lanes) of a module's text, in plain JavaScript: node:crypto's first use
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

import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot, sha256 } from '../shared/index.js';
import { bundleRuntime, type RuntimeBundle, type RuntimeSource } from './runtime-bundle.js';

/**
 * The runtime bundle, made once when the package is built (`npm run build`, and before the tests and benches)
 * instead of at every generation: TypeScript's transpile of the runtime's modules took ~0.6–1 s of each cold
 * `generate`, for output that depends only on the package's own compiled runtime. `dist/runtime-bundle.json` holds
 * the bundle with the SHA-256 of every source it was made from; a generation uses it only when those are exactly
 * the sources in dist/runtime now, and bundles in-process otherwise (a `tsc` run without this step), so a stale
 * file can cost time but never ship an old runtime.
 */
export const PREBUNDLE = 'runtime-bundle.json';

interface PrebundleFile {
  readonly inputs: Record<string, string>;
  readonly entry: string;
  readonly modules: string;
  readonly onDemand: Record<string, string>;
  readonly facades: Record<string, string>;
}

/**
 * The compiled runtime's files (dist/runtime/*.js, or its `.d.ts` declarations), source-map comments removed. The
 * package's own JavaScript (no arguments) is read once per process: the entry and the runtime files both need it.
 */
export function runtimeSources(dir?: string, ext: '.js' | '.d.ts' = '.js'): RuntimeSource[] {
  if (dir === undefined && ext === '.js') return (packageSources ??= readSources(join(packageRoot, 'dist', 'runtime'), ext));
  return readSources(dir ?? join(packageRoot, 'dist', 'runtime'), ext);
}

let packageSources: RuntimeSource[] | undefined;

/** Every file under `dir` ending in `ext`, named by its path there (`call/parse.js`), in one sorted order. */
function readSources(dir: string, ext: '.js' | '.d.ts'): RuntimeSource[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => name.split(sep).join('/'))
    .filter((name) => name.endsWith(ext))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, '') }));
}

const hashes = new WeakMap<RuntimeSource, string>();

/** The SHA-256 of a runtime source's text, computed once per source (the bundle check and the headers use it). */
export function sourceHash(source: RuntimeSource): string {
  let h = hashes.get(source);
  if (h === undefined) hashes.set(source, (h = sha256(source.text)));
  return h;
}

const inputsOf = (sources: readonly RuntimeSource[]): Record<string, string> => Object.fromEntries(sources.map((s) => [s.name, sourceHash(s)]));

/** Per process: `entryFiles` and `runtimeFiles` both ask, and bundling in-process is the slow path. */
const made = new Map<string, RuntimeBundle>();

/** The bundle of exactly these sources: the prebuilt one when it was made from them, else made now. */
export function prebundled(sources: readonly RuntimeSource[], prebuilt?: string): RuntimeBundle {
  const inputs = inputsOf(sources);
  const file = prebuilt ?? join(packageRoot, 'dist', PREBUNDLE);
  // Remembered for the package's own file only (a file given by a caller may be rewritten between calls).
  const key = prebuilt === undefined ? JSON.stringify(inputs) : undefined;
  const known = key === undefined ? undefined : made.get(key);
  if (known !== undefined) return known;
  let stored: PrebundleFile | undefined;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as PrebundleFile;
  } catch {
    stored = undefined;
  }
  const bundle =
    stored !== undefined && JSON.stringify(stored.inputs) === JSON.stringify(inputs)
      ? { entry: stored.entry, modules: stored.modules, onDemand: new Map(Object.entries(stored.onDemand ?? {})), facades: new Map(Object.entries(stored.facades)) }
      : bundleRuntime(sources);
  if (key !== undefined) made.set(key, bundle);
  return bundle;
}

/** Writes dist/runtime-bundle.json for the compiled runtime in dist/runtime (atomically: a reader never sees half). */
export function writePrebundle(dist: string = join(packageRoot, 'dist')): void {
  const sources = runtimeSources(join(dist, 'runtime'));
  const { entry, modules, onDemand, facades } = bundleRuntime(sources);
  const file: PrebundleFile = { inputs: inputsOf(sources), entry, modules, onDemand: Object.fromEntries(onDemand), facades: Object.fromEntries(facades) };
  const target = join(dist, PREBUNDLE);
  const tmp = `${target}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(file));
  renameSync(tmp, target);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) writePrebundle();

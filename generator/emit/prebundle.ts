import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
  readonly bundle: string;
  readonly modules: string;
  readonly facades: Record<string, string>;
}

/** The compiled runtime modules (dist/runtime/*.js), source-map comments removed. */
export function runtimeSources(dir: string = join(packageRoot, 'dist', 'runtime')): RuntimeSource[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.js'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, '') }));
}

const inputsOf = (sources: readonly RuntimeSource[]): Record<string, string> => Object.fromEntries(sources.map((s) => [s.name, sha256(s.text)]));

/** The bundle of exactly these sources: the prebuilt one when it was made from them, else made now. */
export function prebundled(sources: readonly RuntimeSource[], file: string = join(packageRoot, 'dist', PREBUNDLE)): RuntimeBundle {
  let stored: PrebundleFile | undefined;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as PrebundleFile;
  } catch {
    stored = undefined;
  }
  const inputs = inputsOf(sources);
  if (stored !== undefined && JSON.stringify(stored.inputs) === JSON.stringify(inputs)) {
    return { bundle: stored.bundle, modules: stored.modules, facades: new Map(Object.entries(stored.facades)) };
  }
  return bundleRuntime(sources);
}

/** Writes dist/runtime-bundle.json for the compiled runtime in dist/runtime (atomically: a reader never sees half). */
export function writePrebundle(dist: string = join(packageRoot, 'dist')): void {
  const sources = runtimeSources(join(dist, 'runtime'));
  const { bundle, modules, facades } = bundleRuntime(sources);
  const file: PrebundleFile = { inputs: inputsOf(sources), bundle, modules, facades: Object.fromEntries(facades) };
  const target = join(dist, PREBUNDLE);
  const tmp = `${target}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(file));
  renameSync(tmp, target);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) writePrebundle();

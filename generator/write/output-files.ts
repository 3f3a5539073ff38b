import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { EmittedFile } from '../load/index.js';
import { IGNORED, sha256, type OutputManifest } from '../shared/index.js';
import { commitPending } from './journal.js';

/** What `out` holds, compared with its manifest (is the set intact?) or with a new set (what --check reports). */

/** Every file under `out` (relative, forward slashes; symbolic links listed, not followed), skipping IGNORED. */
export function listFiles(out: string): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (dir === out && IGNORED.has(name)) continue;
      const full = join(dir, name);
      if (lstatSync(full).isDirectory()) walk(full);
      else files.push(relative(out, full).split('\\').join('/'));
    }
  };
  if (existsSync(out)) walk(out);
  return files;
}

/**
 * True when `out` holds every file its manifest lists, byte for byte, and no commit is pending. Then an unchanged
 * inputsHash means the run can stop before compiling anything. Files the generator does not own do not matter.
 */
export function outputIntact(out: string, manifest: OutputManifest): boolean {
  if (commitPending(out)) return false;
  for (const [path, hash] of Object.entries(manifest.files)) {
    const full = join(out, path);
    if (!isFile(full) || sha256(readFileSync(full)) !== hash) return false;
  }
  return true;
}

/**
 * Differences between `files` and what `out` holds: stale (content differs), missing, and extra (owned by
 * `previous`, the manifest `out` holds, no longer generated). Files the generator does not own are never extra.
 */
export function diffOutput(out: string, files: readonly EmittedFile[], previous: OutputManifest | undefined): { stale: string[]; missing: string[]; extra: string[] } {
  const want = new Map(files.map((f) => [f.path, f.contents]));
  const stale: string[] = [];
  const missing: string[] = [];
  for (const [path, contents] of want) {
    const full = join(out, path);
    if (!isFile(full)) missing.push(path);
    else if (readFileSync(full, 'utf8') !== contents) stale.push(path);
  }
  const owned = Object.keys(previous?.files ?? {});
  const extra = owned.filter((p) => !want.has(p) && existsSync(join(out, p))).sort();
  return { stale, missing, extra };
}

/** The first five of `paths` and how many more: how messages and warnings name a list of files. */
export function pathList(paths: readonly string[]): string {
  return paths.slice(0, 5).join(', ') + (paths.length > 5 ? `, … ${paths.length - 5} more` : '');
}

/**
 * Whether `path` is a regular file itself, as the generator writes them. A link, a pipe or a device where a generated
 * file belongs (a committed `index.js -> /dev/zero`) is not that file: it counts as missing and is never read, which
 * would block on a pipe or read /dev/zero until the machine gives out.
 */
function isFile(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

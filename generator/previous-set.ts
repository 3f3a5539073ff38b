import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CompileUnit } from './compile/index.js';
import type { EmittedFile, OutputManifest } from './load/index.js';
import { MANIFEST, maxInputFileBytes, sha256, type BuildCache } from './shared/index.js';
import { outputIntact } from './write/index.js';

/**
 * What a run may take from the set already in `out` instead of producing it, and on whose word: only this user's
 * generator's (issue 20). The committed manifest lists hashes anyone who can commit can rewrite along with the files
 * they edit, so it is never the reason to trust a file. The build cache (this user's, authenticated) records what
 * this generator produced: each compile unit's finished files by hash, and each manifest it wrote or compiled from
 * scratch and found in step. A clone, a pull that brought a teammate's set, or an edit compiles what the records do
 * not vouch for.
 */

/** What this generator recorded of a set it wrote: the notes its run gave, said again when nothing changed. */
export interface SetRecord {
  readonly notes: readonly string[];
}

/**
 * The record of the set in `out` when it is the one the inputs would produce: the manifest records the same input
 * hash, this generator wrote (or checked) exactly that manifest, and every file it lists is there byte for byte.
 */
export function upToDate(out: string, previous: OutputManifest, inputsHash: string, cache: BuildCache): SetRecord | undefined {
  if (previous.inputsHash !== inputsHash) return undefined;
  const digest = manifestDigest(out);
  const record = digest === undefined ? undefined : cache.get('sets', digest);
  if (record === undefined || !outputIntact(out, previous)) return undefined;
  const notes = record === '' ? [] : (JSON.parse(record) as Partial<SetRecord>).notes;
  return { notes: Array.isArray(notes) ? notes.filter((n): n is string => typeof n === 'string') : [] };
}

/** Records that this generator wrote `manifest` (or compiled it from scratch and found `out` holding it), and its notes. */
export function recordSet(cache: BuildCache, manifest: EmittedFile, notes: readonly string[]): void {
  cache.set('sets', sha256(manifest.contents), JSON.stringify({ notes } satisfies SetRecord));
}

/**
 * The finished files of the unit with this key, from `out`, when this generator recorded producing them and each is
 * there byte for byte (a hand-edited or deleted file means the unit is compiled again).
 */
export function reusable(out: string, key: string, cache: BuildCache): EmittedFile[] | undefined {
  const record = cache.get('units', key);
  if (record === undefined) return undefined;
  const files: EmittedFile[] = [];
  for (const [path, hash] of Object.entries((JSON.parse(record) as UnitFiles).files)) {
    const bytes = generatedFile(join(out, path));
    if (bytes === undefined || sha256(bytes) !== hash) return undefined;
    files.push({ path, contents: bytes.toString('utf8'), inputs: [] });
  }
  return files;
}

/** Records the finished (headed, formatted) files of every unit compiled in this run, by its key. */
export function recordUnits(cache: BuildCache, units: readonly CompileUnit[], finished: readonly EmittedFile[]): void {
  const byPath = new Map(finished.map((f) => [f.path, f.contents]));
  for (const unit of units) {
    if (unit.reused) continue;
    const files = Object.fromEntries([...new Set(unit.files.map((f) => f.path))].sort().map((p) => [p, sha256(byPath.get(p)!)]));
    cache.set('units', unit.key, JSON.stringify({ files } satisfies UnitFiles));
  }
}

interface UnitFiles {
  readonly files: Record<string, string>;
}

function manifestDigest(out: string): string | undefined {
  const bytes = generatedFile(join(out, MANIFEST));
  return bytes === undefined ? undefined : sha256(bytes);
}

/**
 * A file of the set as the generator writes them, a regular file itself (opened without following a link, and
 * non-blocking), of at most the input size cap; else undefined. A committed link to /dev/zero or a pipe where a
 * generated file belongs is not one to reuse, and is never read.
 */
function generatedFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    return st.isFile() && st.size <= maxInputFileBytes() ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

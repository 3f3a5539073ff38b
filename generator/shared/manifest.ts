import { join } from 'node:path';
import { readInputText } from './input-file.js';

/**
 * What a generated set on disk is: its manifest (the files the generator owns, with their hashes, and the hash of
 * every input), and the generator's work directory beside it. Load reads the previous set's manifest (is `out` a
 * generated set? is it up to date? which compile units can be reused?); write (write/write.ts) writes it, last.
 */
export const MANIFEST = 'manifest.json';
/** The generator's lock, staging area and commit journal, inside `out`. */
export const WORK_DIR = '.adcp-codegen';
export const JOURNAL = 'commit.json';
/** Not part of the set and not anyone else's: the runtime's code cache and the generator's work directory. */
export const IGNORED = new Set(['.cache', WORK_DIR]);

export interface OutputManifest {
  readonly '//': string;
  readonly generator: string;
  /** Hash over every input and the generator itself: equal means a regeneration would write the same bytes. */
  readonly inputsHash: string;
  readonly files: Readonly<Record<string, string>>;
  /**
   * Per compile unit (`3.2/validate`: one artifact kind of one release), the hash of its true inputs and the files
   * it wrote: a regeneration whose unit has the same key reuses those files instead of compiling them again.
   */
  readonly units?: Readonly<Record<string, UnitRecord>>;
}

export interface UnitRecord {
  readonly key: string;
  readonly files: readonly string[];
}

/** A path a manifest or journal may name: relative, inside `out`, outside the work directory and caches. */
export function ownablePath(p: unknown): p is string {
  if (typeof p !== 'string' || p === '' || p.startsWith('/') || p.includes('\\') || p.includes('\0')) return false;
  const segments = p.split('/');
  return segments.every((s) => s !== '' && s !== '.' && s !== '..') && !IGNORED.has(segments[0]!);
}

/** The manifest of the set in `out`, or undefined when there is none or it is not an adcp-codegen manifest. */
export function readManifest(out: string): OutputManifest | undefined {
  try {
    // Through the input reader: a manifest.json committed as a link to /dev/zero, or a pipe, is no manifest, and
    // is never read (input-file.ts).
    const m = JSON.parse(readInputText(join(out, MANIFEST))) as OutputManifest;
    if (typeof m.inputsHash !== 'string' || m.files === null || typeof m.files !== 'object' || Array.isArray(m.files)) return undefined;
    // A manifest naming a path outside `out` would make the generator remove a file it never wrote.
    for (const [path, hash] of Object.entries(m.files)) if (!ownablePath(path) || path === MANIFEST || typeof hash !== 'string') return undefined;
    return m;
  } catch {
    return undefined;
  }
}

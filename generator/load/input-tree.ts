import { lstatSync, readdirSync, statSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';
import { CodegenError, fileKind, inputFileError } from '../shared/index.js';

/**
 * Walks of input directories (a release, a glob's directories). Symbolic links to directories are followed, as a
 * release assembled from links needs, but never around a loop: a directory that is its own ancestor is a
 * CodegenError naming the link. Every other entry is reported as a file, whatever it is (a pipe, a dangling link):
 * the caller reads those it wants through readInputFile, which names what is wrong with them, and never touches
 * the others.
 */

/** Directories one walk may enter: links can multiply paths (every directory linked twice doubles them). */
export const MAX_WALKED_DIRECTORIES = 20_000;

/** How a walk meets one entry. */
export interface WalkEntry {
  /** Path relative to the walked root, `/`-separated. */
  readonly rel: string;
  readonly name: string;
  /** Directory depth below the root (0: a direct child). */
  readonly depth: number;
}

/**
 * Every non-directory entry under `dir`, relative, in path order (code-unit order per level, as `sort()` gives).
 * `enter` decides which directories are walked (default: all).
 */
export function treeFiles(dir: string, display: string, enter: (entry: WalkEntry) => boolean = () => true): string[] {
  const out: string[] = [];
  let walked = 0;
  const walk = (sub: string, depth: number, ancestors: ReadonlyMap<string, string>): void => {
    if (++walked > MAX_WALKED_DIRECTORIES) {
      throw new CodegenError(display, '', `holds more than ${MAX_WALKED_DIRECTORIES} directories (counting each path through a symbolic link): not an input directory`);
    }
    for (const entry of listDirectory(join(dir, sub), sub === '' ? display : `${display}/${sub}`)) {
      const rel = sub === '' ? entry.name : `${sub}/${entry.name}`;
      const full = join(dir, rel);
      const st = entry.isDirectory() || entry.isSymbolicLink() ? statOrUndefined(full) : undefined;
      if (st === undefined || !st.isDirectory()) {
        out.push(rel);
        continue;
      }
      if (!enter({ rel, name: entry.name, depth })) continue;
      const id = identity(st);
      const loop = ancestors.get(id);
      if (loop !== undefined) {
        throw new CodegenError(`${display}/${rel}`, '', `is a symbolic link loop: it leads back to ${loop === '' ? display : `${display}/${loop}`}, which contains it`);
      }
      walk(rel, depth + 1, new Map([...ancestors, [id, rel]]));
    }
  };
  const root = statOrUndefined(dir);
  walk('', 0, new Map(root !== undefined ? [[identity(root), '']] : []));
  return out;
}

/** A directory's entries sorted by name, or a CodegenError naming it. */
export function listDirectory(path: string, display: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new CodegenError(display, '', 'is not a directory');
    if (code === 'EACCES' || code === 'EPERM') throw new CodegenError(display, '', 'cannot be listed: permission denied');
    throw inputFileError(path, display, e);
  }
}

/**
 * That `path` is a directory (links followed), or a CodegenError saying what it is instead: missing (`missing`
 * is the message), a dangling link, a loop, a file.
 */
export function requireDirectory(path: string, display: string, missing: string): void {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && lstatSync(path, { throwIfNoEntry: false }) === undefined) throw new CodegenError(display, '', missing);
    throw inputFileError(path, display, e);
  }
  if (!st.isDirectory()) throw new CodegenError(display, '', `is ${fileKind(st)}, not a directory`);
}

/** Whether anything, even a dangling link, is at `path`. */
export function entryExists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return true; // something is there that cannot be looked at: the reader says what
  }
}

/** The identity (device and inode) of the directory at `path`, links followed; undefined for anything else. */
export function directoryIdentity(path: string): string | undefined {
  const st = statOrUndefined(path);
  return st !== undefined && st.isDirectory() ? identity(st) : undefined;
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined; // dangling, a loop, unreadable: reported as a file, named by whoever reads it
  }
}

function identity(st: Stats): string {
  return `${st.dev}:${st.ino}`;
}

import { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { CodegenError, sha256 } from '../shared/index.js';
import { IGNORED, JOURNAL, MANIFEST, ownablePath, readManifest, WORK_DIR, type EmittedFile, type OutputManifest, type UnitRecord } from '../load/index.js';
import { lockOutput, pidAlive, type OutputLock } from './out-lock.js';

/**
 * Stage 7, the only code that changes the output directory.
 *
 * Ownership. The generator owns exactly the files its manifest (`<out>/manifest.json`) lists. A run replaces or
 * removes those, writes the files of the new set, and leaves everything else in `out` byte for byte as it was (it
 * reports them). An existing, non-empty `out` without a manifest is refused unless the caller adopts it explicitly.
 *
 * Crash safety. Everything the generator needs besides the set lives in `<out>/.adcp-codegen/` (the "work"
 * directory, never part of the set): the lock, a staging directory, and the commit journal. A write
 *   1. stages every changed file of the new set under `staging-<pid>-<nonce>/` and flushes it to disk;
 *   2. commits: writes the journal (`commit.json`: the staging directory, the files to move in, the owned files to
 *      remove) to a temporary name, flushes it and renames it into place. That rename is the one atomic step that
 *      decides between the old set and the new one;
 *   3. applies the journal: renames each staged file over its place (the manifest last), removes the files the
 *      new set no longer has, prunes directories that became empty, then deletes the journal and the staging area.
 * A run killed before step 2 leaves the old set untouched (the next run deletes its staging directory); killed
 * after it, the new set is decided and the next run, before anything else, finishes step 3 from the journal (each
 * move is idempotent: a staged file that is gone was already moved). While a journal is pending the set on disk may
 * be part old, part new, so the runtime refuses to load it (`loadProfile` names the directory and says to run
 * generate) and `--check` reports drift: no reader ever uses a mixed set. A complete set, for a reader, is the
 * manifest's files with the manifest's hashes and no pending journal.
 */

export interface WriteReport {
  readonly changed: readonly string[];
  readonly removed: readonly string[];
  readonly unchanged: number;
  /** Files in `out` the generator does not own, left exactly as they were. */
  readonly kept: readonly string[];
  /** Files the generator did not own before (an adopted directory) that the new set replaced. */
  readonly replaced: readonly string[];
}

interface Journal {
  readonly '//': string;
  readonly staging: string;
  /** Paths to move from the staging directory into `out`, the manifest last. */
  readonly write: readonly string[];
  /** Owned paths the new set no longer has. */
  readonly remove: readonly string[];
}

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

/** True while a committed regeneration has not been fully applied: the files on disk may be a mix of two sets. */
export function commitPending(out: string): boolean {
  return existsSync(join(out, WORK_DIR, JOURNAL));
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
 * Differences between `files` and what `out` holds: stale (content differs), missing, and extra (owned by the
 * previous manifest, no longer generated). Files the generator does not own are never extra.
 */
export function diffOutput(out: string, files: readonly EmittedFile[]): { stale: string[]; missing: string[]; extra: string[] } {
  const want = new Map(files.map((f) => [f.path, f.contents]));
  const stale: string[] = [];
  const missing: string[] = [];
  for (const [path, contents] of want) {
    const full = join(out, path);
    if (!isFile(full)) missing.push(path);
    else if (readFileSync(full, 'utf8') !== contents) stale.push(path);
  }
  const owned = Object.keys(readManifest(out)?.files ?? {});
  const extra = owned.filter((p) => !want.has(p) && existsSync(join(out, p))).sort();
  return { stale, missing, extra };
}

export function manifestFile(files: readonly EmittedFile[], generator: string, inputsHash: string, units?: Readonly<Record<string, UnitRecord>>): EmittedFile {
  const manifest: OutputManifest = {
    '//': 'Generated by adcp-codegen. DO NOT EDIT. Content hashes (sha256) of every generated file; drives --check and no-op regeneration.',
    generator,
    inputsHash,
    files: Object.fromEntries([...files].sort((a, b) => (a.path < b.path ? -1 : 1)).map((f) => [f.path, sha256(f.contents)])),
    ...(units !== undefined ? { units } : {}),
  };
  return { path: MANIFEST, inputs: [], contents: JSON.stringify(manifest, null, 2) + '\n' };
}

export interface OpenOutput {
  /** What recovery did: an interrupted regeneration finished, stale staging or legacy directories removed. */
  readonly recovered: readonly string[];
  release(): void;
  [Symbol.dispose](): void;
}

/**
 * Takes `out` for writing: refuses a directory the generator does not own (unless `adopt`), takes the lock, and
 * recovers from runs killed earlier. Hold it (`using`) from reading the previous manifest to the end of `write`.
 */
export function openOutput(out: string, options: { adopt: boolean; display: string }): OpenOutput {
  // Checked before the lock too, so a refused directory gets nothing written into it, not even the lock.
  checkOwnership(out, options.display, options.adopt);
  // Before the lock creates `out`: a set the previous design left renamed aside is put back first.
  const recovered = recoverLegacy(out);
  const created = !existsSync(out);
  const work = join(out, WORK_DIR);
  let lock: OutputLock | undefined;
  const release = (): void => {
    lock?.release();
    lock = undefined;
    if (created) {
      try {
        rmdirSync(out); // a first run that failed leaves no empty directory behind
      } catch {
        /* it holds the set */
      }
    }
  };
  try {
    lock = lockOutput(work, options.display);
    recovered.push(...recover(out, options.display));
    checkOwnership(out, options.display, options.adopt);
    return { recovered, release, [Symbol.dispose]: release };
  } catch (e) {
    release();
    throw e;
  }
}

function checkOwnership(out: string, display: string, adopt: boolean): void {
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory()) throw new CodegenError(display, '', 'the output path exists and is not a directory');
  if (adopt || readManifest(out) !== undefined) return;
  const present = listFiles(out);
  if (present.length === 0) return;
  const shown = present.slice(0, 5).join(', ') + (present.length > 5 ? `, … ${present.length - 5} more` : '');
  throw new CodegenError(
    display,
    '',
    `refusing to write into a directory adcp-codegen does not own: it is not empty and holds no adcp-codegen ${MANIFEST} (${shown}). ` +
      'Generate into a new or empty directory, or pass --adopt to write the generated set into this one (files the set does not write are left as they are)',
  );
}

/**
 * Under the lock: finishes a committed regeneration a killed run left (roll forward from its journal), then
 * removes what killed runs left before their commit point: staging directories and half-made lock files.
 */
function recover(out: string, display: string): string[] {
  const work = join(out, WORK_DIR);
  const done: string[] = [];
  if (!existsSync(work)) return done;
  const journalPath = join(work, JOURNAL);
  if (existsSync(journalPath)) {
    const journal = readJournal(journalPath, display);
    apply(out, journal);
    done.push(`finished an interrupted regeneration (${journal.write.length} file(s) moved in, ${journal.remove.length} removed)`);
  }
  for (const name of readdirSync(work)) {
    if (name === 'lock') continue;
    const m = /^lock\.(?:stale\.)?(\d+)\./.exec(name);
    if (m !== null && pidAlive(Number(m[1])) && Number(m[1]) !== process.pid) continue; // another run taking the lock right now
    rmSync(join(work, name), { recursive: true, force: true });
    if (name.startsWith('staging-')) done.push(`removed the staging directory of an interrupted run (${name})`);
  }
  return done;
}

/**
 * The `.<out>.staging-<pid>` / `.<out>.retired-<pid>` siblings the previous write design (rename `out` aside, rename
 * the staging directory in) left when killed; only those of processes no longer running.
 */
function recoverLegacy(out: string): string[] {
  const done: string[] = [];
  const parent = dirname(out);
  if (!existsSync(parent)) return done;
  const base = basename(out);
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(`.${base}.`)) continue;
    const m = /^\.(.*)\.(staging|retired)-(\d+)$/.exec(name);
    if (m === null || m[1] !== base || pidAlive(Number(m[3]))) continue;
    const full = join(parent, name);
    // Killed between the old design's two renames: the retired directory is the only copy of the set.
    try {
      if (m[2] === 'retired' && !existsSync(out)) {
        renameSync(full, out);
        done.push(`restored ${name} as the output directory`);
        continue;
      }
      rmSync(full, { recursive: true, force: true });
      done.push(`removed ${name}, left by an interrupted run`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e; // another run recovered it first
    }
  }
  return done;
}

function readJournal(path: string, display: string): Journal {
  let j: Partial<Journal>;
  try {
    j = JSON.parse(readFileSync(path, 'utf8')) as Partial<Journal>;
  } catch (e) {
    throw new CodegenError(`${display}/${WORK_DIR}/${JOURNAL}`, '', `unreadable commit journal (${(e as Error).message}); delete it and regenerate`);
  }
  const ok =
    typeof j.staging === 'string' &&
    /^staging-\d+-[a-z0-9]+$/.test(j.staging) &&
    Array.isArray(j.write) &&
    j.write.every(ownablePath) === true &&
    Array.isArray(j.remove) &&
    j.remove.every(ownablePath) === true;
  if (!ok) throw new CodegenError(`${display}/${WORK_DIR}/${JOURNAL}`, '', 'not an adcp-codegen commit journal; delete it and regenerate');
  return j as Journal;
}

/** Step 3: idempotent, so a run killed in the middle of it is finished by the next one. */
function apply(out: string, journal: Journal): void {
  const staging = join(out, WORK_DIR, journal.staging);
  const move = (path: string): void => {
    const from = join(staging, path);
    if (!existsSync(from)) return; // moved before the interruption
    const to = join(out, path);
    mkdirSync(dirname(to), { recursive: true });
    renameSync(from, to);
  };
  for (const path of journal.write) if (path !== MANIFEST) move(path);
  for (const path of journal.remove) {
    const full = join(out, path);
    if (withinOut(out, path) && existsSync(full) && !lstatSync(full).isDirectory()) unlinkSync(full);
  }
  if (journal.write.includes(MANIFEST)) move(MANIFEST);
  pruneEmptyDirs(out, journal.remove);
  unlinkSync(join(out, WORK_DIR, JOURNAL));
  rmSync(staging, { recursive: true, force: true });
}

/** Directories left empty by removed files; a directory holding anything else stays. */
function pruneEmptyDirs(out: string, removed: readonly string[]): void {
  const dirs = new Set<string>();
  for (const path of removed) for (let d = dirname(path); d !== '.' && d !== ''; d = dirname(d)) dirs.add(d);
  for (const d of [...dirs].sort((a, b) => b.split('/').length - a.split('/').length)) {
    try {
      rmdirSync(join(out, d));
    } catch {
      /* not empty, or already gone */
    }
  }
}

/**
 * Stage 7: makes `out` hold the new set (see the top of this file). The caller holds `openOutput`. Only files that
 * differ are staged and moved; an unchanged file keeps its bytes and its timestamps.
 */
export function write(out: string, files: readonly EmittedFile[]): WriteReport {
  const previous = readManifest(out);
  const owned = new Set(Object.keys(previous?.files ?? {}));
  const { stale, missing, extra } = diffOutput(out, files);
  const newPaths = new Set(files.map((f) => f.path));
  const kept = listFiles(out).filter((p) => !owned.has(p) && !newPaths.has(p) && p !== MANIFEST);
  const changed = [...stale, ...missing].sort();
  const replaced = changed.filter((p) => !owned.has(p) && p !== MANIFEST && existsSync(join(out, p)));
  const report = { changed, removed: extra, unchanged: files.length - changed.length, kept, replaced };
  if (changed.length + extra.length === 0) return report;

  const byPath = new Map(files.map((f) => [f.path, f.contents]));
  for (const path of changed) assertPlace(out, path);
  const work = join(out, WORK_DIR);
  const stagingName = `staging-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const staging = join(work, stagingName);
  try {
    for (const path of changed) writeDurable(join(staging, path), byPath.get(path)!);
    const journal: Journal = {
      '//': 'adcp-codegen commit journal: a regeneration was interrupted after its commit point; the next run finishes it.',
      staging: stagingName,
      write: [...changed.filter((p) => p !== MANIFEST), ...(changed.includes(MANIFEST) ? [MANIFEST] : [])],
      remove: extra,
    };
    const tmp = join(work, `${JOURNAL}.${process.pid}.tmp`);
    writeDurable(tmp, JSON.stringify(journal, null, 2) + '\n');
    renameSync(tmp, join(work, JOURNAL)); // the commit point
    syncDir(work);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  }
  try {
    apply(out, JSON.parse(readFileSync(join(work, JOURNAL), 'utf8')) as Journal);
  } catch (e) {
    throw new CodegenError(out, '', `the new set was committed but could not be moved in (${(e as Error).message}); fix that and run generate again to finish it`);
  }
  return report;
}

/**
 * A generated file's place must be free for a file: no directory there, no file where a directory must be, and no
 * symbolic link among its directories (writing through one would write outside `out`).
 */
function assertPlace(out: string, path: string): void {
  const full = join(out, path);
  if (existsSync(full) && lstatSync(full).isDirectory()) throw new CodegenError(full, '', 'a directory is in the place of a generated file; move it away');
  for (let d = dirname(path); d !== '.' && d !== ''; d = dirname(d)) {
    const dir = join(out, d);
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) throw new CodegenError(dir, '', `a symbolic link is in the place of a generated directory (for ${path}); replace it with a directory`);
    if (!statSync(dir).isDirectory()) throw new CodegenError(dir, '', `a file is in the place of a generated directory (for ${path}); move it away`);
  }
}

/** True when no directory between `out` and `path` is a symbolic link: removing it cannot reach outside `out`. */
function withinOut(out: string, path: string): boolean {
  for (let d = dirname(path); d !== '.' && d !== ''; d = dirname(d)) {
    try {
      if (lstatSync(join(out, d)).isSymbolicLink()) return false;
    } catch {
      return false;
    }
  }
  return true;
}

function writeDurable(path: string, contents: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w', 0o666);
  try {
    writeFileSync(fd, contents);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    /* not supported on this platform (Windows): the rename is still atomic */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

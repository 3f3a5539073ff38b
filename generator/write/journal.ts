import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CodegenError, JOURNAL, MANIFEST, ownablePath, WORK_DIR } from '../shared/index.js';
import { pidAlive } from './out-lock.js';

/**
 * The commit journal (write.ts, steps 2 and 3): which staged files move into `out` and which owned files go, read
 * back and applied idempotently — by the run that wrote it, or by the next run when that one was killed.
 */

export interface Journal {
  readonly '//': string;
  readonly staging: string;
  /** Paths to move from the staging directory into `out`, the manifest last. */
  readonly write: readonly string[];
  /** Owned paths the new set no longer has. */
  readonly remove: readonly string[];
}

/** True while a committed regeneration has not been fully applied: the files on disk may be a mix of two sets. */
export function commitPending(out: string): boolean {
  return existsSync(join(out, WORK_DIR, JOURNAL));
}

/**
 * Under the lock: finishes a committed regeneration a killed run left (roll forward from its journal), then
 * removes what killed runs left before their commit point: staging directories and half-made lock files.
 */
export function recoverInterrupted(out: string, display: string): string[] {
  const work = join(out, WORK_DIR);
  const done: string[] = [];
  if (!existsSync(work)) return done;
  const journalPath = join(work, JOURNAL);
  if (existsSync(journalPath)) {
    const journal = readJournal(journalPath, display);
    applyJournal(out, journal);
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

export function readJournal(path: string, display: string): Journal {
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
export function applyJournal(out: string, journal: Journal): void {
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

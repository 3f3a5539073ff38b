import { linkSync, mkdirSync, readFileSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { CodegenError } from '../shared/index.js';

/** What a lock file says about the run holding it. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
  /** The worker thread of that process holding it (generation runs in one: generate-worker.ts); 0 the main thread. */
  readonly thread?: number;
}

/** Worker threads of this process that ended (their locks are stale although the pid runs). */
const goneThreads = new Set<number>();

/** Records that a worker thread of this process ended: a lock it held is stale (generate-worker.ts). */
export function markThreadGone(thread: number): void {
  goneThreads.add(thread);
}

export interface OutputLock {
  /** The lock file. */
  readonly path: string;
  release(): void;
  [Symbol.dispose](): void;
}

/**
 * One writer per output directory. The lock is `<work>/lock`, created by hard-linking a fully written private file
 * onto that name: link() fails when the name exists, so exactly one run wins, and a reader never sees a half-written
 * lock. A lock whose holder is gone (same host, pid no longer running: a run killed with -9) is taken over; a lock
 * held by a live process, or by another host we cannot ask, makes this run fail with a message naming the holder.
 *
 * `display` names the output directory in messages.
 */
export function lockOutput(work: string, display: string): OutputLock {
  const path = join(work, 'lock');
  const me: LockHolder = { pid: process.pid, host: hostname(), started: new Date().toISOString(), thread: threadId };
  const record = JSON.stringify(me) + '\n';
  const mine = join(work, `lock.${process.pid}.${Math.random().toString(36).slice(2)}`);
  for (let attempt = 0; attempt < 8; attempt++) {
    mkdirSync(work, { recursive: true });
    try {
      writeFileSync(mine, record, { flag: 'wx' });
      try {
        linkSync(mine, path);
      } finally {
        unlinkSync(mine);
      }
      return held(work, path, record);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // The work directory was removed by a run releasing its lock between our mkdir and link: try again.
      if (code === 'ENOENT') continue;
      if (code !== 'EEXIST') throw e;
    }
    const text = readText(path);
    if (text === undefined) continue; // released meanwhile
    const holder = parseHolder(text);
    if (holder !== undefined && holderAlive(holder)) {
      throw new CodegenError(
        display,
        '',
        `another adcp-codegen run (pid ${holder.pid} on ${holder.host}, since ${holder.started}) is writing this directory; wait for it to finish, or delete ${join(display, '.adcp-codegen', 'lock')} if no such run exists`,
      );
    }
    if (holder === undefined) throw new CodegenError(join(display, '.adcp-codegen', 'lock'), '', 'unreadable lock file: delete it if no adcp-codegen run is writing this directory');
    takeOver(work, path, text);
  }
  throw new CodegenError(display, '', 'could not take the output lock: other adcp-codegen runs keep taking it');
}

function held(work: string, path: string, record: string): OutputLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    // Only our own lock: if it was taken over (we were presumed dead), the new holder's stays.
    if (readText(path) === record) unlinkSync(path);
    try {
      rmdirSync(work); // only when nothing else (a pending journal, another run's staging) is left in it
    } catch {
      /* not empty */
    }
  };
  return { path, release, [Symbol.dispose]: release };
}

/**
 * Moves a dead holder's lock out of the way. Two runs may both judge it stale; the rename lets only one of them move
 * it. The one that moved a different (live) lock, taken meanwhile by the other, puts it back.
 */
function takeOver(work: string, path: string, staleText: string): void {
  const aside = join(work, `lock.stale.${process.pid}.${Math.random().toString(36).slice(2)}`);
  try {
    renameSync(path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (readText(aside) !== staleText) {
    try {
      linkSync(aside, path);
    } catch {
      /* a third run holds it now; it is that run's */
    }
  }
  unlinkSync(aside);
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    return typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string' && typeof v.started === 'string' ? (v as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

/** True unless the holder is on this host and its pid is certainly not running, or is a thread of ours that ended. */
function holderAlive(holder: Pick<LockHolder, 'pid' | 'host' | 'thread'>): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid && goneThreads.has(holder.thread ?? 0)) return false;
  return pidAlive(holder.pid);
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // running, but another user's
  }
}

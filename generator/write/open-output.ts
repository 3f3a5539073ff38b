import { existsSync, lstatSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CodegenError, MANIFEST, readManifest, WORK_DIR, type OutputManifest } from '../shared/index.js';
import { recoverInterrupted } from './journal.js';
import { lockOutput, pidAlive, type OutputLock } from './out-lock.js';
import { listFiles, pathList } from './output-files.js';

export interface OpenOutput {
  /** What recovery did: an interrupted regeneration finished, stale staging or legacy directories removed. */
  readonly recovered: readonly string[];
  /** The manifest `out` holds once recovered, read under the lock: the previous set, until `write` replaces it. */
  readonly manifest: OutputManifest | undefined;
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
    recovered.push(...recoverInterrupted(out, options.display), ...removeFormerCodeCache(out));
    const manifest = checkOwnership(out, options.display, options.adopt);
    return { recovered, manifest, release, [Symbol.dispose]: release };
  } catch (e) {
    release();
    throw e;
  }
}

/** Refuses `out` unless the generator owns it (or may adopt it); returns the manifest it holds. */
function checkOwnership(out: string, display: string, adopt: boolean): OutputManifest | undefined {
  if (!existsSync(out)) return undefined;
  if (!statSync(out).isDirectory()) throw new CodegenError(display, '', 'the output path exists and is not a directory');
  const manifest = readManifest(out);
  if (adopt || manifest !== undefined) return manifest;
  const present = listFiles(out);
  if (present.length === 0) return undefined;
  throw new CodegenError(
    display,
    '',
    `refusing to write into a directory adcp-codegen does not own: it is not empty and holds no adcp-codegen ${MANIFEST} (${pathList(present)}). ` +
      'Generate into a new or empty directory, or pass --adopt to write the generated set into this one (files the set does not write are left as they are)',
  );
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

/**
 * The V8 code cache earlier runtimes kept in `<out>/.cache/v8/` (`*.v8` files, and `.cache/.gitignore` holding `*`).
 * The runtime keeps it in this user's private cache now and never reads this one; an entry here is at best stale,
 * at worst planted (committed to the agent's repository, it replaced a validator on every clone: issue 20), so it
 * goes. Anything else in `.cache` is not the runtime's and stays (`--check` names it).
 */
function removeFormerCodeCache(out: string): string[] {
  const cache = join(out, '.cache');
  const v8 = join(cache, 'v8');
  if (!lstatSync(v8, { throwIfNoEntry: false })?.isDirectory() || lstatSync(cache).isSymbolicLink()) return [];
  let removed = 0;
  for (const name of readdirSync(v8)) {
    if (!name.endsWith('.v8') || !lstatSync(join(v8, name)).isFile()) continue;
    unlinkSync(join(v8, name));
    removed++;
  }
  const prune = (dir: string): void => {
    try {
      rmdirSync(dir);
    } catch {
      /* holds something else */
    }
  };
  prune(v8);
  const ignore = join(cache, '.gitignore');
  if (readdirSync(cache).join() === '.gitignore' && lstatSync(ignore).isFile() && readFileSync(ignore, 'utf8') === '*\n') unlinkSync(ignore);
  prune(cache);
  return removed === 0 ? [] : [`removed ${removed} V8 code cache file(s) from .cache/v8, where earlier runtimes kept them (the runtime keeps its code cache in this user's private cache, and never reads these)`];
}

import { Worker } from 'node:worker_threads';
import type { EmittedFile } from '../load/index.js';
import { buildCache, MIN_WORKER_HEAP_MB, type BuildCache } from '../shared/index.js';
import { cacheKey, formatted, prettierVersion, type AheadResult, type FormattedAhead } from './format.js';

/**
 * The formatting thread's old-generation budget. Prettier's working set grows with the file (the 1.6 MB types.d.ts
 * of every 3.2 tool needs ~60 MB), and the thread runs while the compile stage is at its peak, so it gets a budget
 * rather than V8's lazy default (the process went from ~250 to ~380 MB RSS without one). A file that outgrows it ends
 * the thread, and the format stage formats what is left itself, as before there was a thread.
 */
const FORMAT_HEAP_MB = 96;

/** Its young generation: prettier's garbage is short-lived, and V8's default let it reach ~30 MB more RSS for no time won. */
const FORMAT_YOUNG_MB = 8;

/** A file to format, to the worker; its formatting (or why it failed), back. */
export type FormatJob = { readonly id: number; readonly path: string; readonly contents: string };
export type FormatDone = { readonly id: number; readonly contents: string } | { readonly id: number; readonly error: string };

/**
 * Prettier on a thread of its own, fed the files people read as soon as a compile unit produces them (the types and
 * normalizers of each release come well before the validators, the longest unit), so formatting them overlaps
 * compiling instead of following it: on a cold run of the example profile over two releases, ~1.5 s of prettier
 * left the critical path. The worker is started with the first file to format (a regeneration whose formatting is
 * all cached never starts it) and formats one file at a time, in the order given; results are the same as the format
 * stage's own (`prettierFormat`, one configuration), and the format stage still writes the cache.
 */
export class FormatAhead implements FormattedAhead {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve(text: string | undefined): void; reject(e: Error): void }>();
  private readonly byPath = new Map<string, AheadResult & { readonly contents: string }>();

  constructor(
    private readonly cache: BuildCache = buildCache(),
    private readonly heapMb: number = FORMAT_HEAP_MB,
  ) {}

  /**
   * Starts formatting those of `files` the format stage would format; one the cache holds is answered from it (and
   * the stage does not look it up again).
   */
  submit(files: readonly EmittedFile[]): void {
    for (const file of files) {
      if (!formatted(file) || this.byPath.has(file.path)) continue;
      const key = cacheKey(prettierVersion(), file);
      const hit = this.cache.get('prettier', key);
      if (hit !== undefined) {
        this.byPath.set(file.path, { contents: file.contents, key, cached: true, text: Promise.resolve(hit) });
        continue;
      }
      const id = this.nextId++;
      const result = new Promise<string | undefined>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
      // Awaited by the format stage, or never (a run that fails before it): never an unhandled rejection.
      result.catch(() => undefined);
      this.byPath.set(file.path, { contents: file.contents, key, cached: false, text: result });
      const job: FormatJob = { id, path: file.path, contents: file.contents };
      const worker = this.start();
      worker.postMessage(job);
      // Held open while it owes answers (the format stage may be awaiting one with nothing else left to run), let go
      // when idle: an idle formatting thread never keeps the process alive.
      worker.ref();
    }
  }

  /** The formatting of exactly this file's text, if it was submitted (undefined once the thread gave it up). */
  get(file: EmittedFile): AheadResult | undefined {
    const known = this.byPath.get(file.path);
    return known !== undefined && known.contents === file.contents ? known : undefined;
  }

  /** Ends the worker (whatever it was still doing is not needed). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.abandon();
    if (worker !== undefined) await worker.terminate();
  }

  private start(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = new Worker(new URL('./format-worker.js', import.meta.url), { resourceLimits: { maxOldGenerationSizeMb: Math.max(this.heapMb, MIN_WORKER_HEAP_MB), maxYoungGenerationSizeMb: FORMAT_YOUNG_MB } });
    worker.unref();
    worker.on('message', (done: FormatDone) => {
      const w = this.waiting.get(done.id);
      if (w === undefined) return;
      this.waiting.delete(done.id);
      if (this.waiting.size === 0) worker.unref();
      if ('error' in done) w.reject(new Error(done.error));
      else w.resolve(done.contents);
    });
    // Out of memory, or any other end: what it had not answered is formatted by the format stage itself.
    const ended = (): void => {
      if (this.worker === worker) this.abandon();
    };
    worker.on('error', ended);
    worker.on('exit', ended);
    return (this.worker = worker);
  }

  /** Every file not yet answered is left to the format stage (its result: undefined). */
  private abandon(): void {
    for (const w of this.waiting.values()) w.resolve(undefined);
    this.waiting.clear();
    this.worker = undefined;
  }
}

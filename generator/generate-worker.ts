import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { GenerateOptions, GenerateResult } from './generate.js';
import { CodegenError, MIN_WORKER_HEAP_MB, UsageError, type Logger } from './shared/index.js';
import { markThreadGone } from './write/index.js';

/**
 * `adcp-codegen generate` in a worker thread with a heap budget (issue 12 point 3: ≤ 400 MB from cold).
 *
 * What a generation keeps alive is small (~90 MB for the example profile over two releases), but Ajv's code
 * generation and prettier allocate several hundred MB that die young-ish; left to itself V8 lets the old generation
 * grow to ~4× what survived the last full collection before collecting again, so the process peaked at ~500 MB RSS.
 * A worker's `resourceLimits` give V8 a budget to collect within (peak ~320 MB, at about the same CPU time). A heap
 * limit cannot be set on the running main thread (V8 reads it at start), hence the worker.
 *
 * A budget is a guess about the input: a generation that outgrows it (many profiles, a much larger release) ends
 * the worker with ERR_WORKER_OUT_OF_MEMORY, and runs again on the main thread without a budget, after a warning
 * naming the setting. Nothing is lost: the write stage is crash-safe (a worker ended midway is like a run killed
 * with -9), and its output lock, held by a thread now known to be gone, is taken over.
 *
 * ADCP_CODEGEN_HEAP_MB sets the budget; 0 runs on the main thread.
 */
export const DEFAULT_HEAP_BUDGET_MB = 256;

const WORKER_TAG = 'adcp-codegen generate';

type WorkerOptions = Omit<GenerateOptions, 'logger'>;

/** The pipeline, imported where it runs: the main thread of a worker run never loads it (nor TypeScript, prettier, Ajv). */
async function generate(options: GenerateOptions): Promise<GenerateResult> {
  return (await import('./generate.js')).generate(options);
}

/** A Logger method, forwarded from the worker by name. */
type LogLevel = keyof Logger;

type FromWorker =
  | { readonly kind: 'log'; readonly level: LogLevel; readonly args: [string] | [string, string, number] }
  | { readonly kind: 'done'; readonly result: GenerateResult }
  | { readonly kind: 'failed'; readonly error: SerializedError };

/** How a worker run ended: its first word (a message, an error, or its exit) is the one that counts. */
type Outcome = { result: GenerateResult } | { error: unknown } | { outOfMemory: true };

type SerializedError =
  | { readonly type: 'codegen'; readonly file: string; readonly pointer: string; readonly detail: string }
  | { readonly type: 'usage'; readonly message: string }
  | { readonly type: 'other'; readonly message: string; readonly stack?: string };

/** The heap budget from the environment: a positive number of MB, 0 for none, or the default. */
export function heapBudgetMb(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ADCP_CODEGEN_HEAP_MB;
  if (raw === undefined || raw === '') return DEFAULT_HEAP_BUDGET_MB;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`ADCP_CODEGEN_HEAP_MB must be a whole number of MB (0: no budget), not ${JSON.stringify(raw)}`);
  if (n > 0 && n < MIN_WORKER_HEAP_MB) throw new UsageError(`ADCP_CODEGEN_HEAP_MB must be 0 (no budget) or at least ${MIN_WORKER_HEAP_MB} MB, not ${n}: a worker given less cannot start on every Node (Node 24 aborts the process)`);
  return n;
}

/** `generate`, in a worker with `budgetMb` of old-generation heap (0: on this thread); same result, same errors. */
export async function generateWithHeapBudget(options: WorkerOptions, logger: Logger, budgetMb: number): Promise<GenerateResult> {
  if (budgetMb === 0) return generate({ ...options, logger });
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { tag: WORKER_TAG, options },
    resourceLimits: { maxOldGenerationSizeMb: budgetMb },
    // Not the process's flags: they belong to the caller's entry (`node --input-type=module -e …`, a loader for its
    // TypeScript), which the worker does not run, and some of them a worker refuses to start with.
    execArgv: [],
  });
  // Read now: once the worker has stopped, `threadId` is -1.
  const thread = worker.threadId;
  const outcome = await new Promise<Outcome>((resolve) => {
    let settled = false;
    const settle = (v: Outcome): void => {
      if (!settled) {
        settled = true;
        resolve(v);
      }
    };
    worker.on('message', (m: FromWorker) => {
      if (m.kind === 'log') (logger[m.level] as (...a: unknown[]) => void)(...m.args);
      else if (m.kind === 'done') settle({ result: m.result });
      else settle({ error: revive(m.error) });
    });
    worker.on('error', (e: NodeJS.ErrnoException) => settle(e.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { outOfMemory: true } : { error: e }));
    worker.on('exit', (code) => settle({ error: new Error(`the generation worker exited (code ${code}) without a result`) }));
  });
  // The answer is in (or the worker failed): nothing the worker still holds open may keep the CLI's process alive,
  // and a lock it may still hold (a worker that died without its cleanup, out of memory or otherwise) is stale.
  void worker.terminate();
  markThreadGone(thread);
  if ('result' in outcome) return outcome.result;
  if ('error' in outcome) throw outcome.error;
  logger.warn(`generation needed more than its ${budgetMb} MB heap budget; running it again without one (set ADCP_CODEGEN_HEAP_MB higher, or 0, to skip the first attempt)`);
  return generate({ ...options, logger });
}

function serialize(e: unknown): SerializedError {
  if (e instanceof CodegenError) return { type: 'codegen', file: e.file, pointer: e.pointer, detail: e.detail };
  if (e instanceof UsageError) return { type: 'usage', message: e.message };
  return e instanceof Error ? { type: 'other', message: e.message, ...(e.stack !== undefined ? { stack: e.stack } : {}) } : { type: 'other', message: String(e) };
}

function revive(s: SerializedError): Error {
  if (s.type === 'codegen') return new CodegenError(s.file, s.pointer, s.detail);
  if (s.type === 'usage') return new UsageError(s.message);
  const e = new Error(s.message);
  if (s.stack !== undefined) e.stack = s.stack;
  return e;
}

/** The worker's side: run, forward every log line, post the result or the error. */
async function runInWorker(options: WorkerOptions): Promise<void> {
  const port = parentPort!;
  const post = (m: FromWorker): void => port.postMessage(m);
  const logger: Logger = {
    stage: (name, detail, ms) => post({ kind: 'log', level: 'stage', args: [name, detail, ms] }),
    info: (message) => post({ kind: 'log', level: 'info', args: [message] }),
    detail: (message) => post({ kind: 'log', level: 'detail', args: [message] }),
    note: (message) => post({ kind: 'log', level: 'note', args: [message] }),
    warn: (message) => post({ kind: 'log', level: 'warn', args: [message] }),
    error: (message) => post({ kind: 'log', level: 'error', args: [message] }),
  };
  try {
    post({ kind: 'done', result: await generate({ ...options, logger }) });
  } catch (e) {
    post({ kind: 'failed', error: serialize(e) });
  }
}

if (!isMainThread && (workerData as { tag?: unknown } | null)?.tag === WORKER_TAG) {
  await runInWorker((workerData as { options: WorkerOptions }).options);
}

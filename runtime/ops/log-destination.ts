import { isMainThread } from 'node:worker_threads';

/** What call lines wait for before they are handed to the destination: this many characters (about fifty lines; under sonic-boom's 16 KB a write), or at most this long. */
const BATCH_CHARS = 16_000;
const BATCH_MS = 100;

/** pino's destination (sonic-boom), as much of it as the log uses. */
export interface SonicBoom extends NodeJS.WritableStream {
  write(text: string): boolean;
  /** Hands what it holds to the operating system now (asynchronously). */
  flush(): void;
  /** Writes what it holds now, synchronously (the process is exiting). */
  flushSync(): void;
}

/** What pino writes to, and the log's way to say "write now". */
export interface LogDestination {
  /** pino's stream: its `write(line)` for every line, `flush()` for pino's `logger.flush()`. */
  readonly stream: { write(line: string): boolean; flush(): void; flushSync(): void; on(event: 'error', listener: (e: NodeJS.ErrnoException) => void): unknown };
  /** What waits is handed over at once: a line an operator waits for was just written. */
  now(): void;
}

/**
 * The default loggers' one destination in this process: fd 2 through pino's own destination, sonic-boom, and, on the
 * main thread, a batch in front of it. Call lines wait in the batch until it holds 16 KB of them or for at most
 * 100 ms, and are then handed to sonic-boom as one string, which writes it at once (or as soon as the write in
 * flight is done): a write is a trip through libuv's thread pool, tens of µs of CPU, more than a line. The batch is
 * ours rather than sonic-boom's own (`minLength`) because sonic-boom measures the UTF-8 length of everything it
 * holds on every write it is given (index.js, `write`: `Buffer.byteLength(bufs[bufs.length - 1])`), which flattens
 * and rescans the growing string each time (a call line through the default logger: ~4.6 µs with sonic-boom holding
 * 4 KB, ~2.6 batched here; docs/operating.md). In a worker thread (no exit hook runs there) every line is written
 * synchronously. What waits is written when the process exits (a drain, a signal, an uncaught exception); only a
 * `kill -9` can lose the last 100 ms. A write that fails (a full disk; a closed pipe pino already silences) is said
 * once as a process warning, never thrown: a log that cannot be written is no reason to stop serving.
 */
export function batchedStderr(destination: (options: { dest: number; sync: boolean }) => SonicBoom): LogDestination {
  const sonic = destination({ dest: 2, sync: !isMainThread });
  let said = false;
  sonic.on('error', (e: NodeJS.ErrnoException) => {
    // A closed pipe: pino stops writing; there is no one to tell.
    if (said || e.code === 'EPIPE') return;
    said = true;
    process.emitWarning(`adcp-codegen: the log could not be written to stderr: ${e.message}`);
  });
  if (!isMainThread) return { stream: sonic, now() {} };
  let waiting: string[] = [];
  let chars = 0;
  let timer: NodeJS.Timeout | undefined;
  const handOver = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (waiting.length === 0) return;
    const text = waiting.length === 1 ? waiting[0]! : waiting.join('');
    waiting = [];
    chars = 0;
    try {
      sonic.write(text);
    } catch {
      // Destroyed: the process is exiting and pino's exit hook has written what there was.
    }
  };
  const flushSync = (): void => {
    handOver();
    sonic.flushSync();
  };
  process.on('exit', () => {
    try {
      flushSync();
    } catch {
      // Not open yet, or closed: nothing more can be written.
    }
  });
  return {
    stream: {
      write(line) {
        waiting.push(line);
        chars += line.length;
        if (chars >= BATCH_CHARS) handOver();
        else if (timer === undefined) (timer = setTimeout(handOver, BATCH_MS)).unref();
        return true;
      },
      flush() {
        handOver();
        sonic.flush();
      },
      flushSync,
      on: (event, listener) => sonic.on(event, listener),
    },
    now: handOver,
  };
}

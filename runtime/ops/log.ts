import { hostname } from 'node:os';
import { isMainThread } from 'node:worker_threads';
import type { Logger } from '../api/ops-types.js';
import { agentRequire } from '../artifacts/agent-require.js';

/**
 * The agent's log (docs/operating.md): one `info` line per call, and the events an operator must see — a handler
 * that threw, an answer failing its schema, a store fault, a webhook given up on, how the agent starts and stops — at
 * `info`, `warn` or `error`, each with an `event` field and the message the runtime has always written for it.
 *
 * Where it goes: `AgentOptions.logger` (pino, or anything with pino's `(fields, message)` methods), or nowhere with
 * `logger: false`; by default pino, resolved beside the set like every package the runtime uses, writing JSON lines
 * to stderr at `ADCP_LOG_LEVEL` (default `info`) through pino's own destination, sonic-boom, asynchronous and
 * buffered (`pinoLogger` below). stderr, not stdout: an agent's stdout may be a protocol (an MCP stdio server) or its
 * own output. pino is loaded on first need (`prepare()` at a server's start), never by a bare `loadProfile`. Without
 * pino installed the runtime falls back to what it did before: warnings and faults through `process.emitWarning`,
 * start and stop lines as plain text on stderr, no call lines (said once).
 */
export interface RuntimeLog {
  /** Whether a call line would be written now: a call builds its record only then. */
  calls(): boolean;
  /** Whether a line at `level` would be written now (a check made only for the log's sake runs only then). */
  enabled(level: 'warn' | 'error'): boolean;
  call(fields: Record<string, unknown>): void;
  info(event: string, message: string, fields?: Record<string, unknown>): void;
  warn(event: string, message: string, fields?: Record<string, unknown>): void;
  error(event: string, message: string, fields?: Record<string, unknown>): void;
  /** Loads the default logger now (a server's start), so that the first call does not pay for it. */
  prepare(): void;
}

/** pino's levels, and `silent`. */
export const LOG_LEVELS: readonly string[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** pino's default export, as much of it as the default logger uses (the bench makes its logger with it too). */
export interface PinoModule {
  (options: Record<string, unknown>, stream: NodeJS.WritableStream): Logger;
  destination(options: { dest: number; sync: boolean; minLength?: number; periodicFlush?: number }): Destination;
}

/** pino's destination (sonic-boom): `flush()` hands what it buffers to the operating system now. */
interface Destination extends NodeJS.WritableStream {
  flush(): void;
}

const SILENT: RuntimeLog = { calls: () => false, enabled: () => false, call() {}, info() {}, warn() {}, error() {}, prepare() {} };

/**
 * The log of code given none (a service made on its own, as tests make them): what the runtime did before it had
 * a logger — warnings and faults through `process.emitWarning`, nothing else.
 */
export const WARNINGS: RuntimeLog = {
  calls: () => false,
  enabled: () => true,
  call() {},
  info() {},
  warn: (_event, message) => process.emitWarning(message),
  error: (_event, message) => process.emitWarning(message),
  prepare() {},
};

/** Each agent's log, for the transports that are handed the agent alone (createAgent registers it). */
const logs = new WeakMap<object, RuntimeLog>();

export function registerLog(agent: object, log: RuntimeLog): void {
  logs.set(agent, log);
}

export function logOf(agent: object): RuntimeLog {
  return logs.get(agent) ?? WARNINGS;
}

export function runtimeLog(option: Logger | false | undefined, profile: string, env: NodeJS.ProcessEnv = process.env): RuntimeLog {
  if (option === false) return SILENT;
  if (option !== undefined) {
    if (option === null || typeof option !== 'object' || typeof option.info !== 'function' || typeof option.warn !== 'function' || typeof option.error !== 'function') {
      throw new Error('adcp-codegen: logger must be a logger with info, warn and error methods (pino, or one with its (fields, message) convention), or false');
    }
    return over(() => option);
  }
  const level = env.ADCP_LOG_LEVEL === undefined || env.ADCP_LOG_LEVEL === '' ? 'info' : env.ADCP_LOG_LEVEL;
  if (!LOG_LEVELS.includes(level)) throw new Error(`adcp-codegen: ADCP_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(level)}`);
  if (level === 'silent') return SILENT;
  let made: Logger | null | undefined;
  const logger = (): Logger | null => (made === undefined ? (made = defaultLogger(level, profile)) : made);
  const log = over(logger);
  const rank = LOG_LEVELS.indexOf(level);
  // Without pino: the warnings as before, the rest as plain lines; no call lines.
  const fallback = (event: string, message: string, at: number): void => {
    if (at < rank) return;
    if (at >= LOG_LEVELS.indexOf('warn')) process.emitWarning(message);
    else process.stderr.write(`${message}\n`);
  };
  return {
    calls: () => rank <= 2 && logger() !== null,
    enabled: (at) => rank <= LOG_LEVELS.indexOf(at),
    call: (fields) => log.call(fields),
    info: (event, message, fields) => (logger() === null ? fallback(event, message, 2) : log.info(event, message, fields)),
    warn: (event, message, fields) => (logger() === null ? fallback(event, message, 3) : log.warn(event, message, fields)),
    error: (event, message, fields) => (logger() === null ? fallback(event, message, 4) : log.error(event, message, fields)),
    prepare: () => void logger(),
  };
}

/** The log over a logger (null: none to write to). */
function over(logger: () => Logger | null): RuntimeLog {
  return {
    calls() {
      const l = logger();
      return l !== null && (l.isLevelEnabled === undefined || l.isLevelEnabled('info'));
    },
    enabled(level) {
      const l = logger();
      return l !== null && (l.isLevelEnabled === undefined || l.isLevelEnabled(level));
    },
    call: (fields) => logger()?.info(fields, 'call'),
    info: (event, message, fields) => logger()?.info({ event, ...fields }, message),
    warn: (event, message, fields) => logger()?.warn({ event, ...fields }, message),
    error: (event, message, fields) => logger()?.error({ event, ...fields }, message),
    prepare: () => void logger(),
  };
}

/** pino on stderr, or null (said once) when the agent has not installed it. */
function defaultLogger(level: string, profile: string): Logger | null {
  let pino: PinoModule;
  try {
    pino = agentRequire()('pino') as PinoModule;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND' || !String((e as Error).message).includes("'pino'")) throw e;
    process.emitWarning(`adcp-codegen: ${profile} writes no call log: install pino beside the agent (npm install pino) or pass AgentOptions.logger; warnings still go to the process's warnings`);
    return null;
  }
  return pinoLogger(pino, level, profile);
}

/** What call lines wait for in the destination's buffer: this many bytes (about ten lines), or at most this long. */
const BUFFERED_BYTES = 4096;
const BUFFERED_MS = 100;

/**
 * The default logger: pino at `level` on the process's one stderr destination, with the agent's name and the process
 * in every line. Call lines are buffered: they are handed to the operating system together, once the destination
 * holds 4 KB of them or within 100 ms (sonic-boom's `minLength` and `periodicFlush`), because each write costs the
 * process a trip through libuv's thread pool (tens of µs of CPU: more than the line itself), and a busy agent would
 * otherwise make one for nearly every call. Every other line (the start line, a refusal, a fault) goes out at once,
 * or as soon as a write in flight is done: an operator is waiting for it. What is buffered is written out when the
 * process exits (a drain, a signal, an uncaught exception: pino's exit hook); only a `kill -9` can lose the last
 * 100 ms. Exported for bench/observe, which must log exactly as the runtime does.
 */
export function pinoLogger(pino: PinoModule, level: string, profile: string): Logger {
  const destination = stderrOf(pino);
  return pino(
    {
      level,
      base: { pid: process.pid, hostname: hostname(), agent: profile },
      hooks: {
        logMethod(this: unknown, args: unknown[], write: (...args: unknown[]) => void) {
          write.apply(this, args);
          if ((args[0] as { event?: unknown } | null)?.event !== 'call') destination.now();
        },
      },
    },
    destination.stream,
  );
}

/**
 * The default loggers' one destination in this process: fd 2 through sonic-boom, asynchronous and buffered on the
 * main thread (where pino's exit hook writes out what is buffered) and synchronous in a worker thread (where it has
 * none). `now()` hands what is buffered over at once, or when the write in flight is done (sonic-boom then waits for
 * its next flush). A write that fails (a full disk; a closed pipe pino already silences) is said once as a process
 * warning, never thrown: a log that cannot be written is no reason to stop serving.
 */
let stderr: { readonly stream: Destination; now(): void } | undefined;
function stderrOf(pino: PinoModule): { readonly stream: Destination; now(): void } {
  if (stderr !== undefined) return stderr;
  const stream = pino.destination(isMainThread ? { dest: 2, sync: false, minLength: BUFFERED_BYTES, periodicFlush: BUFFERED_MS } : { dest: 2, sync: true });
  let said = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    // A closed pipe: pino stops writing; there is no one to tell.
    if (said || e.code === 'EPIPE') return;
    said = true;
    process.emitWarning(`adcp-codegen: the log could not be written to stderr: ${e.message}`);
  });
  let waiting = false;
  const flush = (): void => {
    try {
      stream.flush();
    } catch {
      // Already closed (the process is exiting, pino's exit hook has written what there was).
    }
  };
  // A write ended: a line that came while it was in flight goes now.
  stream.on('drain', () => {
    if (!waiting) return;
    waiting = false;
    flush();
  });
  stderr = {
    stream,
    now() {
      waiting = true;
      flush();
    },
  };
  return stderr;
}

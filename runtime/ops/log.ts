import { hostname } from 'node:os';
import type { Logger } from '../api/ops-types.js';
import { agentRequire } from '../artifacts/agent-require.js';
import { batchedStderr, type LogDestination, type SonicBoom } from './log-destination.js';

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
  destination(options: { dest: number; sync: boolean }): SonicBoom;
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

/**
 * The default logger: pino at `level` on the process's one stderr destination (log-destination.ts: call lines
 * batched, every other line at once), with the agent's name and the process in every line. Exported for
 * bench/observe, which must log exactly as the runtime does.
 */
export function pinoLogger(pino: PinoModule, level: string, profile: string): Logger {
  stderr ??= batchedStderr(pino.destination);
  const destination = stderr;
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
    destination.stream as unknown as NodeJS.WritableStream,
  );
}

let stderr: LogDestination | undefined;

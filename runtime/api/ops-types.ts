/**
 * What operating an agent touches (docs/operating.md): the logger the runtime writes to, and the trace context a call
 * arrives with. Types only, structural: a pino logger is a Logger as it is, and the set's declarations name no npm
 * package.
 */

/**
 * A logger with pino's calling convention, `(fields, message)`: pino itself (`pino()`, Fastify's `app.log`, a
 * child logger), or an adapter for another one. The runtime writes one `info` line per call and its warnings and
 * faults at `warn` and `error`, each with an `event` field naming what happened.
 */
export interface Logger {
  info(fields: object, message?: string): void;
  warn(fields: object, message?: string): void;
  error(fields: object, message?: string): void;
  /** pino's: when present, a call builds its line only when `info` is enabled. */
  isLevelEnabled?(level: string): boolean;
}

/**
 * The trace context a call arrived with, from its transport's request headers: W3C `traceparent` and `tracestate`,
 * and `x-request-id`. The HTTP entry fills it in over MCP and A2A; a host calling `agent.call` itself may pass its
 * own. Spans of the call continue the caller's trace, and the call's log line names the caller's trace id (else its
 * request id) as `request_id`.
 */
export interface CallTrace {
  readonly traceparent?: string;
  readonly tracestate?: string;
  readonly requestId?: string;
}

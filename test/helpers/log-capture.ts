/**
 * A logger for AgentOptions.logger that keeps every line it is given, for a test to read: what the runtime logged,
 * at which level, with which fields. pino's calling convention, `(fields, message)`.
 */
export interface LoggedLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly msg: string;
  readonly event?: string;
  readonly [field: string]: unknown;
}

export interface CapturedLog {
  readonly logger: { info(fields: object, msg?: string): void; warn(fields: object, msg?: string): void; error(fields: object, msg?: string): void };
  readonly lines: LoggedLine[];
  /** The messages of the lines with `event` (every line when omitted). */
  messages(event?: string): string[];
}

export function captureLog(): CapturedLog {
  const lines: LoggedLine[] = [];
  const at = (level: LoggedLine['level']) => (fields: object, msg = '') => void lines.push({ ...(fields as Record<string, unknown>), level, msg });
  return {
    logger: { info: at('info'), warn: at('warn'), error: at('error') },
    lines,
    messages: (event) => lines.filter((l) => event === undefined || l.event === event).map((l) => l.msg),
  };
}

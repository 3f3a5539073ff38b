/**
 * Progress on stderr, one line per stage with counts and time. Colour only on a TTY, never with NO_COLOR
 * (https://no-color.org) or when the caller passes its own stream.
 */
export interface Logger {
  stage(name: string, detail: string, ms: number): void;
  info(message: string): void;
  /** Shown only with --verbose: what a user rarely needs (each shipped rule not emitted, each unit's compile time). */
  detail(message: string): void;
  /** Something the team should know that is neither wrong nor failing (a served tool a release deprecates). */
  note(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function createLogger(stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr, env: NodeJS.ProcessEnv = process.env, verbose = false): Logger {
  const colour = stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '') && env.TERM !== 'dumb';
  const paint = (code: string, text: string): string => (colour ? `\u001b[${code}m${text}\u001b[0m` : text);
  const line = (text: string): void => {
    stream.write(text + '\n');
  };
  return {
    stage: (name, detail, ms) => line(`${paint('36', 'adcp-codegen')} ${paint('1', name.padEnd(8))} ${detail} ${paint('2', `(${formatMs(ms)})`)}`),
    info: (message) => line(`${paint('36', 'adcp-codegen')} ${message}`),
    detail: (message) => {
      if (verbose) line(`${paint('36', 'adcp-codegen')} ${paint('2', message)}`);
    },
    note: (message) => line(`${paint('35', 'note')} ${message}`),
    warn: (message) => line(`${paint('33', 'warning')} ${message}`),
    error: (message) => line(`${paint('31', 'error')} ${message}`),
  };
}

export const silentLogger: Logger = { stage() {}, info() {}, detail() {}, note() {}, warn() {}, error() {} };

function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

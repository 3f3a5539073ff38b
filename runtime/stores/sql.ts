/**
 * The one thing every store is to the services: SQL over a driver, PostgreSQL's or SQLite's. Statements are written
 * once with `$1`-style parameters and plain types (TEXT, BIGINT milliseconds, JSON as TEXT) that both dialects read
 * alike, so a service's SQL is the same on the server every instance shares and on the embedded default.
 */

export interface SqlResult {
  readonly rows: readonly Record<string, unknown>[];
  /** Rows written (or returned, for a statement with RETURNING). */
  readonly rowCount: number;
}

export interface Sql {
  readonly dialect: 'postgres' | 'sqlite';
  /** Where the data lives, for messages: `postgres host:port/db` (never the password) or the state directory. */
  readonly where: string;
  /** Whether what is written survives the process (false only for the memory store). */
  readonly durable: boolean;
  query(text: string, params?: readonly unknown[]): Promise<SqlResult>;
  /** Runs several writes as one transaction: all of them, or none. */
  batch(statements: readonly (readonly [text: string, params: readonly unknown[]])[]): Promise<void>;
  /** Runs DDL statements once, all or none, one instance at a time (PostgreSQL: under an advisory lock). */
  migrate(statements: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The store could not be reached or failed a statement: the call it served is answered with a transient AdCP error
 * (SERVICE_UNAVAILABLE), never a handler run the store could not record. The message names where, never a secret.
 */
export class StoreUnavailable extends Error {
  constructor(where: string, cause: unknown) {
    super(`${where}: ${reasonOf(cause)}`);
    this.name = 'StoreUnavailable';
  }
}

/** A driver error's reason, short: its code and first line, never a connection string. */
export function reasonOf(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const message = typeof err?.message === 'string' ? err.message.split('\n')[0]!.replace(/postgres(ql)?:\/\/\S+/gi, 'postgres://…') : String(e);
  return typeof err?.code === 'string' ? `${err.code} ${message}` : message;
}

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
  /**
   * One statement run under an exclusive lock named `lock`, held against every process sharing the store, for a
   * check-then-write that must be exact (a per-keyid cap). PostgreSQL: a transaction-scoped advisory lock taken first,
   * so the statement's snapshot holds every write committed under the lock before it. SQLite: a writing statement
   * holds the database's write lock from its start, which already serializes it against every other writer.
   */
  queryExclusive(lock: string, text: string, params?: readonly unknown[]): Promise<SqlResult>;
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

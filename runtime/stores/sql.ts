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

/** What runs statements: the store itself, or one transaction of it (`Sql.transaction`). */
export interface SqlQuery {
  readonly dialect: 'postgres' | 'sqlite';
  query(text: string, params?: readonly unknown[]): Promise<SqlResult>;
}

export interface Sql extends SqlQuery {
  /** Where the data lives, for messages: `postgres host:port/db` (never the password) or the state directory. */
  readonly where: string;
  /** Whether what is written survives the process (false only for the memory store). */
  readonly durable: boolean;
  /**
   * `fn`'s statements (through the handle it is given) in one transaction on one connection: committed when `fn`
   * resolves, rolled back when it throws, the error passed on. A service that records a state change and what must
   * follow from it (a webhook in the outbox) writes both in one. SQLite: the process's other statements on this
   * store wait until it ends (one connection), and other processes wait for its lock (BEGIN IMMEDIATE).
   */
  transaction<T>(fn: (tx: SqlQuery) => Promise<T>): Promise<T>;
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

/**
 * The protocol services' options (services/, stores/): where the agent keeps what must outlive a process, and the
 * idempotency rules' tunables. Types only.
 */

/**
 * Where idempotency records (and every other durable protocol state) live:
 * - `{ url }`: a PostgreSQL server every instance shares (`postgres://…`), through the agent's own `pg` package;
 * - `{ stateDir }`: the embedded store, SQLite in that directory (the agent's own `better-sqlite3`), durable through
 *   `kill -9` and restarts, for one machine (`synchronous: 'full'`, or ADCP_STATE_SYNC=full, fsyncs every commit:
 *   through a power loss too, at about a millisecond a commit);
 * - `'memory'`: nothing survives the process — for tests, and only when named.
 * Default: `DATABASE_URL` when set, else the embedded store in `ADCP_STATE_DIR`, else in
 * `$XDG_STATE_HOME/adcp-agent/<profile>` (`~/.local/state/adcp-agent/<profile>`): never in the repository.
 */
export type StoreOption = 'memory' | { readonly url: string } | { readonly stateDir: string; readonly synchronous?: 'normal' | 'full' };

/** A rolling insert budget (security.mdx, Idempotency rule 8): inserts per second, sustained over 60 s and burst over 10 s. */
export interface InsertBudget {
  readonly sustainedPerSecond: number;
  readonly burstPerSecond: number;
}

export interface IdempotencyOptions {
  /**
   * The replay window, in seconds (3600–604800). Default: the profile's `adcp.idempotency.replay_ttl_seconds`;
   * another value fails the start, since buyers read the profile's.
   */
  replayTtlSeconds?: number;
  /**
   * The handler timeout, in seconds (default 120): a handler still running then is abandoned (its call answers
   * SERVICE_UNAVAILABLE, `ctx.signal` aborts) and its in-flight claim released, so a retry can run it (rule 9).
   */
  handlerTimeoutSeconds?: number;
  /**
   * How long a concurrent retry of an in-flight key waits for the first execution to finish and replays it, in ms
   * (default 5,000); past that it answers IDEMPOTENCY_IN_FLIGHT with `retry_after`.
   */
  waitMs?: number;
  /** Per (principal, account): new keys on mutating tools (default 60/s sustained, 300/s burst). */
  writes?: InsertBudget;
  /** Per (principal, account): new keys on read tools (default 300/s sustained, 1,500/s burst). */
  reads?: InsertBudget;
}

export interface TaskOptions {
  /** How long a task stays readable (get_task_status, list_tasks) after its last change, in seconds (default 7 days). */
  retentionSeconds?: number;
}

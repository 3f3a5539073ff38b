/**
 * The tables of the protocol services, as DDL both dialects read alike (TEXT, BIGINT milliseconds, JSON as TEXT).
 * Created when a store is first opened (`agent.ready()`, or the first call that needs it), never per request; every
 * statement is idempotent, so an upgraded agent adds what it lacks and leaves what it has.
 */
export const SCHEMA: readonly string[] = [
  // Idempotency records (security.mdx, Idempotency): one row per (scope, key). `claim` names the execution holding the
  // key while it is in flight (NULL once done); `expires_at` is then the handler deadline, and after completion the
  // end of the replay window. The payload hash is stored at insert (rule 9), so a concurrent retry with another
  // payload is a conflict at once.
  `CREATE TABLE IF NOT EXISTS adcp_idempotency (
    scope TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    tool TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    claim TEXT,
    response TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (scope, idem_key)
  )`,
  'CREATE INDEX IF NOT EXISTS adcp_idempotency_expires ON adcp_idempotency (expires_at)',
  // Async tasks (L3/async-operations.mdx): one row per task a handler answered `submitted`, kept for the retention
  // window after its last change. `scope` is the principal that owns it, `account` its account scope (a read from
  // another is not found); `release`/`shape` the buyer's release and the handler's (a result is converted down);
  // `push` the buyer's push_notification_config, credentials included (they sign its webhook; never echoed).
  `CREATE TABLE IF NOT EXISTS adcp_tasks (
    task_id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    account TEXT NOT NULL,
    task_type TEXT NOT NULL,
    protocol TEXT NOT NULL,
    release TEXT NOT NULL,
    shape TEXT NOT NULL,
    status TEXT NOT NULL,
    request TEXT NOT NULL,
    push TEXT,
    progress TEXT,
    result TEXT,
    error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    completed_at BIGINT,
    expires_at BIGINT NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS adcp_tasks_scope ON adcp_tasks (scope, created_at)',
  'CREATE INDEX IF NOT EXISTS adcp_tasks_expires ON adcp_tasks (expires_at)',
  // Agent-level notification subscribers (sync_agent_notification_configs): each principal's set, keyed by its own
  // subscriber ids. `config` is the entry as registered, credentials included (write-only: never read back out).
  `CREATE TABLE IF NOT EXISTS adcp_agent_subscribers (
    scope TEXT NOT NULL,
    subscriber_id TEXT NOT NULL,
    config TEXT NOT NULL,
    active INTEGER NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (scope, subscriber_id)
  )`,
  // What the agent has published, by name: the capabilities_version it last announced (a start on a new one fires
  // capabilities.changed).
  `CREATE TABLE IF NOT EXISTS adcp_agent_state (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
];

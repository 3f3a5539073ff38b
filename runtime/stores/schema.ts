/**
 * The tables of the protocol services, as DDL both dialects read alike (TEXT, BIGINT milliseconds, JSON as TEXT).
 * Created when a store is first opened (`agent.ready()`, or the first call that needs it), never per request; every
 * statement is idempotent, so an upgraded agent adds what it lacks and leaves what it has (a column added later is
 * `ALTER TABLE … ADD COLUMN IF NOT EXISTS`, PostgreSQL's form, which the SQLite store applies when the column is missing).
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
  // The A2A server's Tasks (services/tasks/a2a-tasks.ts): one row per (principal, A2A task id), `task` the A2A Task as
  // the SDK saved it (JSON; NULL while only linked), kept `ttl_ms` after its last save and bounded per principal, in
  // number and in `bytes` (its JSON's, the settled answer's included). `adcp_task_id` links an A2A call that made an
  // AdCP task to it; `settled` is what that task ended with (its status and the answer's body), written in the
  // transaction that settles it and shown by every later load of the Task, whenever the SDK last saved it.
  `CREATE TABLE IF NOT EXISTS adcp_a2a_tasks (
    scope TEXT NOT NULL,
    task_id TEXT NOT NULL,
    task TEXT,
    adcp_task_id TEXT,
    settled TEXT,
    ttl_ms BIGINT NOT NULL,
    saved_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    bytes BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (scope, task_id)
  )`,
  // A store made before the per-principal bounds gains the column (the SQLite store reads this form too: stores/sqlite.ts).
  'ALTER TABLE adcp_a2a_tasks ADD COLUMN IF NOT EXISTS bytes BIGINT NOT NULL DEFAULT 0',
  'CREATE INDEX IF NOT EXISTS adcp_a2a_tasks_adcp ON adcp_a2a_tasks (adcp_task_id)',
  'DROP INDEX IF EXISTS adcp_a2a_tasks_saved',
  'CREATE INDEX IF NOT EXISTS adcp_a2a_tasks_scope ON adcp_a2a_tasks (scope, saved_at)',
  'CREATE INDEX IF NOT EXISTS adcp_a2a_tasks_expires ON adcp_a2a_tasks (expires_at)',
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
  // Signing keys the agent made itself (services/keys/): one row per name. `development` is the Ed25519 key a sandbox
  // agent without a configured key creates on its first start and every instance sharing the store signs with. A
  // configured key (the deployment's own) is never written here.
  `CREATE TABLE IF NOT EXISTS adcp_signing_keys (
    name TEXT PRIMARY KEY,
    kid TEXT NOT NULL,
    private_jwk TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`,
  // The webhook outbox (services/webhooks/): one row per logical event (`dedupe_key` unique), its body frozen at
  // enqueue — the exact JSON sent on every attempt, `idempotency_key` and `timestamp` included. A worker holds a row
  // while it attempts it (`lease_owner` until `lease_until`), so two instances never deliver one row at once and a
  // crashed instance's row is taken over when its lease lapses. `auth_secret` (a buyer's legacy HMAC secret or bearer
  // token) is cleared when the row is done.
  `CREATE TABLE IF NOT EXISTS adcp_webhook_outbox (
    event_id TEXT PRIMARY KEY,
    dedupe_key TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    body TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    auth_mode TEXT NOT NULL,
    auth_secret TEXT,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    first_attempt_at BIGINT,
    next_attempt_at BIGINT NOT NULL,
    lease_owner TEXT,
    lease_until BIGINT,
    last_status INTEGER,
    last_error TEXT,
    finished_at BIGINT
  )`,
  'CREATE INDEX IF NOT EXISTS adcp_webhook_outbox_due ON adcp_webhook_outbox (state, next_attempt_at)',
  // Signed requests' replay store (security.mdx, "Transport replay dedup"): one row per verified (keyid, scope, nonce),
  // `scope` the canonical @target-uri (@adcp/sdk partitions by it), kept until `expires_at`; an expired row is reused in
  // place and swept. The per-keyid cap counts a key's unexpired rows over every scope (second index).
  `CREATE TABLE IF NOT EXISTS adcp_request_replay (
    keyid TEXT NOT NULL,
    scope TEXT NOT NULL,
    nonce TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (keyid, scope, nonce)
  )`,
  'CREATE INDEX IF NOT EXISTS adcp_request_replay_keyid ON adcp_request_replay (keyid, expires_at)',
  'CREATE INDEX IF NOT EXISTS adcp_request_replay_expires ON adcp_request_replay (expires_at)',
  // Signed governance (services/governance/): every governance_context token a governed call accepted, one row per
  // (iss, aud, jti) — the `jti` replay set every instance sharing the store consults (checklist step 15), and the
  // seller's record of the authorizations it acted on (jti, iss, aud, sub, phase, when). A retry of the same request
  // (same caller, task and payload hash, its idempotency claim released) may present the token again until the call
  // it authorized succeeds (`done`); `media_buy_id` links a later lifecycle token of the same action to its `sub`.
  // Kept until `retain_until`, then swept.
  `CREATE TABLE IF NOT EXISTS adcp_governance_tokens (
    iss TEXT NOT NULL,
    aud TEXT NOT NULL,
    jti TEXT NOT NULL,
    sub TEXT NOT NULL,
    phase TEXT NOT NULL,
    caller TEXT NOT NULL,
    task TEXT NOT NULL,
    payload_hash TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    token TEXT NOT NULL,
    done INTEGER NOT NULL,
    media_buy_id TEXT,
    expires_at BIGINT NOT NULL,
    accepted_at BIGINT NOT NULL,
    retain_until BIGINT NOT NULL,
    PRIMARY KEY (iss, aud, jti)
  )`,
  'CREATE INDEX IF NOT EXISTS adcp_governance_tokens_media_buy ON adcp_governance_tokens (aud, media_buy_id)',
  'CREATE INDEX IF NOT EXISTS adcp_governance_tokens_retain ON adcp_governance_tokens (retain_until)',
  // What a governance agent has revoked (services/governance/revocations.ts): a `jti` (one decision rescinded) or a
  // `kid` (every token ever signed under it), published in its signed revocation list.
  `CREATE TABLE IF NOT EXISTS adcp_governance_revocations (
    kind TEXT NOT NULL,
    value TEXT NOT NULL,
    revoked_at BIGINT NOT NULL,
    PRIMARY KEY (kind, value)
  )`,
];

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
];

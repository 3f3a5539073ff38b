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
];

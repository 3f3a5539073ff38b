import type { Sql } from '../../stores/sql.js';

/**
 * The idempotency table's statements (stores/schema.ts), the same text on PostgreSQL and SQLite: claiming a key
 * (first insert wins; a claim whose deadline passed, or a record past its horizon, is taken over), reading it, and
 * the claim's two ends, each bound to the claim that made it, so a late end of a claim taken over changes nothing.
 */

export interface IdempotencyRecord {
  readonly tool: string;
  readonly payloadHash: string;
  /** The execution holding the key, while in flight; null once done. */
  readonly claim: string | null;
  /** The cached body (JSON), once done. */
  readonly response: string | null;
  /** In flight: the handler's deadline; done: the end of the replay window (ms). */
  readonly expiresAt: number;
}

export interface Claim {
  readonly scope: string;
  readonly key: string;
  readonly tool: string;
  readonly payloadHash: string;
  readonly claim: string;
  readonly now: number;
  /** The handler's deadline: the claim's lifetime (rule 9). */
  readonly deadline: number;
  /** Done records that expired before this are forgotten: a key is new again. */
  readonly forgetBefore: number;
}

const CLAIM = `INSERT INTO adcp_idempotency (scope, idem_key, tool, payload_hash, claim, response, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5, NULL, $6, $7)
ON CONFLICT (scope, idem_key) DO UPDATE SET tool = excluded.tool, payload_hash = excluded.payload_hash, claim = excluded.claim,
  response = NULL, created_at = excluded.created_at, expires_at = excluded.expires_at
WHERE (adcp_idempotency.claim IS NOT NULL AND adcp_idempotency.expires_at < $6)
   OR (adcp_idempotency.claim IS NULL AND adcp_idempotency.expires_at < $8)
RETURNING idem_key`;
const READ = 'SELECT tool, payload_hash, claim, response, expires_at FROM adcp_idempotency WHERE scope = $1 AND idem_key = $2';
const COMPLETE = 'UPDATE adcp_idempotency SET claim = NULL, response = $4, expires_at = $5 WHERE scope = $1 AND idem_key = $2 AND claim = $3';
const RELEASE = 'DELETE FROM adcp_idempotency WHERE scope = $1 AND idem_key = $2 AND claim = $3';
const PURGE = 'DELETE FROM adcp_idempotency WHERE expires_at < $1';

/** Whether this claim now holds the key. */
export async function claimKey(sql: Sql, c: Claim): Promise<boolean> {
  const r = await sql.query(CLAIM, [c.scope, c.key, c.tool, c.payloadHash, c.claim, c.now, c.deadline, c.forgetBefore]);
  return r.rowCount > 0;
}

export async function readKey(sql: Sql, scope: string, key: string): Promise<IdempotencyRecord | undefined> {
  const row = (await sql.query(READ, [scope, key])).rows[0];
  if (row === undefined) return undefined;
  return {
    tool: String(row.tool),
    payloadHash: String(row.payload_hash),
    claim: row.claim === null ? null : String(row.claim),
    response: row.response === null ? null : String(row.response),
    // PostgreSQL answers BIGINT as a string.
    expiresAt: Number(row.expires_at),
  };
}

/** The first success, made the key's canonical answer until `until`; false when the claim was lost (taken over). */
export async function completeKey(sql: Sql, c: Pick<Claim, 'scope' | 'key' | 'claim'>, body: string, until: number): Promise<boolean> {
  return (await sql.query(COMPLETE, [c.scope, c.key, c.claim, body, until])).rowCount > 0;
}

/** The claim given back (the call failed): the key is never seen again, and a retry executes. */
export async function releaseKey(sql: Sql, c: Pick<Claim, 'scope' | 'key' | 'claim'>): Promise<void> {
  await sql.query(RELEASE, [c.scope, c.key, c.claim]);
}

/** Records whose horizon passed before `before`: gone for good. */
export async function purgeKeys(sql: Sql, before: number): Promise<number> {
  return (await sql.query(PURGE, [before])).rowCount;
}

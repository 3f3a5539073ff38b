import type { Delivery, DeliveryState } from '../../api/webhook-types.js';
import type { SqlQuery } from '../../stores/sql.js';

/**
 * The outbox table's statements (stores/schema.ts), the same text on PostgreSQL and SQLite. A worker leases due rows
 * with one UPDATE whose WHERE it re-checks on the row it updates, so two instances racing for one row cannot both
 * take it (PostgreSQL re-evaluates the WHERE on the row version it waited for; SQLite runs one writer at a time); a
 * lease lapses, so a crashed instance's row is taken over. An attempt's outcome is written only by the lease's owner.
 */

export type AuthMode = Delivery['authMode'];

export interface NewRow {
  readonly eventId: string;
  readonly dedupeKey: string;
  readonly url: string;
  readonly body: string;
  readonly idempotencyKey: string;
  readonly authMode: AuthMode;
  readonly authSecret: string | null;
  readonly now: number;
}

/** A leased row: what one attempt needs. */
export interface LeasedRow {
  readonly eventId: string;
  readonly url: string;
  readonly body: string;
  readonly idempotencyKey: string;
  readonly authMode: AuthMode;
  readonly authSecret: string | null;
  readonly attempts: number;
  readonly firstAttemptAt: number | null;
}

export type Outcome =
  | { readonly state: 'delivered' | 'failed'; readonly status?: number; readonly error?: string }
  | { readonly state: 'pending'; readonly next: number; readonly status?: number; readonly error?: string };

const COLUMNS = 'event_id, dedupe_key, url, body, idempotency_key, auth_mode, state, attempts, created_at, first_attempt_at, next_attempt_at, last_status, last_error, finished_at';
const INSERT = `INSERT INTO adcp_webhook_outbox (event_id, dedupe_key, url, body, idempotency_key, auth_mode, auth_secret, state, attempts, created_at, next_attempt_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', 0, $8, $8)
ON CONFLICT (dedupe_key) DO NOTHING`;
const BY_DEDUPE = 'SELECT event_id, idempotency_key FROM adcp_webhook_outbox WHERE dedupe_key = $1';
const READ = `SELECT ${COLUMNS} FROM adcp_webhook_outbox WHERE event_id = $1`;
const LEASE = `UPDATE adcp_webhook_outbox SET lease_owner = $1, lease_until = $2
WHERE event_id IN (
  SELECT event_id FROM adcp_webhook_outbox
  WHERE state = 'pending' AND next_attempt_at <= $3 AND (lease_until IS NULL OR lease_until < $3)
  ORDER BY next_attempt_at LIMIT $4)
AND state = 'pending' AND (lease_until IS NULL OR lease_until < $3)
RETURNING event_id, url, body, idempotency_key, auth_mode, auth_secret, attempts, first_attempt_at`;
const FINISH = `UPDATE adcp_webhook_outbox SET state = $3, attempts = attempts + $4, first_attempt_at = COALESCE(first_attempt_at, $5),
  next_attempt_at = $6, last_status = $7, last_error = $8, finished_at = $9, lease_owner = NULL, lease_until = NULL,
  auth_secret = CASE WHEN $3 = 'pending' THEN auth_secret ELSE NULL END
WHERE event_id = $1 AND lease_owner = $2`;
const PURGE = "DELETE FROM adcp_webhook_outbox WHERE state <> 'pending' AND finished_at < $1";
const RELEASE = "UPDATE adcp_webhook_outbox SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1 AND state = 'pending'";
const BACKLOG = "SELECT count(*) AS depth, min(created_at) AS oldest FROM adcp_webhook_outbox WHERE state = 'pending'";

/** Adds a row, unless its dedupe key is taken: the row's ids either way, and whether it was added. */
export async function insertRow(sql: SqlQuery, row: NewRow): Promise<{ enqueued: boolean; eventId: string; idempotencyKey: string }> {
  const r = await sql.query(INSERT, [row.eventId, row.dedupeKey, row.url, row.body, row.idempotencyKey, row.authMode, row.authSecret, row.now]);
  if (r.rowCount > 0) return { enqueued: true, eventId: row.eventId, idempotencyKey: row.idempotencyKey };
  const first = (await sql.query(BY_DEDUPE, [row.dedupeKey])).rows[0];
  if (first === undefined) throw new Error('adcp-codegen: webhook outbox: the dedupe key was taken, yet no row holds it');
  return { enqueued: false, eventId: String(first.event_id), idempotencyKey: String(first.idempotency_key) };
}

export async function readRow(sql: SqlQuery, eventId: string): Promise<Delivery | undefined> {
  const r = (await sql.query(READ, [eventId])).rows[0];
  if (r === undefined) return undefined;
  const n = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v));
  return {
    eventId: String(r.event_id),
    dedupeKey: String(r.dedupe_key),
    url: String(r.url),
    idempotencyKey: String(r.idempotency_key),
    authMode: String(r.auth_mode) as AuthMode,
    state: String(r.state) as DeliveryState,
    attempts: Number(r.attempts),
    ...(n(r.last_status) !== undefined ? { lastStatus: n(r.last_status) } : {}),
    ...(r.last_error !== null ? { lastError: String(r.last_error) } : {}),
    // PostgreSQL answers BIGINT as a string.
    createdAt: Number(r.created_at),
    ...(n(r.first_attempt_at) !== undefined ? { firstAttemptAt: n(r.first_attempt_at) } : {}),
    nextAttemptAt: Number(r.next_attempt_at),
    ...(n(r.finished_at) !== undefined ? { finishedAt: n(r.finished_at) } : {}),
    body: String(r.body),
  };
}

/** Takes up to `limit` due rows for `owner` until `until`. */
export async function leaseRows(sql: SqlQuery, owner: string, now: number, until: number, limit: number): Promise<LeasedRow[]> {
  const r = await sql.query(LEASE, [owner, until, now, limit]);
  return r.rows.map((row) => ({
    eventId: String(row.event_id),
    url: String(row.url),
    body: String(row.body),
    idempotencyKey: String(row.idempotency_key),
    authMode: String(row.auth_mode) as AuthMode,
    authSecret: row.auth_secret === null ? null : String(row.auth_secret),
    attempts: Number(row.attempts),
    firstAttemptAt: row.first_attempt_at === null ? null : Number(row.first_attempt_at),
  }));
}

/**
 * Records what became of a leased row: delivered, failed for good, or pending until `next`. `attempted` is whether
 * this lease made an attempt (a row found past its horizon fails without one), at `startedAt`. False when the lease
 * was lost (lapsed and taken over): the other owner's outcome stands.
 */
export async function finishRow(sql: SqlQuery, owner: string, row: LeasedRow, outcome: Outcome, attempted: boolean, startedAt: number, now: number): Promise<boolean> {
  const r = await sql.query(FINISH, [
    row.eventId,
    owner,
    outcome.state,
    attempted ? 1 : 0,
    attempted ? startedAt : null,
    outcome.state === 'pending' ? outcome.next : now,
    outcome.status ?? null,
    outcome.error ?? null,
    outcome.state === 'pending' ? null : now,
  ]);
  return r.rowCount > 0;
}

/** Rows done before `before`: gone. */
export async function purgeRows(sql: SqlQuery, before: number): Promise<number> {
  return (await sql.query(PURGE, [before])).rowCount;
}

/** The leases `owner` still holds, given back (a worker stopping): another instance takes the rows at once. */
export async function releaseLeases(sql: SqlQuery, owner: string): Promise<number> {
  return (await sql.query(RELEASE, [owner])).rowCount;
}

/** Events not yet delivered nor given up on, and when the oldest of them was enqueued (ms), if any. */
export async function backlog(sql: SqlQuery): Promise<{ depth: number; oldest: number | undefined }> {
  const r = (await sql.query(BACKLOG)).rows[0];
  return { depth: Number(r?.depth ?? 0), oldest: r?.oldest === null || r?.oldest === undefined ? undefined : Number(r.oldest) };
}

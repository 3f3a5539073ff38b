import type { Store } from '../../stores/open.js';
import type { ReplayEntry } from './checklist.js';

/**
 * The accepted-token record of a service enforcing governance, over `adcp_governance_tokens` (stores/schema.ts): step
 * 15's `(iss, aud, jti)` replay set, shared by every instance on one store, and the authorizations the service acted
 * on, kept for its retention period (the governance specification: a seller persists each accepted token by `jti`
 * with `iss`, `aud`, `sub`, `phase` and when it was accepted).
 *
 * Consuming is one statement: a new tuple is inserted; a known one is accepted again only for the same request — the
 * same caller, task and payload hash (which binds the idempotency key) — and only while the call it authorized has not
 * succeeded (the spec's interaction with idempotency: a retry whose claim was released verifies again; anything else
 * presenting a seen `jti` is a replay). Concurrent retries of one request never both get here: the idempotency claim
 * before this stage lets one through.
 */
export interface TokenRecord {
  consume(entry: ReplayEntry, now: number): Promise<'ok' | 'replayed'>;
  /** The call the token authorized succeeded: the token is spent, and tied to the media buy it made or changed. */
  spend(entry: Pick<ReplayEntry, 'iss' | 'aud' | 'jti'>, mediaBuyId: string | undefined): Promise<void>;
  /** The `sub` of the first authorization the service acted on for this media buy (the action's binding), if any. */
  priorSub(aud: string, mediaBuyId: string): Promise<string | undefined>;
}

const CONSUME = `INSERT INTO adcp_governance_tokens
  (iss, aud, jti, sub, phase, caller, task, payload_hash, idempotency_key, token, done, media_buy_id, expires_at, accepted_at, retain_until)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0, NULL, $11, $12, $13)
ON CONFLICT (iss, aud, jti) DO UPDATE SET accepted_at = excluded.accepted_at
WHERE adcp_governance_tokens.done = 0
  AND adcp_governance_tokens.payload_hash <> ''
  AND adcp_governance_tokens.payload_hash = excluded.payload_hash
  AND adcp_governance_tokens.caller = excluded.caller
  AND adcp_governance_tokens.task = excluded.task`;
const SPEND = 'UPDATE adcp_governance_tokens SET done = 1, media_buy_id = COALESCE($4, media_buy_id) WHERE iss = $1 AND aud = $2 AND jti = $3';
const PRIOR = 'SELECT sub FROM adcp_governance_tokens WHERE aud = $1 AND media_buy_id = $2 AND done = 1 ORDER BY accepted_at LIMIT 1';
const SWEEP = 'DELETE FROM adcp_governance_tokens WHERE retain_until <= $1';
const SWEEP_EVERY_MS = 60_000;

export function tokenRecord(store: Store, retentionMs: number): TokenRecord {
  let swept = 0;
  return {
    async consume(entry, now) {
      const sql = await store.open();
      const at = now * 1000;
      if (Date.now() - swept >= SWEEP_EVERY_MS) {
        swept = Date.now();
        sql.query(SWEEP, [at]).catch((e: unknown) => store.log.warn('purge_failed', `adcp-codegen: governance: sweeping accepted tokens past their retention: ${String(e)}`));
      }
      const expiresAt = entry.expiresAt * 1000;
      const params = [entry.iss, entry.aud, entry.jti, entry.sub, entry.phase, entry.caller, entry.task, entry.payloadHash ?? '', entry.idempotencyKey ?? '', entry.token, expiresAt, at, Math.max(expiresAt, at + retentionMs)];
      return (await sql.query(CONSUME, params)).rowCount > 0 ? 'ok' : 'replayed';
    },
    async spend(entry, mediaBuyId) {
      await (await store.open()).query(SPEND, [entry.iss, entry.aud, entry.jti, mediaBuyId ?? null]);
    },
    async priorSub(aud, mediaBuyId) {
      const row = (await (await store.open()).query(PRIOR, [aud, mediaBuyId])).rows[0];
      return row === undefined ? undefined : String(row.sub);
    },
  };
}

import type { Store } from '../../stores/open.js';
import type { ReplayStore } from './sdk.js';

/**
 * The `(keyid, nonce)` replay store of signed requests (checklist steps 9a, 12, 13) in the agent's store, so every
 * instance sharing it (PostgreSQL) refuses a nonce any of them accepted. @adcp/sdk's contract, over the
 * `adcp_request_replay` table (stores/schema.ts): `has` and `isCapHit` are the cheap reads before cryptography; `insert`,
 * after it, is authoritative — checking the replay and the key's cap and recording the nonce in one statement under a
 * lock on the key (`queryExclusive`), so concurrent verifiers never both accept one nonce nor overshoot the cap. Times
 * are BIGINT milliseconds in the table, Unix seconds in the SDK's calls.
 */

const HAS = 'SELECT 1 AS hit FROM adcp_request_replay WHERE keyid = $1 AND scope = $2 AND nonce = $3 AND expires_at > $4';
// Counting stops at the cap: the answer is only "below it or not", whatever the key holds.
const LIVE = 'SELECT count(*) AS n FROM (SELECT 1 FROM adcp_request_replay WHERE keyid = $1 AND expires_at > $2 LIMIT $3) AS live';
// Records the nonce unless the key is at its cap; an expired row of the same nonce is reused in place, an unexpired one
// is a replay (no row written). The statement's WHERE keeps SQLite's parser from reading ON CONFLICT as a join.
const INSERT = `INSERT INTO adcp_request_replay (keyid, scope, nonce, expires_at)
SELECT $1, $2, $3, CAST($4 AS BIGINT)
WHERE (SELECT count(*) FROM (SELECT 1 FROM adcp_request_replay WHERE keyid = $1 AND expires_at > $5 LIMIT $6) AS live) < $6
ON CONFLICT (keyid, scope, nonce) DO UPDATE SET expires_at = excluded.expires_at
WHERE adcp_request_replay.expires_at <= $5`;
const SWEEP = 'DELETE FROM adcp_request_replay WHERE expires_at <= $1';

const SWEEP_EVERY_MS = 60_000;
/**
 * Step 9a is a cheap guard before cryptography, not the cap's enforcement (step 13 is, atomically): a key's count is
 * read from the store at most this often, and between two reads estimated from the nonces this process recorded.
 */
const RECOUNT_MS = 1_000;
/** A key at its cap is reported to the operator at most this often (spec: SHOULD alert; it is an attack signal). */
const ALERT_EVERY_MS = 60_000;

export function replayStore(store: Store, capOf: (keyid: string) => number): ReplayStore {
  let swept = 0;
  const alerted = new Map<string, number>();
  /** Per key: its unexpired nonces when last counted, plus those recorded here since, and whether it is capped. */
  const live = new Map<string, { countedAt: number; n: number; capped: boolean }>();
  const has = async (keyid: string, scope: string, nonce: string, now: number): Promise<boolean> => {
    const sql = await store.open();
    return (await sql.query(HAS, [keyid, scope, nonce, now * 1000])).rows.length > 0;
  };
  const alert = (keyid: string, cap: number): void => {
    const at = Date.now();
    if (at - (alerted.get(keyid) ?? 0) < ALERT_EVERY_MS) return;
    alerted.set(keyid, at);
    store.log.warn('signing_key_at_cap', `adcp-codegen: request signing: key ${JSON.stringify(keyid)} holds ${cap} unexpired nonces, its cap: its new signatures are refused (request_signature_rate_abuse) — a compromised key or a misconfigured signer`, { keyid });
  };
  return {
    has,
    async isCapHit(keyid, _scope, now) {
      const cap = capOf(keyid);
      const known = live.get(keyid);
      if (known !== undefined && !known.capped && known.n < cap && Date.now() - known.countedAt < RECOUNT_MS) return false;
      const sql = await store.open();
      const n = Number((await sql.query(LIVE, [keyid, now * 1000, cap])).rows[0]?.n ?? 0);
      if (live.size >= 10_000 && !live.has(keyid)) live.clear(); // keys seen, bounded
      live.set(keyid, { countedAt: Date.now(), n, capped: n >= cap });
      if (n >= cap) alert(keyid, cap);
      return n >= cap;
    },
    async insert(keyid, scope, nonce, ttlSeconds, now) {
      const sql = await store.open();
      const at = now * 1000;
      if (Date.now() - swept >= SWEEP_EVERY_MS) {
        swept = Date.now();
        sql.query(SWEEP, [at]).catch((e) => store.log.warn('purge_failed', `adcp-codegen: request signing: sweeping expired nonces: ${String(e)}`));
      }
      const cap = capOf(keyid);
      const written = await sql.queryExclusive(`adcp_request_replay:${keyid}`, INSERT, [keyid, scope, nonce, at + ttlSeconds * 1000, at, cap]);
      const known = live.get(keyid);
      if (written.rowCount > 0) {
        if (known !== undefined) known.n++;
        return 'ok';
      }
      if (await has(keyid, scope, nonce, now)) return 'replayed';
      live.set(keyid, { countedAt: Date.now(), n: cap, capped: true });
      alert(keyid, cap);
      return 'rate_abuse';
    },
  };
}

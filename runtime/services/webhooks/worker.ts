import { randomUUID } from 'node:crypto';
import type { Store } from '../../stores/open.js';
import type { Sql } from '../../stores/sql.js';
import type { SigningKeys } from '../keys/keys.js';
import { attempt, type AttemptEnv } from './attempt.js';
import { finishRow, leaseRows, purgeRows, releaseLeases, type LeasedRow, type Outcome } from './records.js';
import { deadline, outcomeOf, type Backoff } from './schedule.js';
import { sdkServer, ssrfPolicy } from './sdk.js';
import { hostOf } from '../../wire/report.js';

/**
 * The delivery worker of one agent process, from `ready()` to `close()`: it leases due outbox rows (at most
 * `concurrency` in flight), attempts each once, records the outcome and looks again — at once when a slot frees or
 * this process enqueues, else every poll interval. Any number of instances may run one each over a shared store:
 * the lease keeps a row to one of them at a time, and a row whose holder died (kill -9) is taken over when its lease
 * lapses. Delivery is at least once: a process killed after a receiver accepted but before the outcome was written
 * sends that event again, with the same body and idempotency key, which the receiver dedupes.
 */
export interface DeliveryWorker {
  /** Starts delivering (loads @adcp/sdk/server and the signing key first; rejects, in one line, when it cannot). */
  start(): Promise<void>;
  /** Looks for due rows now (this process just enqueued one). */
  wake(): void;
  /** Stops leasing, waits for the attempts in flight (each bounded by the attempt timeout), gives back any lease left. */
  stop(): Promise<void>;
}

export interface WorkerSettings extends Backoff {
  readonly profile: string;
  readonly sandbox: boolean;
  readonly pollMs: number;
  readonly concurrency: number;
  readonly timeoutMs: number;
}

/** Done rows are kept a week (the longest retry horizon AdCP allows), for `delivery()` and operators, then purged. */
const RETENTION_MS = 604_800_000;
const PURGE_EVERY_MS = 3_600_000;

export function deliveryWorker(store: Store, keys: SigningKeys, s: WorkerSettings): DeliveryWorker {
  const owner = randomUUID();
  // A lease outlives the attempt it covers (the attempt timeout) by a margin for signing and the outcome's write.
  const leaseMs = s.timeoutMs + 30_000;
  const refill = Math.max(1, Math.ceil(s.concurrency / 4));
  const inFlight = new Set<Promise<void>>();
  let env: AttemptEnv | undefined;
  let sql: Sql | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let ticking = false;
  let again = false;
  let purged = 0;

  const schedule = (ms: number): void => {
    if (!running) return;
    clearTimeout(timer);
    // Unref'd: the worker alone never keeps a process alive (a server's listener does).
    timer = setTimeout(() => void tick(), ms).unref();
  };

  const tick = async (): Promise<void> => {
    if (!running || sql === undefined) return;
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      do {
        again = false;
        const free = s.concurrency - inFlight.size;
        if (free <= 0) break;
        const now = Date.now();
        const rows = await leaseRows(sql, owner, now, now + leaseMs, free);
        for (const row of rows) track(deliver(sql, row));
        if (rows.length === free) again = true;
        if (now - purged > PURGE_EVERY_MS) {
          purged = now;
          purgeRows(sql, now - RETENTION_MS).catch((e) => warn(`the outbox could not be purged (${String(e)})`));
        }
      } while (again && running);
    } catch (e) {
      warn(`leasing due webhooks failed (${String(e)}); trying again`);
    } finally {
      ticking = false;
      schedule(s.pollMs);
    }
  };

  const track = (p: Promise<void>): void => {
    inFlight.add(p);
    void p.finally(() => {
      inFlight.delete(p);
      // Look again once a quarter of the slots is free: one lease then fills them all (a lease per freed slot was a
      // store round trip, and on the embedded store a commit, per delivery).
      if (running && s.concurrency - inFlight.size >= refill) setImmediate(() => void tick());
    });
  };

  const deliver = async (db: Sql, row: LeasedRow): Promise<void> => {
    const start = Date.now();
    const first = row.firstAttemptAt ?? start;
    let outcome: Outcome;
    let attempted = false;
    if (row.firstAttemptAt !== null && start > deadline(first, s)) {
      outcome = { state: 'failed', error: `the retry horizon (${Math.round(s.horizonMs / 1000)} s from the first attempt) passed before it could be tried again` };
    } else {
      attempted = true;
      const verdict = await attempt(env!, row).catch((e: unknown) => ({ kind: 'retry' as const, error: `the attempt failed: ${String(e).slice(0, 200)}` }));
      outcome = outcomeOf(verdict, row.attempts + 1, start, first, s);
    }
    try {
      const kept = await finishRow(db, owner, row, outcome, attempted, start, Date.now());
      if (kept && outcome.state === 'failed') warn(`webhook ${row.eventId} to ${hostOf(row.url)} failed for good after ${row.attempts + (attempted ? 1 : 0)} attempt(s): ${outcome.error}`);
    } catch (e) {
      // The lease lapses and another look delivers it again (same body, same key): at least once.
      warn(`the outcome of webhook ${row.eventId} could not be recorded (${String(e)}); it will be attempted again`);
    }
  };

  return {
    async start() {
      if (running) return;
      sql = await store.open();
      const sdk = sdkServer();
      const signer = (await keys.pair()).signer;
      env = { sdk, signer, fetch: sdk.createPinAndBindFetch({ policy: ssrfPolicy(s.sandbox) }), timeoutMs: s.timeoutMs };
      running = true;
      schedule(0);
    },
    wake() {
      if (running) schedule(0);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      while (ticking) await new Promise((resolve) => setTimeout(resolve, 5));
      await Promise.allSettled([...inFlight]);
      // Every attempt has recorded its outcome (and let go of its row); a lease left by one that could not is given back.
      if (sql !== undefined) await releaseLeases(sql, owner).catch((e) => warn(`leases could not be given back (${String(e)}); they lapse`));
    },
  };

  function warn(message: string): void {
    store.log.warn('webhook_delivery', `adcp-codegen: ${s.profile}: ${message}`);
  }
}


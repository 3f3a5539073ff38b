import { randomUUID } from 'node:crypto';
import type { InsertBudget } from '../../api/service-types.js';
import type { RuntimeLog } from '../../ops/log.js';
import type { Store } from '../../stores/open.js';
import { StoreUnavailable } from '../../stores/sql.js';
import { accountScope } from '../account-scope.js';
import { insertBudgets } from './budgets.js';
import { payloadHash } from './hash.js';
import { claimKey, completeKey, purgeKeys, readKey, releaseKey, type IdempotencyRecord } from './records.js';

/**
 * AdCP's replay contract (security.mdx, Idempotency, rules 1–10) over the agent's store, shared by every instance
 * that shares the store. The call stage (call/idempotency.ts) runs it after schema validation (rule 1) and before
 * the handler; only a success completes a claim (rules 2, 3), anything else releases it.
 */

export interface IdempotencyRequest {
  /** The authenticated agent (keys are scoped to it); '' for an unauthenticated caller. */
  readonly principal: string;
  /** The request's `account`, for the insert budget's scope (rule 8). */
  readonly account: unknown;
  readonly tool: string;
  readonly key: string;
  readonly kind: 'read' | 'write';
  /** The request as the buyer sent it: what the payload hash covers. */
  readonly args: Record<string, unknown>;
}

export type Outcome =
  | { readonly kind: 'replay'; readonly body: Record<string, unknown> }
  | { readonly kind: 'conflict' }
  | { readonly kind: 'expired' }
  | { readonly kind: 'in-flight'; readonly retryAfter: number }
  | { readonly kind: 'rate-limited'; readonly retryAfter: number }
  | { readonly kind: 'claimed'; complete(body: Record<string, unknown>): Promise<void>; release(): Promise<void> };

export interface IdempotencyService {
  readonly replayTtlSeconds: number;
  /** The handler timeout: an in-flight claim lives no longer (rule 9). */
  readonly handlerTimeoutMs: number;
  begin(request: IdempotencyRequest): Promise<Outcome>;
}

export interface IdempotencySettings {
  readonly replayTtlSeconds: number;
  readonly handlerTimeoutMs: number;
  /** How long a concurrent retry waits to replay the first execution before IDEMPOTENCY_IN_FLIGHT. */
  readonly waitMs: number;
  readonly writes?: InsertBudget;
  readonly reads?: InsertBudget;
}

/** ±60 s of clock skew at the end of the replay window (rule 6). */
const SKEW_MS = 60_000;
const POLL_MS = 50;
const PURGE_EVERY_MS = 3_600_000;

export function idempotencyService(store: Store, settings: IdempotencySettings): IdempotencyService {
  const ttlMs = settings.replayTtlSeconds * 1000;
  // A key past its window stays known (IDEMPOTENCY_EXPIRED, not a fresh execution) for one more window.
  const horizonMs = ttlMs + SKEW_MS;
  const budgets = insertBudgets(settings);
  let purged = 0;
  const purge = (sql: Awaited<ReturnType<Store['open']>>, now: number): void => {
    if (now - purged < PURGE_EVERY_MS) return;
    purged = now;
    purgeKeys(sql, now - ttlMs - horizonMs).catch((e) => store.log.warn('purge_failed', `adcp-codegen: idempotency purge: ${String(e)}`));
  };

  return {
    replayTtlSeconds: settings.replayTtlSeconds,
    handlerTimeoutMs: settings.handlerTimeoutMs,
    async begin(request) {
      const sql = await store.open();
      const scope = request.principal;
      const hash = payloadHash(request.args);
      const account = accountScope(request.account);
      const waitUntil = Date.now() + settings.waitMs;
      for (;;) {
        const now = Date.now();
        purge(sql, now);
        // Over budget, only a key already known may go on (a replay reads; it inserts nothing).
        const wait = budgets.wait(request.kind, scope, account, now);
        const claim = randomUUID();
        if (wait === 0 && (await claimKey(sql, { scope, key: request.key, tool: request.tool, payloadHash: hash, claim, now, deadline: now + settings.handlerTimeoutMs, forgetBefore: now - horizonMs }))) {
          budgets.count(request.kind, scope, account, now);
          return claimed(sql, store.log, { scope, key: request.key, claim }, ttlMs, now + settings.handlerTimeoutMs);
        }
        const record = await readKey(sql, scope, request.key);
        const verdict = record === undefined ? 'absent' : judge(record, request.tool, hash, Date.now(), horizonMs);
        if (verdict === 'absent') {
          if (wait > 0) return { kind: 'rate-limited', retryAfter: wait };
          continue; // released, lapsed or forgotten since the claim was tried: claim again
        }
        if (verdict !== 'wait') return verdict;
        // Another execution holds the key with this payload: wait for it, then replay it (rule 9, wait-and-replay).
        if (Date.now() >= waitUntil) return { kind: 'in-flight', retryAfter: Math.min(settings.replayTtlSeconds, Math.max(1, Math.ceil((record!.expiresAt - Date.now()) / 1000))) };
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
  };
}

/**
 * What a known record means for this request: 'wait' while another execution holds it with the same payload,
 * 'absent' when it no longer counts (a claim past its deadline, a record past its horizon).
 */
function judge(record: IdempotencyRecord, tool: string, hash: string, now: number, horizonMs: number): Exclude<Outcome, { kind: 'claimed' | 'rate-limited' }> | 'wait' | 'absent' {
  const same = record.tool === tool && record.payloadHash === hash;
  if (record.claim !== null) return record.expiresAt < now ? 'absent' : same ? 'wait' : { kind: 'conflict' };
  // Done. Past its window (with skew): a key the seller has seen is EXPIRED, not new (rule 6), until its horizon.
  if (now > record.expiresAt + SKEW_MS) return now > record.expiresAt + horizonMs ? 'absent' : { kind: 'expired' };
  if (!same) return { kind: 'conflict' };
  return { kind: 'replay', body: JSON.parse(record.response ?? '{}') as Record<string, unknown> };
}

/**
 * The ends of a claim. Completing is awaited (a replay after a crash must find the answer); if the store is gone at
 * that moment, the answer still goes out and the write is retried until the claim's deadline, after which a retry
 * of the key could run the handler again — logged, as nothing else can be done.
 */
function claimed(sql: Awaited<ReturnType<Store['open']>>, log: RuntimeLog, c: { scope: string; key: string; claim: string }, ttlMs: number, deadline: number): Outcome {
  return {
    kind: 'claimed',
    async complete(body) {
      const text = JSON.stringify(body);
      for (let delay = 100; ; delay = Math.min(delay * 2, 5_000)) {
        try {
          if (!(await completeKey(sql, c, text, Date.now() + ttlMs))) log.warn('claim_lapsed', `adcp-codegen: idempotency: a claim outlived its deadline; its answer was not recorded`);
          return;
        } catch (e) {
          if (!(e instanceof StoreUnavailable) || Date.now() + delay > deadline) {
            log.error('answer_not_recorded', `adcp-codegen: idempotency: the answer could not be recorded (${String(e)}); a retry may run the handler again`);
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, delay));
        }
      }
    },
    async release() {
      // Best effort: a claim not given back lapses at its deadline anyway.
      await releaseKey(sql, c).catch((e) => log.warn('claim_not_released', `adcp-codegen: idempotency: a claim could not be released (${String(e)}); it lapses at its deadline`));
    },
  };
}

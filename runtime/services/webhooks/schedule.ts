import type { Verdict } from './attempt.js';
import type { Outcome } from './records.js';

/**
 * When an event is tried again (webhooks.mdx, Reliability): exponential backoff with ±25% jitter from the first
 * retry's delay up to the longest, longer when the receiver's Retry-After says so, for the retry horizon measured from
 * the first attempt (`webhook_signing.delivery_retry_horizon_seconds`, at least 24 h) and never past it: the last
 * attempt is placed a minute before the horizon, and a row found past it fails untried.
 */
export interface Backoff {
  readonly horizonMs: number;
  readonly initialMs: number;
  readonly maxMs: number;
}

/** The last attempt's margin before the horizon: a due row is leased within a poll interval of its time. */
export const LAST_ATTEMPT_MARGIN_MS = 60_000;

/** The retry horizon's end for an event first attempted at `first`. */
export function deadline(first: number, b: Backoff): number {
  return first + b.horizonMs;
}

/**
 * The row's outcome after attempt number `attempts` (1 for the first), made at `start`, the first having been made at
 * `first`. `random` in [0, 1) draws the jitter.
 */
export function outcomeOf(verdict: Verdict, attempts: number, start: number, first: number, b: Backoff, random: number = Math.random()): Outcome {
  const status = verdict.status !== undefined ? { status: verdict.status } : {};
  if (verdict.kind === 'delivered') return { state: 'delivered', ...status };
  if (verdict.kind === 'terminal') return { state: 'failed', ...status, error: verdict.error };
  const base = Math.min(b.initialMs * 2 ** Math.min(attempts - 1, 40), b.maxMs);
  const jittered = Math.round(base * (0.75 + 0.5 * random));
  const delay = Math.max(jittered, Math.min(verdict.retryAfterMs ?? 0, b.maxMs));
  const last = deadline(first, b) - Math.min(LAST_ATTEMPT_MARGIN_MS, b.horizonMs / 2);
  if (start >= last) return { state: 'failed', ...status, error: `${verdict.error}; the retry horizon (${Math.round(b.horizonMs / 1000)} s from the first attempt) ended after ${attempts} attempts` };
  return { state: 'pending', next: Math.min(start + delay, last), ...status, error: verdict.error };
}

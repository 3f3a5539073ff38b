// @ts-check
import { canonicalHash } from './canonical.js';
import { isFailure, reject } from './errors.js';

/**
 * AdCP's replay contract for `idempotency_key` (docs/building/by-layer/L1/security.mdx, "Idempotency"), as one
 * seller process keeps it. The generated runtime has already validated the request (rule 1: schema first, so a
 * malformed request never reaches the cache).
 *
 * - Scope. The spec scopes keys per (authenticated agent, account). A conformant buyer never reuses a key on one
 *   seller (buyer obligations: a fresh key per request), so this seller scopes keys to the agent alone: a key an
 *   agent reuses on another of its accounts is a conflict rather than a second execution, and the agent still sees
 *   only its own keys. (AdCP's storyboard runner relies on it: its idempotency-conflict probe names another account
 *   than the request it conflicts with.) The caller passes the scope.
 * - Rule 2/4: the first successful answer is canonical. A replay with the same key and the same canonical payload
 *   (RFC 8785 JCS, SHA-256, minus the spec's closed exclusion list) returns that answer unchanged — a historical
 *   snapshot, never refreshed — with `replayed: true`.
 * - Rule 3: failures are not cached; a retry executes again.
 * - Rule 5: the same key with another payload (or on another tool) is IDEMPOTENCY_CONFLICT, code and message only.
 * - Rule 6: a key past its replay window (plus 60 s of clock skew) is IDEMPOTENCY_EXPIRED, not a fresh request.
 * - Rule 8: inserts are rate limited per (agent, account) `budget`, reads and writes on separate budgets;
 *   RATE_LIMITED is never cached.
 * - Rule 9: first insert wins. A concurrent retry waits for the first execution and replays it (wait-and-replay).
 *
 * Durability (rule 6) is the one rule this in-memory store cannot keep: a process restart forgets every key. A real
 * seller backs `entries` with durable storage for the declared `replay_ttl_seconds`; this sandbox keeps its map.
 */

/** The closed list of request fields outside the payload hash (security.mdx, "Payload equivalence"). */
function hashedPayload(/** @type {string} */ tool, /** @type {Record<string, unknown>} */ args) {
  const { idempotency_key: _key, context: _context, governance_context: _governance, ...rest } = args;
  const push = /** @type {Record<string, any> | undefined} */ (rest.push_notification_config);
  if (push !== null && typeof push === 'object' && push.authentication !== null && typeof push.authentication === 'object' && 'credentials' in push.authentication) {
    const { credentials: _credentials, ...authentication } = push.authentication;
    rest.push_notification_config = { ...push, authentication };
  }
  // A key reused on another tool is another payload (security.mdx: "Reusing a key on another tool … IDEMPOTENCY_CONFLICT").
  return { tool, payload: rest };
}

/**
 * @typedef {{ sustainedPerSecond: number, burstPerSecond: number }} InsertBudget
 * @typedef {{ replayTtlSeconds?: number, now?: () => number, writes?: InsertBudget, reads?: InsertBudget }} IdempotencyOptions
 * @typedef {{ hash: string, state: 'in_flight', settled: Promise<void> } | { hash: string, state: 'done', body: Record<string, unknown>, expiresAt: number } | { state: 'expired' }} Entry
 */

const SKEW_MS = 60_000;
const SUSTAINED_WINDOW_MS = 60_000;
const BURST_WINDOW_MS = 10_000;

/** @param {IdempotencyOptions} [options] */
export function createIdempotency(options = {}) {
  const ttlMs = (options.replayTtlSeconds ?? 86_400) * 1000;
  const now = options.now ?? Date.now;
  // security.mdx rule 8's first-deployment ceilings, tunable.
  const budgets = {
    write: options.writes ?? { sustainedPerSecond: 60, burstPerSecond: 300 },
    read: options.reads ?? { sustainedPerSecond: 300, burstPerSecond: 1500 },
  };
  /** @type {Map<string, Entry>} */
  const entries = new Map();
  /** @type {Map<string, number[]>} insert times per scope and budget */
  const inserts = new Map();

  /** Throws RATE_LIMITED when one more insert would exceed the scope's budget; otherwise counts it. */
  const countInsert = (/** @type {string} */ scope, /** @type {'write' | 'read'} */ kind) => {
    const id = `${kind}\0${scope}`;
    const t = now();
    const times = (inserts.get(id) ?? []).filter((x) => x > t - SUSTAINED_WINDOW_MS);
    const budget = budgets[kind];
    const burst = times.filter((x) => x > t - BURST_WINDOW_MS);
    const over =
      burst.length >= budget.burstPerSecond * (BURST_WINDOW_MS / 1000)
        ? burst[0] + BURST_WINDOW_MS
        : times.length >= budget.sustainedPerSecond * (SUSTAINED_WINDOW_MS / 1000)
          ? times[0] + SUSTAINED_WINDOW_MS
          : undefined;
    if (over !== undefined) {
      inserts.set(id, times);
      reject('RATE_LIMITED', 'Too many new idempotency keys for this account; retry after the indicated delay', {
        recovery: 'transient',
        retryAfter: Math.max(1, Math.ceil((over - t) / 1000)),
      });
    }
    times.push(t);
    inserts.set(id, times);
  };

  return {
    ttlSeconds: ttlMs / 1000,
    /**
     * Runs `execute` under the replay contract, or answers from the cache.
     * @param {{ scope: string, budget: string, tool: string, key: string, args: Record<string, unknown>, kind: 'write' | 'read' }} call
     * @param {() => Promise<unknown>} execute
     * @returns {Promise<unknown>}
     */
    async run(call, execute) {
      const id = `${call.scope}\0${call.key}`;
      const hash = canonicalHash(hashedPayload(call.tool, call.args));
      for (;;) {
        const entry = entries.get(id);
        if (entry === undefined) break;
        if (entry.state === 'done' && now() > entry.expiresAt + SKEW_MS) {
          entries.set(id, { state: 'expired' });
          continue;
        }
        if (entry.state === 'expired') {
          reject('IDEMPOTENCY_EXPIRED', 'This idempotency_key is past its replay window; check the resource read endpoint, then use a fresh key');
        }
        // Same key, other payload: say only that (no field, no fingerprint: a stolen key must not read the payload).
        if (entry.hash !== hash) {
          reject(
            'IDEMPOTENCY_CONFLICT',
            'idempotency_key was used with a different payload within the replay window. Either resend the exact original payload or use a fresh UUID v4 for this new payload.',
          );
        }
        if (entry.state === 'in_flight') {
          await entry.settled; // then replay it, or execute if it failed and released the key
          continue;
        }
        return { ...structuredClone(entry.body), replayed: true };
      }

      countInsert(call.budget, call.kind);
      /** @type {() => void} */
      let settle = () => {};
      entries.set(id, { hash, state: 'in_flight', settled: new Promise((resolve) => (settle = resolve)) });
      try {
        const body = await execute();
        if (isFailure(body)) entries.delete(id);
        // Immutable from here: later changes to the resource never reach the cached answer.
        else entries.set(id, { hash, state: 'done', body: structuredClone(/** @type {Record<string, unknown>} */ (body)), expiresAt: now() + ttlMs });
        return body;
      } catch (e) {
        entries.delete(id);
        throw e;
      } finally {
        settle();
      }
    },
  };
}

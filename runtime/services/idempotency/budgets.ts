import type { InsertBudget } from '../../api/service-types.js';

/**
 * Cache-growth defense (security.mdx, Idempotency rule 8): new keys per (principal, account) are rate limited, reads
 * and writes on separate budgets, each a rolling 60-second sustained window and a rolling 10-second burst window of
 * one-second buckets, plus a combined cap per principal. Over budget, a new key is RATE_LIMITED with `retry_after`
 * (never cached). Kept per process: N instances admit up to N times the budget, still bounded.
 */
export const DEFAULT_BUDGETS = {
  write: { sustainedPerSecond: 60, burstPerSecond: 300 },
  read: { sustainedPerSecond: 300, burstPerSecond: 1500 },
} as const;

/** security.mdx's combined cap per agent, "the sum of the two budgets with a small cushion": 350/s and 1,700/s by default. */
function combinedOf(write: InsertBudget, read: InsertBudget): InsertBudget {
  return { sustainedPerSecond: write.sustainedPerSecond + read.sustainedPerSecond - 10, burstPerSecond: write.burstPerSecond + read.burstPerSecond - 100 };
}

const SUSTAINED_S = 60;
const BURST_S = 10;
/** Scopes tracked at once; the least recently used is dropped past this (its windows were idle the longest). */
const MAX_SCOPES = 10_000;

/** One scope's inserts: a ring of per-second counts over the last 60 seconds. */
class Window {
  readonly counts = new Uint32Array(SUSTAINED_S);
  second = 0;
  advance(now: number): void {
    const s = Math.floor(now / 1000);
    for (let t = Math.max(this.second + 1, s - SUSTAINED_S + 1); t <= s; t++) this.counts[t % SUSTAINED_S] = 0;
    if (s > this.second) this.second = s;
  }
  /** Seconds until one more insert fits the budget, 0 when it fits now. */
  wait(budget: InsertBudget): number {
    const sum = (span: number): number => {
      let n = 0;
      for (let i = 0; i < span; i++) n += this.counts[(this.second - i + SUSTAINED_S) % SUSTAINED_S]!;
      return n;
    };
    const until = (span: number, limit: number): number => {
      // The oldest buckets leave the window first: how many seconds until the sum drops below the limit.
      let over = sum(span) - limit + 1;
      for (let age = span - 1; age >= 0 && over > 0; age--) {
        over -= this.counts[(this.second - age + SUSTAINED_S) % SUSTAINED_S]!;
        if (over <= 0) return span - age;
      }
      return over > 0 ? span : 0;
    };
    return Math.max(until(BURST_S, budget.burstPerSecond * BURST_S), until(SUSTAINED_S, budget.sustainedPerSecond * SUSTAINED_S));
  }
}

export interface Budgets {
  /** Seconds the caller must wait before a new key of this kind fits every budget of the scope (0: it fits now). */
  wait(kind: 'read' | 'write', principal: string, account: string, now?: number): number;
  /** Counts one new key. */
  count(kind: 'read' | 'write', principal: string, account: string, now?: number): void;
}

export function insertBudgets(options: { writes?: InsertBudget; reads?: InsertBudget } = {}): Budgets {
  const limits = { write: options.writes ?? DEFAULT_BUDGETS.write, read: options.reads ?? DEFAULT_BUDGETS.read };
  const combined = combinedOf(limits.write, limits.read);
  const windows = new Map<string, Window>();
  const windowOf = (id: string, now: number): Window => {
    let w = windows.get(id);
    if (w === undefined) {
      if (windows.size >= MAX_SCOPES) windows.delete(windows.keys().next().value!);
      w = new Window();
    } else windows.delete(id);
    windows.set(id, w);
    w.advance(now);
    return w;
  };
  const scopes = (kind: 'read' | 'write', principal: string, account: string): [string, InsertBudget][] => [
    [`${kind}\u001f${principal}\u001f${account}`, limits[kind]],
    [`all\u001f${principal}`, combined],
  ];
  return {
    wait(kind, principal, account, now = Date.now()) {
      return Math.max(...scopes(kind, principal, account).map(([id, budget]) => windowOf(id, now).wait(budget)));
    },
    count(kind, principal, account, now = Date.now()) {
      for (const [id] of scopes(kind, principal, account)) {
        const w = windowOf(id, now);
        w.counts[w.second % SUSTAINED_S]!++;
      }
    },
  };
}

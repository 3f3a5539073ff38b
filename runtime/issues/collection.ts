/**
 * The collection's state (issue-collect.ts): the validator it re-runs and its budget, and the private copy it repairs.
 * Copied into the generated output with the rest of the runtime.
 */
import { MAX_REJECTION_ISSUES } from '../wire/bounds.js';
import type { Finding } from './finding.js';
import { apply, type Fix } from './repair.js';

/** Validator runs per failed call, issues reported per rejection, arms probed per union, runs per arm and per union. */
export const MAX_RUNS = 128;
export const MAX_ISSUES = MAX_REJECTION_ISSUES;
export const MAX_ARMS = 16;
export const MAX_ARM_RUNS = 16;
export const MAX_UNION_RUNS = 40;
/** Repairs of one placeholder finding before it counts as a cycle. */
export const MAX_REPEATS = 4;

/** Runs the validator and returns its findings ([] when the value is valid). */
export type FindingsOf = (data: unknown) => Finding[];

/** Gets a copy past one run's findings, handing each of the caller's to `sink`; false when it cannot (issue-collect.ts). */
export type Resolve = (ctx: Collection, copy: Copy, findings: readonly Finding[], sink: (f: Finding) => boolean) => boolean;

export interface Collection {
  readonly run: FindingsOf;
  runs: number;
  /** Repairs made of each placeholder finding: one met again and again is a cycle (conflicting constraints). */
  readonly repeats: Map<string, number>;
  /** issue-collect.ts's resolve, which probing an arm runs along it (handed in: the two files would import each other). */
  readonly resolve: Resolve;
  /** Missing switches met on the way (switch-values.ts), asked about once the collection is done. */
  readonly switches: Finding[];
}

/** The private copy: copy-on-write (only the containers on a repair's path), with the placeholders made so far. */
export class Copy {
  constructor(
    public value: unknown,
    public placeholders: string[] = [],
    private owned: WeakSet<object> = new WeakSet(),
  ) {}

  /** Whether the value at `pointer` is the collection's own. */
  under(pointer: string): boolean {
    return this.placeholders.some((p) => pointer === p || pointer.startsWith(`${p}/`));
  }

  /** A copy that writes into containers of its own, never into this one's. */
  fork(): Copy {
    return new Copy(this.value, this.placeholders.slice());
  }

  adopt(other: Copy): void {
    this.value = other.value;
    this.placeholders = other.placeholders;
    this.owned = other.owned;
  }

  apply(fixes: readonly Fix[]): boolean {
    for (const fix of fixes) {
      const next = apply(this.value, fix, this.owned);
      if (next === undefined) return false;
      this.value = next.value;
      // A value the collection put there, or took away (what a `not` forbids, an unknown field): complaints about
      // it later (the field now missing) are the repair's, not the caller's.
      if (fix.placeholder === true || fix.remove === true) this.placeholders.push(fix.pointer);
    }
    return true;
  }
}

/** One more validator run of the collection's budget; throws when the budget is spent. */
export function runOnce(ctx: Collection, copy: unknown): Finding[] {
  if (ctx.runs >= MAX_RUNS) throw new Error('out of runs');
  ctx.runs++;
  return ctx.run(copy);
}

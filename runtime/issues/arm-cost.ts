/**
 * What probing one arm of a union costs (union-arms.ts): the repairs along it on a copy of its own, the caller's
 * fixes they take and the caller's data they drop, and the caller's fields the arm does not declare. Copied into the
 * generated output with the rest of the runtime.
 */
import { findingKey, valueAt, type Finding } from './finding.js';
import { escapeToken } from '../wire/pointer.js';
import { MAX_ARM_RUNS, MAX_RUNS, type Collection, type Copy } from './collection.js';

export interface Undeclared {
  readonly pointer: string;
  readonly cost: number;
  readonly dropped: number;
}

export const costOf = (fields: readonly Undeclared[]): number => fields.reduce((n, u) => n + u.cost, 0);

/** A probe's cost with the caller's fields its arm does not declare; undefined past `bound`. */
export function withUndeclared<P extends { caller: Finding[]; cost: number; dropped: number }>(probed: P, undeclared: readonly Undeclared[], bound: number): P | undefined {
  // A field the arm refused as unknown is counted once, by the probe.
  const refused = new Set(probed.caller.filter((g) => g.issue.keyword === 'additionalProperties').map((g) => g.issue.pointer));
  const extra = undeclared.filter((u) => !refused.has(u.pointer));
  const cost = probed.cost + costOf(extra);
  return cost > bound ? undefined : { ...probed, cost, dropped: probed.dropped + extra.reduce((n, u) => n + u.dropped, 0) };
}

/**
 * The fields of the object at `at` (but the discriminator `property`) that `names` does not declare, with what each
 * holds: the deep-strip would drop them, so they count against the arm as a field dropped as unknown does.
 */
export function undeclaredOf(data: unknown, at: string, property: string | undefined, names: readonly string[] | null | undefined): Undeclared[] {
  const target = valueAt(data, at);
  if (names === null || names === undefined || target === null || typeof target !== 'object' || Array.isArray(target)) return [];
  const declared = new Set(names);
  return Object.entries(target)
    .filter(([key]) => key !== property && !declared.has(key))
    .map(([key, value]) => ({ pointer: `${at}/${escapeToken(key)}`, cost: leaves(value), dropped: size(value) }));
}

/**
 * Repairs `copy` along one arm from its findings `first` (none yet: run first), each run's arm findings given by
 * `next` ([]: the union is past; undefined: the arm is lost). The caller's findings met on the way, and the runs;
 * undefined when the arm is lost, or needs more than `bound` of the caller's fixes.
 */
export function probe(
  ctx: Collection,
  copy: Copy,
  first: readonly Finding[] | undefined,
  next: (found: Finding[]) => readonly Finding[] | undefined,
  bound: number,
): { caller: Finding[]; cost: number; dropped: number; runs: number } | undefined {
  const caller: Finding[] = [];
  const keys = new Set<string>();
  let cost = 0;
  let dropped = 0;
  const sink = (g: Finding): boolean => {
    const key = findingKey(g);
    if (keys.has(key)) return false;
    keys.add(key);
    caller.push(g);
    // Dropping a field, or replacing a value of the wrong type, discards every value the caller put in it.
    if (g.issue.keyword === 'additionalProperties' || g.issue.keyword === 'type') {
      const value = valueAt(copy.value, g.issue.pointer);
      cost += leaves(value);
      if (g.issue.keyword === 'additionalProperties') dropped += size(value);
    } else {
      cost++;
      // Fields a `not` forbids are the caller's data dropped too (a package's `min_spend_target` under the fixed
      // allocation shape), though taking them out is one fix.
      for (const name of g.issue.forbiddenProperties ?? []) dropped += size(valueAt(copy.value, `${g.issue.pointer}/${escapeToken(name)}`));
    }
    return cost <= bound;
  };
  let findings = first;
  for (let runs = 0; ; ) {
    if (findings !== undefined && !ctx.resolve(ctx, copy, findings, sink)) return undefined;
    if (ctx.runs >= MAX_RUNS || runs >= MAX_ARM_RUNS) return undefined;
    const found = ctx.run(copy.value);
    ctx.runs++;
    runs++;
    findings = next(found);
    if (findings === undefined) return undefined;
    if (findings.length === 0) return { caller, cost, dropped, runs };
  }
}

/** The scalar values in a value (at least one; counted up to a bound). */
function leaves(value: unknown): number {
  let n = 0;
  const stack = [value];
  while (stack.length > 0 && n < 64) {
    const v = stack.pop();
    if (v !== null && typeof v === 'object') stack.push(...Object.values(v as object));
    else n++;
  }
  return Math.max(n, 1);
}

/** How much data a value holds (its JSON length, up to a bound): what dropping it would lose. */
function size(value: unknown): number {
  try {
    return Math.min((JSON.stringify(value) ?? '').length, 4096);
  } catch {
    return 1;
  }
}

/**
 * Every issue of a failed payload that can be reached without Ajv's `allErrors`, and what an unmet `not` forbids.
 * Copied into the generated output with the rest of the runtime.
 *
 * The validators stop at the first failure (`allErrors: false`, docs/validators.md): measured on 3.0.6's
 * create_media_buy, `allErrors: true` is no larger, but a million wrong array items then make a million errors and
 * one call ran for over 40 minutes, where the first-failure validator answers in under a millisecond. So a failed
 * call is re-validated, a bounded number of times, on a private copy repaired past each finding (repair.ts).
 * Findings under a placeholder are the repair's, never reported.
 *
 * A union no arm of which matched is resolved arm by arm: each arm is probed on a copy of its own, repaired along
 * that arm until the union accepts it, and the arm that needs the fewest of the caller's fixes is the one reported
 * (its issues, then the union's summary), so `{}` for AdCP 3.2's create_media_buy names the `packages` its first
 * shape needs and then every required field the request lacks. A discriminated union whose value selects an arm is
 * that arm's issues; one whose discriminator is missing or names no arm reports that alone, and the collection gets
 * past it on a guessed arm whose issues it never reports. Only failed calls pay for any of it, within MAX_RUNS.
 */
import { MAX_REJECTION_ISSUES } from '../wire/bounds.js';
import { explainNot } from './explain-not.js';
import { closestArm, findingKey, findWithin, flatten, locate, reach, valueAt, type Finding } from './finding.js';
import { escapeToken } from '../wire/pointer.js';
import { apply, repair, type Fix } from './repair.js';

/** Validator runs per failed call, issues reported per rejection, arms probed per union, runs per arm and per union. */
const MAX_RUNS = 64;
const MAX_ISSUES = MAX_REJECTION_ISSUES;
const MAX_ARMS = 16;
const MAX_ARM_RUNS = 16;
const MAX_UNION_RUNS = 40;
/** Repairs of one placeholder finding before it counts as a cycle. */
const MAX_REPEATS = 4;

/** Runs the validator and returns its findings ([] when the value is valid). */
export type FindingsOf = (data: unknown) => Finding[];

/**
 * The findings of the failed run (`first`) and the further ones repaired copies show, as reported: a union's
 * chosen arm first, then the union. Never throws: anything unexpected ends the collection with what was found.
 * `repaired`: the copy, when the collection ended because it validates (so `findings` name every defect there was
 * on the way to a valid payload); undefined when it stopped short.
 */
export function collectIssues(run: FindingsOf, data: unknown, first: readonly Finding[]): { findings: Finding[]; repaired?: { value: unknown } } {
  const ctx: Collection = { run, runs: 0, repeats: new Map() };
  const out: Finding[] = [];
  const seen = new Set<string>();
  const report = (f: Finding): boolean => {
    const key = findingKey(f);
    if (seen.has(key)) return false; // the repair did not get past it
    seen.add(key);
    out.push(f);
    return true;
  };
  const copy = new Copy(data);
  let valid = false;
  try {
    let round = first;
    while (resolve(ctx, copy, round, report) && out.length < MAX_ISSUES && ctx.runs < MAX_RUNS) {
      round = ctx.run(copy.value);
      ctx.runs++;
      if (round.length === 0) {
        valid = true;
        break;
      }
    }
  } catch {
    // An unexpected shape (absurd nesting, say): what was found stands.
  }
  return { findings: out.slice(0, MAX_ISSUES), ...(valid ? { repaired: { value: copy.value } } : {}) };
}

interface Collection {
  readonly run: FindingsOf;
  runs: number;
  /** Repairs made of each placeholder finding: one met again and again is a cycle (conflicting constraints). */
  readonly repeats: Map<string, number>;
}

/** The private copy: copy-on-write (only the containers on a repair's path), with the placeholders made so far. */
class Copy {
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

/**
 * Gets `copy` past the findings of one run, handing each of the caller's to `sink` (false: seen before, so no
 * progress). False when a finding cannot be got past.
 */
function resolve(ctx: Collection, copy: Copy, findings: readonly Finding[], sink: (f: Finding) => boolean): boolean {
  for (const raw of findings) {
    const synthetic = copy.under(raw.issue.pointer);
    const f = raw.issue.keyword === 'not' && !synthetic ? explainNot(copy.value, raw, (probe) => runOnce(ctx, probe)) : raw;
    if (f.arms !== undefined) {
      const chosen = chooseArm(ctx, copy, f);
      if (chosen === undefined) {
        if (!synthetic) for (const g of [...flatten(closestArm(f.arms)), f]) sink(g);
        return false;
      }
      // The arm's findings were judged one by one (a placeholder's are not the caller's), whoever made the union.
      for (const g of chosen.caller) if (!sink(g)) return false;
      // The union itself is no defect of its own: met again (a repair moved the failure), it is resolved again; and
      // one the collection's own repairs made fail (its arm needs none of the caller's fixes) is not reported.
      if (!synthetic && chosen.caller.length > 0) sink(f);
      copy.adopt(chosen.copy);
      continue;
    }
    if (!synthetic && !sink(f)) return false;
    if (f.pick !== undefined) {
      const chosen = choosePick(ctx, copy, f);
      if (chosen === undefined) return false;
      for (const g of chosen.caller) if (!sink(g)) return false;
      copy.adopt(chosen.copy);
      continue;
    }
    if (synthetic) {
      const key = findingKey(f);
      const n = (ctx.repeats.get(key) ?? 0) + 1;
      ctx.repeats.set(key, n);
      if (n > MAX_REPEATS) return false;
    }
    const fixes = repair(f, synthetic, valueAt(copy.value, f.issue.pointer));
    if (fixes === undefined || !copy.apply(fixes)) return false;
  }
  return true;
}

/** The arm of a failed union the fewest of the caller's fixes satisfy, with those findings and the repaired copy. */
function chooseArm(ctx: Collection, base: Copy, u: Finding): { caller: Finding[]; copy: Copy } | undefined {
  const arms = u.arms!;
  // The arm whose first failure got furthest into the payload first: an arm after it wins only by needing fewer fixes.
  const order = arms.map((arm, k) => ({ k, reach: arm.length > 0 ? reach(arm[0]!) : -Infinity })).sort((a, b) => b.reach - a.reach || a.k - b.k);
  return choose(ctx, base, order.length, (copy, i, bound) => {
    const { k, reach: r } = order[i]!;
    const probed = probe(ctx, copy, arms[k]!, (found) => {
      const again = locate(found, u.union!);
      if (again === undefined) return [];
      const arm = again.arms?.length === arms.length ? again.arms[k]! : [];
      return arm.length > 0 ? arm : undefined;
    }, bound);
    return probed === undefined ? undefined : { ...probed, reach: r };
  });
}

/**
 * A discriminator that is missing or names no arm: the arm whose value, put in its place, then needs the fewest of
 * the caller's fixes (its findings are reported, without a `discriminator`: the caller selected no arm).
 */
function choosePick(ctx: Collection, base: Copy, f: Finding): { caller: Finding[]; copy: Copy } | undefined {
  const { property, branches, at } = f.pick!;
  const where = `${at}/${escapeToken(property)}`;
  return choose(ctx, base, branches.length, (copy, k, bound) => {
    if (branches[k]!.length === 0 || !copy.apply([{ pointer: where, value: structuredClone(branches[k]![0]), placeholder: true }])) return undefined;
    // Still no arm (the arm's value did not take): this arm is given up.
    const probed = probe(ctx, copy, undefined, (found) => {
      const mine = findWithin(found, f.union!);
      return mine.some((g) => g.union === f.union) ? undefined : mine;
    }, bound);
    return probed === undefined ? undefined : { ...probed, reach: 0 };
  });
}

/**
 * The best of `n` arms, each probed on a copy of its own: fewest of the caller's fixes, a field dropped as unknown
 * to the arm (or a value of the wrong type replaced) counting once for every value in it (an arm that keeps what
 * the caller sent is the likelier meaning); then the least of the caller's data dropped; then the deepest first
 * failure (the arm that got furthest into the payload); then the fewest runs. An arm that already needs more fixes
 * than the best is abandoned, the probing ends at an arm needing one fix and dropping nothing, and a union gets
 * MAX_UNION_RUNS runs.
 */
function choose(
  ctx: Collection,
  base: Copy,
  n: number,
  probeOne: (copy: Copy, k: number, bound: number) => { caller: Finding[]; cost: number; dropped: number; runs: number; reach: number } | undefined,
): { caller: Finding[]; copy: Copy } | undefined {
  const started = ctx.runs;
  let best: { caller: Finding[]; copy: Copy; score: number[] } | undefined;
  for (let k = 0; k < n && k < MAX_ARMS && ctx.runs < MAX_RUNS && ctx.runs - started < MAX_UNION_RUNS; k++) {
    const copy = base.fork();
    const probed = probeOne(copy, k, best === undefined ? Infinity : best.score[0]!);
    if (probed === undefined) continue;
    const score = [probed.cost, probed.dropped, -probed.reach, probed.runs];
    if (best === undefined || lexLess(score, best.score)) best = { caller: probed.caller, copy, score };
    // One fix and nothing of the caller's dropped: no arm after it can need less.
    if (best.score[0]! <= 1 && best.score[1] === 0) break;
  }
  return best;
}

function lexLess(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

/**
 * Repairs `copy` along one arm from its findings `first` (none yet: run first), each run's arm findings given by
 * `next` ([]: the union is past; undefined: the arm is lost). The caller's findings met on the way, and the runs;
 * undefined when the arm is lost, or needs more than `bound` of the caller's fixes.
 */
function probe(
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
    } else cost++;
    return cost <= bound;
  };
  let findings = first;
  for (let runs = 0; ; ) {
    if (findings !== undefined && !resolve(ctx, copy, findings, sink)) return undefined;
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

/** One more validator run of the collection's budget; throws when the budget is spent. */
function runOnce(ctx: Collection, copy: unknown): Finding[] {
  if (ctx.runs >= MAX_RUNS) throw new Error('out of runs');
  ctx.runs++;
  return ctx.run(copy);
}

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
 * shape needs and then every required field the request lacks; shapes nearly as likely are named beside it, each
 * issue saying it is another shape's (union-arms.ts). A discriminated union whose value selects an arm is that arm's
 * issues; one whose discriminator is missing or names no arm reports that, then the issues of the arm that declares
 * the caller's fields and needs the fewest fixes. A property that conditions switch on, missing, is reported, and
 * once the rest is found, what each of its values would require (switch-values.ts). Only failed calls pay for any
 * of it, within MAX_RUNS (and the switch's runs of its own).
 */
import { explainNot } from './explain-not.js';
import { closestArm, findingKey, flatten, siblingsOf, valueAt, type Finding } from './finding.js';
import { repair } from './repair.js';
import { Copy, MAX_ISSUES, MAX_REPEATS, MAX_RUNS, runOnce, type Collection, type FindingsOf } from './collection.js';
import { alternatives, chooseArm, choosePick, pickAlternatives } from './union-arms.js';
import { switchRequirements } from './switch-values.js';

export type { FindingsOf } from './collection.js';

const UNIONS = new Set(['oneOf', 'anyOf']);

/**
 * The findings of the failed run (`first`) and the further ones repaired copies show, as reported: a union's
 * chosen arm first, then the union. Never throws: anything unexpected ends the collection with what was found.
 * `repaired`: the copy, when the collection ended because it validates (so `findings` name every defect there was
 * on the way to a valid payload); undefined when it stopped short.
 */
export function collectIssues(run: FindingsOf, data: unknown, first: readonly Finding[]): { findings: Finding[]; repaired?: { value: unknown } } {
  const ctx: Collection = { run, runs: 0, repeats: new Map(), resolve, switches: [] };
  const out: Finding[] = [];
  // What a missing switch's values would require comes after the caller's other defects, which it must not crowd out.
  const later: Finding[] = [];
  // Each finding reported by its key; one named as another shape's is replaced when the caller's own data meets it.
  const seen = new Map<string, { list: Finding[]; at: number }>();
  const report = (f: Finding): boolean => {
    const key = findingKey(f);
    const before = seen.get(key);
    if (before !== undefined && !(before.list[before.at]!.alternative === true && f.alternative !== true)) return false; // the repair did not get past it
    if (before !== undefined) {
      before.list[before.at] = f;
      return true;
    }
    const list = f.later === true ? later : out;
    seen.set(key, { list, at: list.length });
    list.push(f);
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
    for (const f of ctx.switches) for (const g of switchRequirements(ctx, copy, f)) report(g);
  } catch {
    // An unexpected shape (absurd nesting, say): what was found stands.
  }
  return { findings: [...out, ...later].slice(0, MAX_ISSUES), ...(valid ? { repaired: { value: copy.value } } : {}) };
}

/**
 * Gets `copy` past the findings of one run, handing each of the caller's to `sink` (false: seen before, so no
 * progress). False when a finding cannot be got past.
 */
function resolve(ctx: Collection, copy: Copy, findings: readonly Finding[], sink: (f: Finding) => boolean): boolean {
  let repaired = false;
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
      // The shapes nearly as close are named too, each issue saying so: when the caller's value only lacks what the
      // chosen arm requires, the others it only lacks fields of (`account`: `account_id`, or `brand` and
      // `operator`; a media buy's `budget_allocation`, or its packages' `budget`); else those one fix further.
      if (!synthetic) for (const g of alternatives(ctx, copy, f, chosen)) sink(g);
      // The union itself is no defect of its own: met again (a repair moved the failure), it is resolved again; and
      // one the collection's own repairs made fail (its arm needs none of the caller's fixes) is not reported.
      if (!synthetic && chosen.caller.length > 0) sink(f);
      copy.adopt(chosen.copy);
      repaired = true;
      continue;
    }
    // A union's summary reported before, met again after this run's earlier findings were got past: those may be
    // what fails it (an array of assets, each item's own defects first), so the next run says whether it still fails.
    if (!synthetic && !sink(f)) return repaired && awaitsNextRun(f);
    // A missing switch: what each of its values would require is asked once the caller's other defects are found.
    if (f.conditions !== undefined && !synthetic) ctx.switches.push(f);
    if (f.pick !== undefined) {
      const chosen = choosePick(ctx, copy, f);
      if (chosen === undefined) return false;
      for (const g of chosen.caller) if (!sink(g)) return false;
      if (!synthetic) for (const g of pickAlternatives(ctx, copy, f, chosen)) sink(g);
      copy.adopt(chosen.copy);
      repaired = true;
      continue;
    }
    if (synthetic) {
      const key = findingKey(f);
      const n = (ctx.repeats.get(key) ?? 0) + 1;
      ctx.repeats.set(key, n);
      if (n > MAX_REPEATS) return false;
    }
    const fixes = repair(f, synthetic, valueAt(copy.value, f.issue.pointer), siblingsOf(copy.value, f.issue.pointer));
    // A union's summary with nothing to repair of its own, after this run's earlier findings were got past: those
    // were what failed it (a discriminator the pick filled in), so the next run says whether it still fails.
    if (fixes === undefined && repaired && awaitsNextRun(f)) return true;
    if (fixes === undefined || !copy.apply(fixes)) return false;
    repaired = true;
  }
  return true;
}

/**
 * A union's summary with nothing of its own to repair (no arms told apart, no pick): what failed it may be findings
 * this run already got past, so the next run is the one to say whether it still fails.
 */
function awaitsNextRun(f: Finding): boolean {
  return f.arms === undefined && f.pick === undefined && UNIONS.has(f.issue.keyword);
}

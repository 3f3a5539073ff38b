/**
 * Choosing a failed union's arm for the collection (issue-collect.ts): each arm probed on a copy of its own, repaired
 * along it until the union accepts it, the one needing the fewest of the caller's fixes reported; and, when the
 * caller's value favours no arm, the other arms it only lacks fields of. Copied into the generated output with the
 * rest of the runtime.
 */
import { findWithin, locate, reach, type Finding } from './finding.js';
import { escapeToken } from '../wire/pointer.js';
import { Copy, MAX_ARMS, MAX_RUNS, MAX_UNION_RUNS, type Collection } from './collection.js';
import { costOf, probe, undeclaredOf, withUndeclared } from './arm-cost.js';

/** Properties an alternative shape of an ambiguous union may lack and still be named. */
export const MAX_ALTERNATIVE_FIXES = 8;
/** Shapes a union may have for its alternatives to be named. */
const MAX_ALTERNATIVE_ARMS = 6;

/**
 * Whether an arm's findings only say the union's value (at `at`) lacks fields: each a property missing inside it, or
 * a field unknown to the arm that `unknown` says every shape refuses alike (nothing the caller sent favours or
 * contradicts the arm). `unknown` defaults to the arm's own unknown fields: for the chosen arm, whose are reported.
 */
export function onlyMissing(findings: readonly Finding[], at: string, unknown?: ReadonlySet<string>): boolean {
  const own = unknown ?? new Set(findings.filter((g) => g.issue.keyword === 'additionalProperties').map((g) => g.issue.pointer));
  return (
    findings.some((g) => g.issue.keyword === 'required') &&
    findings.every((g) => (g.issue.keyword === 'required' && g.issue.pointer.startsWith(`${at}/`)) || (g.issue.keyword === 'additionalProperties' && own.has(g.issue.pointer)))
  );
}

/**
 * The other arms of union `u` (not `chosen`) worth naming beside it, each probed on a copy of its own (within half the
 * collection's runs), its findings re-worded as that shape's:
 * - when the caller's value only lacks what the chosen arm requires (its data favours no shape), the arms it also
 *   satisfies once given the properties it lacks (at most MAX_ALTERNATIVE_FIXES): their missing properties;
 * - else (or when an arm is not such a shape) the arms of the caller's JSON type `nearly` as likely, all their
 *   findings: `account: { brand: {…} }` whose brand lacks `domain` and holds an unknown field, with no `operator`, is
 *   one fix nearer the `account_id` shape (which drops `brand` whole) than the brand shape, which keeps the brand
 *   the caller sent: both are named.
 */
export function alternatives(ctx: Collection, base: Copy, u: Finding, chosen: { arm: number; caller: readonly Finding[]; cost: number; dropped: number }): Finding[] {
  const arms = u.arms!;
  const at = u.issue.pointer;
  const out: Finding[] = [];
  const missing = onlyMissing(chosen.caller, at);
  // Fields the chosen arm refuses as unknown: another arm refusing them too is no less likely for it.
  const unknown = new Set(chosen.caller.filter((g) => g.issue.keyword === 'additionalProperties').map((g) => g.issue.pointer));
  // A union of many shapes (a controller's scenarios) names its closest one: listing the others helps no caller, and
  // their probes would spend the runs that find the caller's other defects.
  if (arms.length > MAX_ALTERNATIVE_ARMS) return out;
  // The chosen arm keeps all the caller's data: only a tie could be nearly as likely, not worth its probes (a
  // create_media_buy with one wrong enum rejected in 3 runs, not 15).
  if (!missing && chosen.dropped === 0) return out;
  for (let k = 0; k < arms.length && ctx.runs < MAX_RUNS / 2; k++) {
    if (k === chosen.arm) continue;
    const probed = probeArm(ctx, base.fork(), u, k, missing ? Math.max(MAX_ALTERNATIVE_FIXES, chosen.cost + 1) : chosen.cost + 1);
    if (probed === undefined) continue;
    if (missing && onlyMissing(probed.caller, at, unknown)) {
      // Its missing fields; the unknown ones are the chosen arm's too, and reported with it.
      for (const g of probed.caller) if (g.issue.keyword === 'required') out.push(alternative(g, at));
    } else if (nearly(probed, chosen) && !probed.caller.some((g) => g.issue.keyword === 'type' && g.issue.pointer === at)) {
      for (const g of probed.caller) out.push(alternative(g, at));
    }
  }
  return out;
}

/**
 * An arm as likely as the chosen one: as few fixes and no more of the caller's data dropped, or one fix more and less
 * of it dropped (the caller's data speaks for it: the brand shape of an `account` keeps the brand sent). One fix more
 * dropping nothing the chosen one keeps is not named: the chosen arm's fixes may be defects every shape has (a
 * package's wrong `pacing` under create_media_buy's fixed-allocation shape is no reason to name the other budget shapes).
 */
function nearly(probed: { cost: number; dropped: number }, chosen: { cost: number; dropped: number }): boolean {
  return probed.cost <= chosen.cost ? probed.dropped <= chosen.dropped : probed.cost <= chosen.cost + 1 && probed.dropped < chosen.dropped;
}

/** A probe's next findings along arm `k` of union `u`: [] once the union is past, undefined when the arm is lost. */
function armOf(u: Finding, k: number): (found: Finding[]) => readonly Finding[] | undefined {
  const n = u.arms!.length;
  return (found) => {
    const again = locate(found, u.union!);
    if (again === undefined) return [];
    const arm = again.arms?.length === n ? again.arms[k]! : [];
    return arm.length > 0 ? arm : undefined;
  };
}

/**
 * Probes arm `k` of union `u` along its findings; the caller's fields the arm does not declare (when the generator
 * listed its names) count against it, as a field it refuses as unknown does: the deep-strip would drop them.
 */
function probeArm(ctx: Collection, copy: Copy, u: Finding, k: number, bound: number): { caller: Finding[]; cost: number; dropped: number; runs: number } | undefined {
  const undeclared = undeclaredOf(copy.value, u.issue.pointer, undefined, u.armNames?.[k]);
  if (costOf(undeclared) > bound) return undefined;
  const probed = probe(ctx, copy, u.arms![k]!, armOf(u, k), bound);
  return probed === undefined ? undefined : withUndeclared(probed, undeclared, bound);
}

/** The arm of a failed union the fewest of the caller's fixes satisfy, with those findings and the repaired copy. */
export function chooseArm(ctx: Collection, base: Copy, u: Finding): { caller: Finding[]; copy: Copy; arm: number; cost: number; dropped: number } | undefined {
  const arms = u.arms!;
  // The arm whose first failure got furthest into the payload first: an arm after it wins only by needing fewer fixes.
  const order = arms.map((arm, k) => ({ k, reach: arm.length > 0 ? reach(arm[0]!) : -Infinity })).sort((a, b) => b.reach - a.reach || a.k - b.k);
  const best = choose(ctx, base, order.length, u.issue.pointer, (copy, i, bound) => {
    const { k, reach: r } = order[i]!;
    const probed = probeArm(ctx, copy, u, k, bound);
    return probed === undefined ? undefined : { ...probed, reach: r };
  });
  return best === undefined ? undefined : { caller: best.caller, copy: best.copy, arm: order[best.index]!.k, cost: best.cost, dropped: best.dropped };
}

/**
 * A discriminator that is missing or names no arm: the arm whose value, put in its place, then needs the fewest of
 * the caller's fixes (its findings are reported, without a `discriminator`: the caller selected no arm).
 */
export function choosePick(ctx: Collection, base: Copy, f: Finding): { caller: Finding[]; copy: Copy; arm: number; cost: number } | undefined {
  const { branches, at, property, names } = f.pick!;
  // The arms declaring the most of the caller's fields first (a union of twenty assets spends its runs on the likely
  // ones): what the probes then find decides.
  const order = branches.map((_, k) => ({ k, undeclared: costOf(undeclaredOf(base.value, at, property, names?.[k])) }));
  order.sort((a, b) => a.undeclared - b.undeclared || a.k - b.k);
  const best = choose(ctx, base, order.length, at, (copy, i, bound) => {
    const probed = probePick(ctx, copy, f, order[i]!.k, bound);
    return probed === undefined ? undefined : { ...probed, reach: 0 };
  });
  return best === undefined ? undefined : { caller: best.caller, copy: best.copy, arm: order[best.index]!.k, cost: best.cost };
}

/**
 * The other arms of a pick (its discriminator missing or naming no arm) that need at most one fix more than the
 * chosen one, each probed under its own discriminator value: the caller selected no arm, so a shape nearly as close
 * is named too (`verify_brand_claim` with a wrong `claim_type`: the property claim's own defects, not only the
 * subsidiary claim's missing field), each issue saying it is another shape's. Unions of at most
 * MAX_ALTERNATIVE_ARMS arms, within half the collection's runs.
 */
export function pickAlternatives(ctx: Collection, base: Copy, f: Finding, chosen: { arm: number; cost: number }): Finding[] {
  const { branches, at } = f.pick!;
  const out: Finding[] = [];
  if (branches.length > MAX_ALTERNATIVE_ARMS) return out;
  for (let k = 0; k < branches.length && ctx.runs < MAX_RUNS / 2; k++) {
    if (k === chosen.arm) continue;
    const probed = probePick(ctx, base.fork(), f, k, chosen.cost + 1);
    if (probed === undefined || probed.caller.length === 0) continue;
    for (const g of probed.caller) out.push(alternative(g, at));
  }
  return out;
}

/** Probes arm `k` of a pick: its discriminator value put in place (a placeholder), then repaired along it. */
function probePick(ctx: Collection, copy: Copy, f: Finding, k: number, bound: number): { caller: Finding[]; cost: number; dropped: number; runs: number } | undefined {
  const { property, branches, at } = f.pick!;
  if (branches[k]!.length === 0) return undefined;
  // An open `url` asset is no nearer than the `text` one to `{ content: 12345 }`.
  const undeclared = undeclaredOf(copy.value, at, property, f.pick!.names?.[k]);
  const probed = probeValue(ctx, copy, f, branches[k]![0], bound);
  return probed === undefined ? undefined : withUndeclared(probed, undeclared, bound);
}

/**
 * Probes the value `value` of the property a pick or a missing switch (`f`) names, put in place as a placeholder,
 * along the findings made within `f`'s union (its arm, or the conditions' branch); undefined when the value did not
 * take (the union is still unresolved) or needs more than `bound` fixes.
 */
export function probeValue(ctx: Collection, copy: Copy, f: Finding, value: unknown, bound: number): { caller: Finding[]; cost: number; dropped: number; runs: number } | undefined {
  const { property, at } = f.pick ?? f.conditions!;
  if (!copy.apply([{ pointer: `${at}/${escapeToken(property)}`, value: structuredClone(value), placeholder: true }])) return undefined;
  return probe(ctx, copy, undefined, (found) => {
    const mine = findWithin(found, f.union!);
    return mine.some((g) => g.union === f.union) ? undefined : mine;
  }, bound);
}

/** A finding of another shape than the one reported first, its message saying so. */
function alternative(g: Finding, at: string): Finding {
  return { ...g, alternative: true, issue: { ...g.issue, message: `${g.issue.message}, in another shape ${at === '' ? 'the request' : at} may take` } };
}

/**
 * The best of `n` arms, each probed on a copy of its own: first an arm taking the JSON type the caller sent at the
 * union (`at`); then the fewest of the caller's fixes, a field dropped as unknown
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
  at: string,
  probeOne: (copy: Copy, k: number, bound: number) => { caller: Finding[]; cost: number; dropped: number; runs: number; reach: number } | undefined,
): { caller: Finding[]; copy: Copy; index: number; cost: number; dropped: number } | undefined {
  const started = ctx.runs;
  let best: { caller: Finding[]; copy: Copy; score: number[]; index: number } | undefined;
  for (let k = 0; k < n && k < MAX_ARMS && ctx.runs < MAX_RUNS && ctx.runs - started < MAX_UNION_RUNS; k++) {
    const copy = base.fork();
    // An arm costing more than the best is abandoned, unless the best is of another type than the caller's value.
    const probed = probeOne(copy, k, best === undefined || best.score[0] === 1 ? Infinity : best.score[1]!);
    if (probed === undefined) continue;
    // An arm of another JSON type than the value the caller sent (an array form, where the caller sent an object)
    // comes after every arm of the caller's type, whatever it costs: the caller's type is the surest sign of intent.
    const otherType = probed.caller.some((g) => g.issue.keyword === 'type' && g.issue.pointer === at) ? 1 : 0;
    const score = [otherType, probed.cost, probed.dropped, -probed.reach, probed.runs];
    if (best === undefined || lexLess(score, best.score)) best = { caller: probed.caller, copy, score, index: k };
    // One fix, of the caller's type, and nothing of the caller's dropped: no arm after it can need less.
    if (best.score[0] === 0 && best.score[1]! <= 1 && best.score[2] === 0) break;
  }
  return best === undefined ? undefined : { caller: best.caller, copy: best.copy, index: best.index, cost: best.score[1]!, dropped: best.score[2]! };
}

function lexLess(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

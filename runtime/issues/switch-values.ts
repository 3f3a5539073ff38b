/**
 * What each value of a missing switch would require (condition-switch.ts): comply_test_controller without `scenario`
 * applies every scenario's `then` at once, which is why the runtime names `scenario` alone in their place; but the
 * caller's `params` were written for one scenario, and only the caller knows which. So each value the conditions
 * test is put in place on a copy of its own and its branch repaired along, and every finding is named once with the
 * values that require it: `params.creative_id` is required "when scenario is one of "force_creative_status",
 * "force_creative_purge", …". Copied into the generated output with the rest of the runtime.
 */
import { findingKey, type Finding } from './finding.js';
import { listValues } from './issue-text.js';
import { MAX_RUNS, type Collection, type Copy } from './collection.js';
import { MAX_ALTERNATIVE_FIXES, probeValue } from './union-arms.js';

/** Runs the values may spend, whatever the collection spent before (it is done by then: issue-collect.ts). */
const SWITCH_RUNS = MAX_RUNS / 2;

/** `base`: the collection's copy once it is done, the caller's other defects repaired. */
export function switchRequirements(ctx: Collection, base: Copy, f: Finding): Finding[] {
  const { property, values } = f.conditions!;
  const groups = new Map<string, { finding: Finding; values: unknown[] }>();
  ctx.runs = Math.min(ctx.runs, MAX_RUNS - SWITCH_RUNS);
  for (let k = 0; k < values.length && ctx.runs < MAX_RUNS; k++) {
    // The value's branch is past when no finding of the switch's conditions is left; the switch missing again
    // (the value did not take) gives the value up.
    const probed = probeValue(ctx, base.fork(), f, values[k], MAX_ALTERNATIVE_FIXES);
    for (const g of probed?.caller ?? []) {
      const key = findingKey(g);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, { finding: g, values: [values[k]] });
      else group.values.push(values[k]);
    }
  }
  return [...groups.values()].map(({ finding: g, values: vs }) => ({
    ...g,
    later: true,
    issue: { ...g.issue, message: `${g.issue.message}, when ${property} is ${vs.length === 1 ? listValues(vs) : `one of ${listValues(vs)}`}` },
  }));
}

import type { Release } from '../../load/index.js';
import type { ConversionPlan } from './plan.js';
import { fieldsOf, placeKey, type FieldWalk } from './fields.js';

/**
 * The request fields a handler written in the newer release's shape may find missing when the buyer pinned the
 * older release: every name the newer request always requires at a place that the older one does not always require
 * there, and every name a branch of the newer request requires that no branch of the older one does, in the
 * objects both releases have (inside an object only the newer release has, the older buyer sends nothing). Places as `fields.ts` writes them (`packages/*\/bidding`);
 * the generated types make exactly these optional in the handler's arguments (runtime `Relax`). A superset is safe:
 * the types only ever ask the handler to cope with an absence.
 */
export function requestGaps(newer: Release, older: Release, tool: string, walk: FieldWalk = fieldsOf): string[] {
  const n = walk(newer, [newer.tools.get(tool)!.requestSchema]);
  const o = walk(older, [older.tools.get(tool)!.requestSchema]);
  const gaps = new Set<string>();
  for (const place of n.values()) {
    const older = o.get(placeKey(place.path));
    // Inside an object the older request does not have, nothing is sent: its requirements never bind the handler.
    if (older === undefined) continue;
    const always = older.required;
    // A name one branch requires (an AccountRef's account_id) is a gap only where no branch of the older request
    // requires it: an older request satisfying an older branch carries what the matching newer branch needs.
    const somewhere = new Set([...always, ...older.requiredInBranch]);
    for (const name of place.required) if (!always.has(name)) gaps.add(placeKey([...place.path, name]));
    for (const name of place.requiredInBranch) if (!somewhere.has(name)) gaps.add(placeKey([...place.path, name]));
  }
  return [...gaps].sort();
}

/**
 * `gaps.cjs` of a pair: per tool with any, its request gaps, which the runtime reads when it validates a converted
 * request in the handler's release (a gap's absence is no defect there). Data only, as JSON literals.
 */
export function gapsSource(plan: ConversionPlan, tools: readonly { conversion: { tool: string }; gaps: readonly string[] }[]): string {
  const rows = tools.filter((t) => t.gaps.length > 0).map((t) => `  ${JSON.stringify(t.conversion.tool)}: Object.freeze(${JSON.stringify(t.gaps)}),`);
  return [
    "'use strict';",
    `// Request places AdCP ${plan.newer.version} requires and an AdCP ${plan.older.version} request may not carry, per tool: a`,
    "// request converted up may lack them (the handler's types make them optional), and validation there allows it.",
    `module.exports = Object.freeze({${rows.length > 0 ? `\n${rows.join('\n')}\n` : ''}});`,
    '',
  ].join('\n');
}

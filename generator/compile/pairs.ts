import type { Release } from '../load/index.js';
import type { Selection } from '../select/index.js';

/**
 * The release pairs a set converts between: in every profile, a tool's handler is written in the highest release
 * serving it there, and answers every other release serving it through that pair's conversions (per pair, never
 * composed through a release between: a rule file is written, and checked, for exactly two releases).
 */
export interface PairTools {
  readonly newer: Release;
  readonly older: Release;
  /** Sorted. */
  readonly tools: readonly string[];
}

export function conversionPairs(selections: ReadonlyMap<string, readonly Selection[]>): PairTools[] {
  const pairs = new Map<string, { newer: Release; older: Release; tools: Set<string> }>();
  for (const profileSelections of selections.values()) {
    const servedIn = new Map<string, Release[]>();
    for (const s of profileSelections) for (const t of s.tools) servedIn.set(t.name, [...(servedIn.get(t.name) ?? []), s.release]);
    for (const [tool, releases] of servedIn) {
      const [newer, ...older] = [...releases].sort((a, b) => b.major - a.major || b.minor - a.minor);
      for (const o of older) {
        const key = `${newer!.key}>${o.key}`;
        let pair = pairs.get(key);
        if (pair === undefined) pairs.set(key, (pair = { newer: newer!, older: o, tools: new Set() }));
        pair.tools.add(tool);
      }
    }
  }
  return [...pairs.values()]
    .map((p) => ({ newer: p.newer, older: p.older, tools: [...p.tools].sort() }))
    .sort((a, b) => b.newer.major - a.newer.major || b.newer.minor - a.newer.minor || b.older.major - a.older.major || b.older.minor - a.older.minor);
}

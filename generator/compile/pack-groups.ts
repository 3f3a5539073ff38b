/**
 * How both packers (validators/packs.ts: compiled definitions; strip/packs.ts: shared strip modules) decide what
 * goes in one file. Every node (a definition, a strip module) is reached by some set of *entries* (a tool's
 * request or response validator, a tool's strip module). Nodes reached by exactly the same entries belong together:
 * no entry that loads the group needs less of it. Most such groups are a few KB, so groups smaller than `minBytes`
 * are merged, each into the group where the merge wastes least — the bytes an entry would load without reaching
 * them: `bytes(a) × entries only b has + bytes(b) × entries only a has`.
 *
 * Deterministic: the smallest group merges first (ties by key), into the cheapest group (ties by key), so a
 * regeneration forms the same groups byte for byte.
 */

export interface PackGroup<N> {
  /** Bit i set: entry i reaches this group. */
  readonly reach: Uint32Array;
  /** In key order. */
  readonly nodes: N[];
  bytes: number;
  /** Unique, stable: orders groups and breaks ties (MergeOptions.keys). */
  key: string;
}

export interface Reachable<N> {
  /** Per entry, the nodes it loads first. */
  readonly entries: readonly (readonly N[])[];
  readonly nodes: readonly N[];
  readonly depsOf: (node: N) => readonly N[];
  readonly bytesOf: (node: N) => number;
  /** Unique per node; orders nodes and groups. */
  readonly keyOf: (node: N) => string;
}

export interface MergeOptions {
  readonly minBytes: number;
  /**
   * What names a group for ordering and ties: its first node's key, kept as merges add nodes (`first-node`), or the
   * names of the entries of its exact set, joined, as formed before any merge (`entries`, with `entryNames`).
   */
  readonly keys: 'first-node' | { readonly entryNames: readonly string[] };
  /**
   * Keep the graph of groups acyclic (strip packs are named by the hash of their own text, dependencies first):
   * never merge two groups when another group reachable from them reaches back to one of them.
   */
  readonly acyclic?: boolean;
}

/** The groups of `r.nodes` by exact entry set, small ones merged; in key order. */
export function packGroups<N>(r: Reachable<N>, options: MergeOptions): PackGroup<N>[] {
  return mergeSmall(groupByReach(r, options), r, options);
}

const byKey = (a: { key: string }, b: { key: string }): number => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function groupByReach<N>(r: Reachable<N>, options: MergeOptions): PackGroup<N>[] {
  const words = Math.max(1, Math.ceil(r.entries.length / 32));
  const bits = new Map<N, Uint32Array>(r.nodes.map((n) => [n, new Uint32Array(words)]));
  r.entries.forEach((roots, i) => {
    const stack = [...roots];
    const seen = new Set<N>();
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (seen.has(n)) continue;
      seen.add(n);
      bits.get(n)![i >>> 5]! |= 1 << (i & 31);
      stack.push(...r.depsOf(n));
    }
  });
  const byBits = new Map<string, PackGroup<N>>();
  for (const n of r.nodes) {
    const b = bits.get(n)!;
    const id = [...b].map((w) => (w >>> 0).toString(16).padStart(8, '0')).join('');
    let g = byBits.get(id);
    if (g === undefined) byBits.set(id, (g = { reach: b, nodes: [], bytes: 0, key: '' }));
    g.nodes.push(n);
    g.bytes += r.bytesOf(n);
  }
  const groups = [...byBits.values()];
  const { keys } = options;
  for (const g of groups) {
    settleOrder(g, r.keyOf, keys);
    if (keys !== 'first-node') g.key = keys.entryNames.filter((_, i) => reaches(g, i)).sort().join(',');
  }
  return groups.sort(byKey);
}

function settleOrder<N>(g: PackGroup<N>, keyOf: (n: N) => string, keys: MergeOptions['keys']): void {
  g.nodes.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  if (keys === 'first-node') g.key = keyOf(g.nodes[0]!);
}

function mergeSmall<N>(initial: PackGroup<N>[], r: Reachable<N>, options: MergeOptions): PackGroup<N>[] {
  const groups = [...initial];
  const owner = new Map<N, PackGroup<N>>();
  for (const g of groups) for (const n of g.nodes) owner.set(n, g);
  const closesCycle = options.acyclic === true ? cycleCheck(owner, r.depsOf) : () => false;
  const settled = new Set<PackGroup<N>>(); // small, but every merge would close a cycle
  for (;;) {
    let small: PackGroup<N> | undefined;
    for (const g of groups) if (g.bytes < options.minBytes && !settled.has(g) && (small === undefined || g.bytes < small.bytes || (g.bytes === small.bytes && g.key < small.key))) small = g;
    if (small === undefined) break;
    const s = small;
    const into = groups
      .filter((h) => h !== s)
      .map((h) => ({ h, cost: s.bytes * only(h.reach, s.reach) + h.bytes * only(s.reach, h.reach) }))
      .sort((x, y) => x.cost - y.cost || byKey(x.h, y.h))
      .find(({ h }) => !closesCycle(s, h))?.h;
    if (into === undefined) {
      settled.add(s);
      continue;
    }
    for (let i = 0; i < into.reach.length; i++) into.reach[i] = into.reach[i]! | s.reach[i]!;
    into.nodes.push(...s.nodes);
    into.bytes += s.bytes;
    settleOrder(into, r.keyOf, options.keys);
    for (const n of s.nodes) owner.set(n, into);
    groups.splice(groups.indexOf(s), 1);
  }
  return groups.sort(byKey);
}

/** Merging a and b closes a cycle when some other group reachable from them reaches back to one of them. */
function cycleCheck<N>(owner: ReadonlyMap<N, PackGroup<N>>, depsOf: (n: N) => readonly N[]): (a: PackGroup<N>, b: PackGroup<N>) => boolean {
  const next = (g: PackGroup<N>): Set<PackGroup<N>> => {
    const out = new Set<PackGroup<N>>();
    for (const n of g.nodes) for (const d of depsOf(n)) if (owner.get(d) !== g) out.add(owner.get(d)!);
    return out;
  };
  return (a, b) => {
    const seen = new Set([a, b]);
    const stack = [...next(a), ...next(b)].filter((g) => g !== a && g !== b);
    while (stack.length > 0) {
      const g = stack.pop()!;
      if (seen.has(g)) continue;
      seen.add(g);
      for (const h of next(g)) {
        if (h === a || h === b) return true;
        if (!seen.has(h)) stack.push(h);
      }
    }
    return false;
  };
}

/** Entries of a that b lacks. */
function only(a: Uint32Array, b: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) n += popcount(a[i]! & ~b[i]!);
  return n;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Whether entry i reaches the group. */
export function reaches(g: PackGroup<unknown>, i: number): boolean {
  return (g.reach[i >>> 5]! & (1 << (i & 31))) !== 0;
}

import { sha256, shortHash } from '../../shared/index.js';
import type { InputRef } from '../../load/index.js';

/**
 * Packs a release's shared strip modules (issue 12 points 1–2): a tool's strip function loads its whole closure when
 * its module loads, which was one file per schema file it reaches (16 for create_media_buy in 3.0.6). Modules reached
 * by exactly the same tools of the release share a pack, and packs under MIN_PACK_BYTES are merged into the one where
 * that wastes least, so the first call opens a few files.
 *
 * Entry sets are taken over EVERY available tool of the release, never the selection, so a pack's content depends
 * on the release alone and one pack serves every profile (strip modules keep that property). Exact entry sets keep
 * the pack graph acyclic (a module's entry set is contained in that of every module it requires; packs that required
 * each other would have equal sets, hence be one pack), and no merge closes a cycle, so each pack is named by the
 * hash of its own text, dependencies first. Inside a pack each module still runs once, on first require, as its own
 * file did.
 */

export interface StripModuleFile {
  /** The module's file name in `_shared/` (content-addressed). */
  readonly name: string;
  readonly contents: string;
  readonly inputs: readonly InputRef[];
  /** File names of the shared modules it requires. */
  readonly deps: readonly string[];
}

export interface StripPack {
  /** `<tool or shared>.<hash>.cjs` */
  readonly name: string;
  readonly contents: string;
  readonly inputs: InputRef[];
  readonly members: readonly string[];
}

export interface StripPacks {
  readonly packs: readonly StripPack[];
  /** The expression, in a module of `from` (`./_shared/` for tool modules), for the exports of a shared module. */
  readonly ref: (name: string, from: string) => string;
  readonly packOf: (name: string) => StripPack;
}

/** `entries`: per available tool of the release, the shared modules its tool module requires. */
export function packStripModules(modules: readonly StripModuleFile[], entries: readonly { tool: string; roots: readonly string[] }[]): StripPacks {
  const byName = new Map(modules.map((m) => [m.name, m]));
  const reached = new Map<string, Set<string>>(modules.map((m) => [m.name, new Set()]));
  for (const { tool, roots } of entries) {
    const stack = [...roots];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      reached.get(name)!.add(tool);
      stack.push(...byName.get(name)!.deps);
    }
  }
  const exact = new Map<string, string[]>();
  for (const m of modules) {
    const key = [...reached.get(m.name)!].sort().join(',');
    let g = exact.get(key);
    if (g === undefined) exact.set(key, (g = []));
    g.push(m.name);
  }
  const { groups, groupOf } = mergeSmall(
    [...exact.entries()].map(([key, members]) => ({ key, tools: new Set(members.length > 0 ? reached.get(members[0]!)! : []), members, bytes: members.reduce((n, m) => n + byName.get(m)!.contents.length, 0) })),
    (name) => byName.get(name)!.deps,
  );

  const packs = new Map<string, StripPack>();
  const render = (key: string): StripPack => {
    const known = packs.get(key);
    if (known !== undefined) return known;
    const members = groups.get(key)!.members.sort();
    const elsewhere = new Map<string, string>();
    for (const m of members) {
      for (const d of byName.get(m)!.deps) {
        const other = groupOf.get(d)!;
        if (other !== key) elsewhere.set(`./${d}`, `./${render(other).name}`);
      }
    }
    const inputs = new Map<string, InputRef>();
    for (const m of members) for (const i of byName.get(m)!.inputs) inputs.set(i.name, i);
    const contents = [
      '"use strict";',
      '// Strip modules reached by the same tools, packed into one file: each runs once, on first use.',
      'const modules = {',
      ...members.map((m) => `${JSON.stringify(`./${m}`)}: function (exports, require, module) {\n${byName.get(m)!.contents}\n},`),
      '};',
      '// Modules this pack requires from other packs.',
      'const elsewhere = {',
      ...[...elsewhere].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, pack]) => `${JSON.stringify(id)}: ${JSON.stringify(pack)},`),
      '};',
      'const done = new Map();',
      'function load(id) {',
      '  const known = done.get(id);',
      '  if (known !== undefined) return known.exports;',
      '  const define = modules[id];',
      '  if (define === undefined) return require(elsewhere[id]).load(id);',
      '  const module = { exports: {} };',
      '  done.set(id, module);',
      '  define.call(module.exports, module.exports, load, module);',
      '  return module.exports;',
      '}',
      'exports.load = load;',
      '',
    ].join('\n');
    const tools = [...groups.get(key)!.tools];
    const slug = tools.length === 1 ? tools[0]! : 'shared';
    const pack: StripPack = { name: `${slug}.${shortHash(sha256(contents))}.cjs`, contents, inputs: [...inputs.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), members };
    packs.set(key, pack);
    return pack;
  };
  for (const key of [...groups.keys()].sort()) render(key);
  const packOf = (name: string): StripPack => packs.get(groupOf.get(name)!)!;
  return {
    packs: [...packs.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    packOf,
    ref: (name, from) => `require(${JSON.stringify(`${from}${packOf(name).name}`)}).load(${JSON.stringify(`./${name}`)})`,
  };
}

/**
 * Exact tool sets leave many packs of a few KB: a first call opened ten of them. Groups smaller than this are merged,
 * each into the group where the merge wastes least (the bytes a tool would load without reaching them: `bytes(a) ×
 * tools only b has + bytes(b) × tools only a has`), never where the merge would close a cycle of packs, so packs stay
 * acyclic and each is still named by the hash of its own text. Strip code runs only what a value reaches, so the
 * extra bytes cost reading, not running.
 */
const MIN_PACK_BYTES = 16 * 1024;

interface Group {
  key: string;
  tools: Set<string>;
  members: string[];
  bytes: number;
}

/** Merges small groups (deterministically: smallest first, ties by key); returns them by key, and each module's key. */
function mergeSmall(initial: Group[], depsOf: (module: string) => readonly string[]): { groups: Map<string, Group>; groupOf: Map<string, string> } {
  const live = [...initial].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const owner = new Map<string, Group>();
  for (const g of live) for (const m of g.members) owner.set(m, g);
  const next = (g: Group): Set<Group> => {
    const out = new Set<Group>();
    for (const m of g.members) for (const d of depsOf(m)) if (owner.get(d) !== g) out.add(owner.get(d)!);
    return out;
  };
  // Merging a and b closes a cycle when some other group reachable from them reaches back to one of them.
  const closesCycle = (a: Group, b: Group): boolean => {
    const seen = new Set<Group>([a, b]);
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
  const only = (a: Set<string>, b: Set<string>): number => [...a].filter((t) => !b.has(t)).length;
  const settled = new Set<Group>();
  for (;;) {
    let small: Group | undefined;
    for (const g of live) if (g.bytes < MIN_PACK_BYTES && !settled.has(g) && (small === undefined || g.bytes < small.bytes || (g.bytes === small.bytes && g.key < small.key))) small = g;
    if (small === undefined) break;
    const s = small;
    const candidates = live
      .filter((h) => h !== s)
      .map((h) => ({ h, cost: s.bytes * only(h.tools, s.tools) + h.bytes * only(s.tools, h.tools) }))
      .sort((x, y) => x.cost - y.cost || (x.h.key < y.h.key ? -1 : x.h.key > y.h.key ? 1 : 0));
    const into = candidates.find(({ h }) => !closesCycle(s, h))?.h;
    if (into === undefined) {
      settled.add(s);
      continue;
    }
    for (const t of s.tools) into.tools.add(t);
    into.members.push(...s.members);
    into.bytes += s.bytes;
    for (const m of s.members) owner.set(m, into);
    live.splice(live.indexOf(s), 1);
  }
  // Keys name groups by their (merged) tool sets, first module breaking ties: deterministic and unique.
  const groups = new Map<string, Group>();
  const groupOf = new Map<string, string>();
  for (const g of live) {
    g.members.sort();
    g.key = `${[...g.tools].sort().join(',')}\0${g.members[0]!}`;
    groups.set(g.key, g);
    for (const m of g.members) groupOf.set(m, g.key);
  }
  return { groups, groupOf };
}

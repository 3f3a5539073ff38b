import { stronglyConnected, sha256, shortHash } from '../../shared/index.js';
import { packGroups, reaches, type PackGroup } from '../pack-groups.js';
import { jsonText } from './code.js';
import { PACK_SUPPORT_FILE } from './support.js';
import { DEFINER, helpersUsed } from './compact.js';
import { SUPPORT_DIR, unitParts, type BindingLine } from './modules.js';
import type { Unit } from './split.js';

/**
 * Packs the compiled definitions of a release into a few modules (issue 12): loading a tool's validators touches a
 * handful of files instead of one per definition, and each definition is still emitted once.
 *
 * Every definition is reached by some set of *entries* (a tool's request validator, or its response validators);
 * ../pack-groups.ts groups definitions by those sets and merges the small groups where that wastes least, until
 * every group is at least MIN_PACK_BYTES or there is one group.
 * (Grouping by schema area instead — core, enums, media-buy… — gives fewer files per tool but a 2.5 MB core pack
 * that every first call reads: twice the cold start.) Inside a
 * pack a definition is still initialised on first use (a getter), and V8 compiles functions lazily, so a payload
 * runs only the code it reaches; what packing trades is reading (and caching) some bytes an entry never runs, for far
 * fewer files to open, hash and deserialize at cold start.
 *
 * Deterministic: groups are ordered by their entry sets and names, ties broken by name, so a regeneration writes the
 * same packs byte for byte. Content-addressed: a pack's file name carries the hash of its text and, through their
 * names, of the packs it requires (packs that require each other share one hash over the whole cycle).
 */

export const PACKS_DIR = 'packs';

/**
 * Groups smaller than this are merged into a neighbour (bytes of definition code). Measured on the first validated
 * create_media_buy of 3.2: exact groups (no merging) and 16 KB load 8–9 packs in the same time; from ~96 KB the
 * merged groups carry so much code the call never reaches that cold start doubles.
 */
const MIN_PACK_BYTES = 16 * 1024;

export interface PackEntry {
  /** `create_media_buy.request`, `create_media_buy.response`: names a pack whose every definition only it reaches
   * (entries of several releases may share a name). */
  readonly name: string;
  readonly roots: readonly Unit[];
}

export interface Packed {
  /** `packs/<name>-<hash>.cjs` (relative to validate/) of the pack holding a unit. */
  readonly pathOf: (unit: Unit) => string;
  /** The key of a unit inside its pack's exports. */
  readonly keyOf: (unit: Unit) => string;
  /** `units`: every unit of every release that the pack's definitions stand for (for the inputs). */
  readonly files: readonly { path: string; contents: string; units: readonly Unit[] }[];
}

type Group = PackGroup<Unit>;

/**
 * The packs of the definitions the entries reach. Units may come from several releases: `unitNames` are their
 * content-addressed names (modules.ts nameModules), release-independent, so a definition compiled to the
 * same code in two releases is one node here and is emitted once (its first unit stands for all).
 */
export function packUnits(entries: readonly PackEntry[], units: readonly Unit[], unitNames: ReadonlyMap<Unit, string>): Packed {
  const keyOf = (u: Unit): string => unitNames.get(u)!.replace(/\.cjs$/, '');
  const canonical = new Map<string, Unit>();
  const standsFor = new Map<Unit, Unit[]>();
  for (const u of units) {
    const key = keyOf(u);
    if (!canonical.has(key)) canonical.set(key, u);
    const c = canonical.get(key)!;
    let list = standsFor.get(c);
    if (list === undefined) standsFor.set(c, (list = []));
    list.push(u);
  }
  const canon = (u: Unit): Unit => canonical.get(keyOf(u))!;
  const groups = packGroups(
    {
      entries: entries.map((e) => e.roots.map(canon)),
      nodes: [...canonical.values()],
      depsOf: (u) => u.bindings.flatMap((b) => (b.kind === 'unit' ? [canon(b.unit)] : [])),
      bytesOf: (u) => u.code.length,
      keyOf: (u) => u.uri,
    },
    { minBytes: MIN_PACK_BYTES, keys: 'first-node' },
  );
  const packOf = new Map<Unit, Group>();
  for (const g of groups) for (const u of g.nodes) packOf.set(u, g);
  const slugOf = (g: Group): string => {
    const owners = new Set(entries.filter((_, i) => reaches(g, i)).map((e) => e.name));
    return owners.size === 1 ? [...owners][0]! : 'shared';
  };
  const groupOf = (u: Unit): Group => packOf.get(canon(u))!;

  // Names: content hashes, per strongly connected component of the pack graph.
  const names = new Map<Group, string>();
  const depsOf = (g: Group): Group[] => {
    const seen = new Set<Group>();
    for (const u of g.nodes) for (const b of u.bindings) if (b.kind === 'unit' && groupOf(b.unit) !== g) seen.add(groupOf(b.unit));
    return [...seen].sort(byKey);
  };
  for (const scc of stronglyConnected(groups, depsOf, byKey)) {
    const members = new Set(scc);
    const text = scc.map((g) => renderPack(g, keyOf, (d) => (members.has(d) ? `<${d.key}>` : names.get(d)!), groupOf)).join('\n');
    const sccHash = sha256(text);
    for (const g of scc) names.set(g, `${slugOf(g)}-${shortHash(sha256(`${sccHash}\n${g.key}`))}.cjs`);
  }
  const files = groups.map((g) => ({
    path: `${PACKS_DIR}/${names.get(g)!}`,
    contents: renderPack(g, keyOf, (d) => names.get(d)!, groupOf),
    units: g.nodes.flatMap((u) => standsFor.get(u)!),
  }));
  return { pathOf: (u) => `${PACKS_DIR}/${names.get(groupOf(u))!}`, keyOf, files };
}

function renderPack(g: Group, keyOf: (u: Unit) => string, nameOf: (g: Group) => string, groupOf: (u: Unit) => Group): string {
  const ref = (u: Unit): string => {
    const target = groupOf(u);
    return target === g ? `pack[${jsonText(keyOf(u))}]` : `require(${jsonText(`./${nameOf(target)}`)})[${jsonText(keyOf(u))}]`;
  };
  const parts = g.nodes.map((u) => ({ u, ...unitParts(u, ref, `../${SUPPORT_DIR}`) }));
  const shared = sharedLines(parts.map((p) => p.bindings));
  const used = helpersUsed(parts.map((p) => p.code).join('\n'));
  const lines = [
    '"use strict";',
    '// Each definition is initialised on first use (`define`: support/pack.cjs); the error helpers its code calls.',
    'const pack = exports;',
    `const { ${[DEFINER, ...used].join(', ')} } = require(${jsonText(`../${SUPPORT_DIR}/${PACK_SUPPORT_FILE}`)});`,
    `const define = ${DEFINER}(pack);`,
  ];
  if (shared.size > 0) lines.push('// Bindings several definitions declare alike, declared once for the pack.', ...shared);
  for (const { u, head, location, bindings, code } of parts) {
    lines.push(`define(${jsonText(keyOf(u))}, ${jsonText(location)}, (exports) => {`, ...head, ...bindings.filter((b) => !shared.has(b.line)).map((b) => b.line), code, '});');
  }
  lines.push('');
  return lines.join('\n');
}

/**
 * The binding lines to declare once at the pack's scope: a movable line (modules.ts BindingLine) that two or more
 * definitions declare with the same text. A lazy reference declared there is also resolved once for all of them.
 * Each local is declared at most once there (the most frequent text, ties by text); a definition declaring the same
 * local otherwise keeps its own line, which shadows the pack's.
 */
function sharedLines(units: readonly (readonly BindingLine[])[]): Set<string> {
  const count = new Map<string, { local: string; n: number }>();
  for (const bindings of units) {
    for (const b of new Set(bindings.filter((b) => b.movable))) {
      const c = count.get(b.line);
      if (c === undefined) count.set(b.line, { local: b.local, n: 1 });
      else c.n++;
    }
  }
  const best = new Map<string, { line: string; n: number }>();
  for (const [line, { local, n }] of count) {
    if (n < 2) continue;
    const b = best.get(local);
    if (b === undefined || n > b.n || (n === b.n && line < b.line)) best.set(local, { line, n });
  }
  return new Set([...best.values()].map((b) => b.line).sort());
}

function byKey(a: Group, b: Group): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

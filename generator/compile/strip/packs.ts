import { sha256, shortHash } from '../../shared/index.js';
import type { InputRef } from '../../load/index.js';
import { packGroups, reaches } from '../pack-groups.js';

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
  const grouped = packGroups(
    { entries: entries.map((e) => e.roots), nodes: modules.map((m) => m.name), depsOf: (name) => byName.get(name)!.deps, bytesOf: (name) => byName.get(name)!.contents.length, keyOf: (name) => name },
    { minBytes: MIN_PACK_BYTES, acyclic: true, keys: { entryNames: entries.map((e) => e.tool) } },
  );
  const groups = new Map(grouped.map((g) => [g.key, g]));
  const groupOf = new Map<string, string>();
  for (const g of grouped) for (const m of g.nodes) groupOf.set(m, g.key);

  const packs = new Map<string, StripPack>();
  const render = (key: string): StripPack => {
    const known = packs.get(key);
    if (known !== undefined) return known;
    const group = groups.get(key)!;
    const members = group.nodes;
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
    const tools = new Set(entries.filter((_, i) => reaches(group, i)).map((e) => e.tool));
    const slug = tools.size === 1 ? [...tools][0]! : 'shared';
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
 * Exact tool sets leave many packs of a few KB: a first call opened ten of them. Groups smaller than this are merged
 * (../pack-groups.ts), never where the merge would close a cycle of packs, so packs stay acyclic and each is still
 * named by the hash of its own text. Strip code runs only what a value reaches, so the extra bytes cost reading, not
 * running.
 */
const MIN_PACK_BYTES = 16 * 1024;

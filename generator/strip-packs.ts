import { sha256, shortHash } from './hash.js';
import type { InputRef } from './model.js';

/**
 * Packs a release's shared strip modules (issue 12 points 1–2): a tool's strip function loads its whole closure when
 * its module loads, which was one file per schema file it reaches (16 for create_media_buy in 3.0.6). Modules reached
 * by exactly the same tools of the release share a pack, so the first call opens a few files.
 *
 * Entry sets are taken over EVERY available tool of the release, never the selection, so a pack's content depends
 * on the release alone and one pack serves every profile (strip modules keep that property). Exact entry sets also
 * keep the pack graph acyclic (a module's entry set is contained in that of every module it requires; packs that
 * required each other would have equal sets, hence be one pack), so each pack is named by the hash of its own text,
 * dependencies first. Inside a pack each module still runs once, on first require, as its own file did.
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
  const groups = new Map<string, string[]>();
  for (const m of modules) {
    const key = [...reached.get(m.name)!].sort().join(',');
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = []));
    g.push(m.name);
  }
  const groupOf = new Map<string, string>();
  for (const [key, members] of groups) for (const m of members) groupOf.set(m, key);

  const packs = new Map<string, StripPack>();
  const render = (key: string): StripPack => {
    const known = packs.get(key);
    if (known !== undefined) return known;
    const members = groups.get(key)!.sort();
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
    const tools = key.split(',');
    const slug = tools.length === 1 && tools[0] !== '' ? tools[0]! : 'shared';
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

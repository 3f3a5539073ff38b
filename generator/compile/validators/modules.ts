import { sha256, shortHash, stronglyConnected } from '../../shared/index.js';
import { jsonText } from './code.js';
import { COMPACT_HELPERS } from './compact.js';
import { compactCode } from './compact-code.js';
import { unitLocation, type Unit } from './split.js';

/**
 * Names and renders the shared definition modules. A module's file name is `<schema location>-<hash>.cjs`, the
 * hash covering its own text and, through their names, everything it requires — content-addressed, so a change
 * anywhere in a definition's closure renames exactly the modules whose code changed. Definitions that reference
 * each other in a cycle (a strongly connected component) share one hash computed over all their texts.
 */

export const SUPPORT_DIR = 'support';

/** Every unit reachable from the roots, sorted by URI. */
export function closure(roots: readonly Unit[]): Unit[] {
  const seen = new Set<Unit>();
  const stack = [...roots];
  while (stack.length > 0) {
    const u = stack.pop()!;
    if (seen.has(u)) continue;
    seen.add(u);
    for (const b of u.bindings) if (b.kind === 'unit') stack.push(b.unit);
  }
  return [...seen].sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}

/**
 * Names of every unit, content-addressed. The hash covers the unit's location by file path and pointer (not its
 * `$id`, which carries the release version) and its release-independent text, so a definition compiled to the same
 * code, with the same dependencies, in two releases gets the same name and is emitted once.
 */
export function nameModules(units: readonly Unit[]): Map<Unit, string> {
  const names = new Map<Unit, string>();
  const where = (u: Unit): string => `${u.location.file.path}#${u.location.pointer}`;
  for (const scc of stronglyConnectedUnits(units)) {
    const members = new Set(scc);
    const text = scc.map((u) => `${where(u)}\n${renderUnit(u, (dep) => (members.has(dep) ? `<${where(dep)}>` : names.get(dep)!))}`).join('\n');
    const sccHash = sha256(text);
    for (const u of scc) names.set(u, `${slug(u)}-${shortHash(sha256(`${sccHash}\n${where(u)}`))}.cjs`);
  }
  return names;
}

/** The module text of a unit, given the file names of the units it requires. */
export function renderUnit(unit: Unit, nameOf: (dep: Unit) => string): string {
  const head = ['"use strict";', ...COMPACT_HELPERS];
  return [...head, ...renderBindings(unit, (dep) => `require(${jsonText(`./${nameOf(dep)}`)})`, `../${SUPPORT_DIR}`), ''].join('\n');
}

/**
 * A unit's own code: its exports, its bindings and its function. `ref` is the expression for the exports of a unit
 * it calls (a module, or a member of a pack); `supportDir` the relative path of the support modules.
 */
export function renderBindings(unit: Unit, ref: (dep: Unit) => string, supportDir: string): string[] {
  const { head, location, bindings, code } = unitParts(unit, ref, supportDir);
  return [...head, `validate.location = ${jsonText(location)};`, ...bindings.map((b) => b.line), code];
}

/** One binding line of a unit, and whether it may move to the scope of a pack holding the unit (packs.ts). */
export interface BindingLine {
  readonly line: string;
  /** The local it declares. */
  readonly local: string;
  /**
   * Its text depends on nothing of the unit's own scope: a lazy reference to another definition, a support module's
   * member, a schema value, a pattern. Two units declaring the same local with the same text can share one
   * declaration. (A whole-module reference is read when the unit initialises, and a union hint reads the unit's own
   * bindings: neither moves.)
   */
  readonly movable: boolean;
}

/**
 * A unit's code in parts: the head (its export), where it lives (`core/product.json#/definitions/x`, the same in
 * every release that has it: what the error helper notes on the errors passing through it, compact.ts CAT_HELPER),
 * its binding lines, and its function.
 */
export function unitParts(unit: Unit, ref: (dep: Unit) => string, supportDir: string): { head: string[]; location: string; bindings: BindingLine[]; code: string } {
  const head = ['exports.validate = validate;'];
  const location = unitLocation(unit);
  const bindings: BindingLine[] = [];
  for (const b of unit.bindings) {
    if (b.kind === 'unit' && b.whole) bindings.push({ line: `const ${b.local} = ${ref(b.unit)};`, local: b.local, movable: false });
    else if (b.kind === 'unit') {
      // Loaded on first call (a payload that never reaches a definition never loads its code): the call replaces
      // the binding with the real function, so the `.errors` Ajv reads right after the call are that function's.
      // `var`, not `let`: a reassigned `let` read from the validate function costs a TDZ check on every call.
      bindings.push({ line: `var ${b.local} = (data, options) => (${b.local} = ${ref(b.unit)}.validate)(data, options);`, local: b.local, movable: true });
    } else if (b.kind === 'support') bindings.push({ line: `const ${b.local} = require(${jsonText(`${supportDir}/${b.file}`)})${b.member};`, local: b.local, movable: true });
    else bindings.push({ line: `const ${b.local} = ${b.code};`, local: b.local, movable: b.own !== true });
  }
  let code = compacted.get(unit);
  if (code === undefined) compacted.set(unit, (code = compactCode(unit.code)));
  return { head, location, bindings, code };
}

/** A unit's compacted code, computed once: naming and packing render every unit several times. */
const compacted = new WeakMap<Unit, string>();

/** A file-name-safe rendering of a unit's location: `core.product`, `core.targeting.definitions.geo`. */
function slug(unit: Unit): string {
  const base = unit.location.file.path.replace(/\.json$/, '').split('/');
  const ptr = unit.location.pointer === '' ? [] : unit.location.pointer.slice(1).split('/');
  const s = [...base, ...ptr]
    .join('.')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/\.{2,}/g, '.');
  return s.length > 96 ? s.slice(0, 96) : s;
}

function stronglyConnectedUnits(units: readonly Unit[]): Unit[][] {
  const byUri = (a: Unit, b: Unit): number => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0);
  return stronglyConnected(units, (u) => u.bindings.flatMap((b) => (b.kind === 'unit' ? [b.unit] : [])).sort(byUri), byUri);
}

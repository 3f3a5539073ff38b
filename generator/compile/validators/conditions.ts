import { fragmentFromPointer, getAtPointer, isPlainObject, subschemas } from '../../shared/index.js';
import type { SchemaFile } from '../../load/index.js';

/**
 * The data path from a condition's object to the node an error inside its `then` was made at (`/params` for
 * `…/then/properties/params/required`), when the branch reaches it through `properties` only; else undefined.
 */
export function branchDataPath(site: ConditionSite, schemaPath: string): string | undefined {
  if (!schemaPath.startsWith(`${site.then}/`)) return undefined;
  const segments = schemaPath.slice(site.then.length + 1).split('/');
  segments.pop(); // the keyword that failed
  let data = '';
  for (let i = 0; i < segments.length; i += 2) {
    if (segments[i] !== 'properties' || segments[i + 1] === undefined) return undefined;
    data += `/${segments[i + 1]}`;
  }
  return data;
}

/**
 * Conditions that switch on a property their object requires (comply_test_controller's `allOf` of `if: { properties:
 * { scenario: { const: … } } }, then: …`). Without the property every such `if` passes (`properties` checks only what
 * is there), so every `then` applies at once, they conflict, and Ajv fails there before it reaches the object's own
 * `required` — the defect the caller made. The hint rides in the `if` error's params: `switch`, the properties the
 * condition tests that the object requires, and `switchAt`, the suffix of the error's schema path that leads from the
 * object to the `if` (`/allOf/1/if`), so the runtime names the missing property with the object's `required`
 * (runtime/issues/issue-tree.ts) wherever the errors were rebased to. For messages only: verdicts are untouched.
 */
export interface ConditionHint {
  readonly switch: readonly string[];
  readonly switchAt: string;
  /**
   * A condition switching on one property: the values the object's conditions test it for (`const` or `enum`), so
   * the runtime can say what each would require (runtime/issues/condition-switch.ts); empty otherwise.
   */
  readonly values: readonly unknown[];
}

/** A condition's site: the schema path of its `then` (errors made there are its branch's), and its hint. */
export interface ConditionSite extends ConditionHint {
  readonly then: string;
  /** The schema path of the condition's object (`#`, `#/properties/params`). */
  readonly object: string;
}

/**
 * The condition whose one switch property an error was made at, by that property's own schema (`#/properties/
 * scenario/type`), when the conditions test listed values: a caller's value it refuses takes none of the branches,
 * so the runtime asks what each value would require, as for a missing switch (runtime/issues/condition-switch.ts).
 */
export function switchPropertySite(sites: readonly ConditionSite[], schemaPath: string): ConditionSite | undefined {
  return sites.find((c) => {
    if (c.switch.length !== 1 || c.values.length === 0) return false;
    const own = `${c.object}/properties/${c.switch[0]!}/`;
    return schemaPath.startsWith(own) && !schemaPath.slice(own.length).includes('/');
  });
}

/** A unit's conditions keyed by the `schemaPath` Ajv writes in their `if` errors (`#/allOf/1/if`). */
export function conditionHints(sites: readonly ConditionSite[]): Map<string, ConditionHint> {
  return new Map(sites.map((c) => [`${c.then.slice(0, -'/then'.length)}/if`, { switch: c.switch, switchAt: c.switchAt, values: c.values }]));
}

/**
 * Every such condition of a unit. Its `then` usually fails before the `if` error is written (Ajv returns at the
 * first failure outside a union), so the errors made inside the branch carry the hint too (split.ts), with the
 * instance path from the object to where they were made (`switchData`, when the branch reaches it through
 * `properties` only).
 */
export function conditionSites(location: { readonly file: SchemaFile; readonly pointer: string }): ConditionSite[] {
  const out: ConditionSite[] = [];
  const root = getAtPointer(location.file.schema, location.pointer);
  const visit = (node: unknown, errPath: string, isRoot: boolean): void => {
    if (!isPlainObject(node)) return;
    if (!isRoot && typeof node.$ref === 'string') return; // compiled as another unit
    const required = new Set(Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : []);
    // The object's own condition, and those of its `allOf` parts.
    const sites: [unknown, string][] = [[node, '/if']];
    if (Array.isArray(node.allOf)) node.allOf.forEach((part, i) => sites.push([part, `/allOf/${i}/if`]));
    const mine: { site: Omit<ConditionSite, 'values'>; tests: unknown[] }[] = [];
    for (const [holder, suffix] of sites) {
      if (!isPlainObject(holder) || !isPlainObject(holder.if) || holder.then === undefined) continue;
      const cond = holder.if;
      const own = new Set(Array.isArray(cond.required) ? cond.required : []);
      const tested = isPlainObject(cond.properties) ? Object.keys(cond.properties) : [];
      const switches = tested.filter((p) => !own.has(p) && required.has(p)).sort();
      if (switches.length === 0) continue;
      const test = switches.length === 1 && isPlainObject(cond.properties) ? cond.properties[switches[0]!] : undefined;
      const tests = isPlainObject(test) ? ('const' in test ? [test.const] : Array.isArray(test.enum) ? test.enum : []) : [];
      mine.push({ site: { switch: switches, switchAt: suffix, then: `${errPath}${suffix.slice(0, -'/if'.length)}/then`, object: errPath }, tests });
    }
    // Every value the object's conditions on the same single property test, in the schema's order.
    for (const { site } of mine) {
      const values: unknown[] = [];
      const seen = new Set<string>();
      if (site.switch.length === 1) {
        for (const other of mine) {
          if (other.site.switch.length !== 1 || other.site.switch[0] !== site.switch[0]) continue;
          for (const v of other.tests) if (!seen.has(JSON.stringify(v))) (seen.add(JSON.stringify(v)), values.push(v));
        }
      }
      out.push({ ...site, values });
    }
    for (const sub of subschemas(node)) visit(sub.schema, `${errPath}${fragmentFromPointer(sub.pointer)}`, false);
  };
  visit(root, '#', true);
  return out;
}

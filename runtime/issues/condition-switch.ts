/**
 * Conditions that switch on a property their object requires (generator/compile/validators/conditions.ts:
 * comply_test_controller's `scenario`). Without the property every `if` passes and every `then` applies, so the first
 * failure is a branch's, not the caller's defect: the runtime names the object's own `required` instead, and, where
 * the generator listed the values the conditions test, what each value would require of the caller's data
 * (issue-collect.ts). Copied into the generated output with the rest of the runtime.
 */
import type { AjvErrorObject } from '../artifacts/contract.js';
import { sameJson, valueAt } from './finding.js';
import { isObject } from '../wire/json-copy.js';
import { escapeToken } from '../wire/pointer.js';

/** The switch of a condition: its properties, its object's instance path and the schema path of its `required`. */
interface SwitchSite {
  readonly names: readonly string[];
  readonly at: string;
  readonly schemaPath: string;
  /** The values the object's conditions test its one switch property for (none listed: empty). */
  readonly values: readonly unknown[];
  /** The switch's identity within a run: what a value's branch findings are marked `within`. */
  readonly id: string;
}

/** A switch whose properties are all missing from the object: every condition applied vacuously. */
export type VacuousSwitch = SwitchSite;

/**
 * The switch of an error of such a condition — the `if`'s own, or one made inside its `then` (its params carry
 * `switch`, `switchAt` and `switchData`, the data path from the object, and `switchValues`) — else undefined.
 */
function switchSite(error: AjvErrorObject, data: unknown): (SwitchSite & { readonly target: unknown }) | undefined {
  const { switch: names, switchAt, switchData = '', switchValues = [] } = error.params;
  if (!Array.isArray(names) || typeof switchAt !== 'string' || typeof switchData !== 'string' || !error.instancePath.endsWith(switchData)) return undefined;
  if (names.some((n) => typeof n !== 'string')) return undefined;
  const cut = error.schemaPath.lastIndexOf(switchAt);
  if (cut < 0) return undefined;
  const at = error.instancePath.slice(0, error.instancePath.length - switchData.length);
  const schemaPath = `${error.schemaPath.slice(0, cut)}/required`;
  const values = Array.isArray(switchValues) && names.length === 1 ? switchValues : [];
  return { names: names as string[], at, schemaPath, values, id: switchId(error, schemaPath, at), target: valueAt(data, at) };
}

/**
 * The switch of an error its one property's own schema made (`switchOwn`: `scenario` not a string), at that property:
 * the object is its parent, the object's `required` beside the property's schema.
 */
function ownSite(error: AjvErrorObject, data: unknown): (SwitchSite & { readonly target: unknown }) | undefined {
  const { switch: names, switchValues } = error.params;
  if (!Array.isArray(names) || names.length !== 1 || typeof names[0] !== 'string' || !Array.isArray(switchValues)) return undefined;
  const name = names[0];
  const step = `/${escapeToken(name)}`;
  const cut = error.schemaPath.lastIndexOf(`/properties/${name}/`);
  if (cut < 0 || !error.instancePath.endsWith(step)) return undefined;
  const at = error.instancePath.slice(0, -step.length);
  const schemaPath = `${error.schemaPath.slice(0, cut)}/required`;
  return { names: [name], at, schemaPath, values: switchValues, id: switchId(error, schemaPath, at), target: valueAt(data, at) };
}

/** A switch's identity within a run: the definitions its error passed through, its `required`, its object. */
function switchId(error: AjvErrorObject, schemaPath: string, at: string): string {
  return `switch|${Array.isArray(error.via) ? error.via.join('>') : ''}|${schemaPath}|${at}`;
}

/**
 * For an error of such a condition, read once: what is missing when its switch properties are all missing from the
 * object (`vacuous`), else the switch's identity when the generator listed its values (`within`: the finding is
 * made in the branch of the value the caller gave).
 */
export function switchOf(error: AjvErrorObject, data: unknown): { readonly vacuous?: VacuousSwitch; readonly refused?: VacuousSwitch; readonly within?: string } {
  const own = error.params.switchOwn === true;
  const site = own ? ownSite(error, data) : switchSite(error, data);
  if (site === undefined) return {};
  const { target, ...rest } = site;
  if (own) {
    // A value the property refuses, none of the tested ones: no branch applied (one that is a tested value did).
    const name = site.names[0]!;
    if (!isObject(target) || !Object.prototype.hasOwnProperty.call(target, name)) return {};
    const given = target[name];
    return site.values.some((v) => sameJson(v, given)) ? {} : { refused: rest };
  }
  if (isObject(target) && !site.names.some((n) => Object.prototype.hasOwnProperty.call(target, n))) return { vacuous: rest };
  return site.values.length === 0 ? {} : { within: site.id };
}

/** The object's `required` errors for the missing switch properties, in place of the branch's error. */
export function switchErrors(error: AjvErrorObject, missing: VacuousSwitch): AjvErrorObject[] {
  return missing.names.map((p) => ({ ...error, keyword: 'required', instancePath: missing.at, schemaPath: missing.schemaPath, params: { missingProperty: p } }));
}

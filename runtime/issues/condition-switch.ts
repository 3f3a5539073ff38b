/**
 * Conditions that switch on a property their object requires (generator/compile/validators/conditions.ts:
 * comply_test_controller's `scenario`). Without the property every `if` passes and every `then` applies, so the first
 * failure is a branch's, not the caller's defect: the runtime names the object's own `required` instead, and, where
 * the generator listed the values the conditions test, what each value would require of the caller's data
 * (issue-collect.ts). Copied into the generated output with the rest of the runtime.
 */
import type { AjvErrorObject } from '../artifacts/contract.js';
import { valueAt } from './finding.js';
import { isObject } from '../wire/json-copy.js';

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
  return { names: names as string[], at, schemaPath, values, id: `switch|${Array.isArray(error.via) ? error.via.join('>') : ''}|${schemaPath}|${at}`, target: valueAt(data, at) };
}

/** For an error of such a condition whose switch properties are all missing from the object: what is missing. */
export function vacuousSwitch(error: AjvErrorObject, data: unknown): VacuousSwitch | undefined {
  const site = switchSite(error, data);
  if (site === undefined || !isObject(site.target) || site.names.some((n) => Object.prototype.hasOwnProperty.call(site.target, n))) return undefined;
  const { target: _, ...missing } = site;
  return missing;
}

/** For an error made in the `then` of a condition whose switch the caller gave: the switch's identity. */
export function switchWithin(error: AjvErrorObject, data: unknown): string | undefined {
  const site = switchSite(error, data);
  return site === undefined || site.values.length === 0 ? undefined : site.id;
}

/** The object's `required` errors for the missing switch properties, in place of the branch's error. */
export function switchErrors(error: AjvErrorObject, missing: VacuousSwitch): AjvErrorObject[] {
  return missing.names.map((p) => ({ ...error, keyword: 'required', instancePath: missing.at, schemaPath: missing.schemaPath, params: { missingProperty: p } }));
}

/**
 * Conditions that applied only because the property they switch on is missing (generator/compile/validators/
 * conditions.ts: one their object requires, comply_test_controller's `scenario`): without it every `if` passes and
 * every `then` applies, so the first failure is a branch's, not the caller's defect. Copied into the generated
 * output with the rest of the runtime.
 */
import type { AjvErrorObject } from '../artifacts/contract.js';
import { valueAt } from './finding.js';
import { isObject } from '../wire/json-copy.js';

/** The properties missing, the object's instance path, and the schema path of its `required`. */
export interface VacuousSwitch {
  readonly names: readonly string[];
  readonly at: string;
  readonly schemaPath: string;
}

/**
 * For an error of such a condition — the `if`'s own, or one made inside its `then` (its params carry `switch`,
 * `switchAt` and `switchData`, the data path from the object) — whose switch properties are all missing from the
 * object: what is missing; else undefined.
 */
export function vacuousSwitch(error: AjvErrorObject, data: unknown): VacuousSwitch | undefined {
  const { switch: names, switchAt, switchData = '' } = error.params;
  if (!Array.isArray(names) || typeof switchAt !== 'string' || typeof switchData !== 'string' || !error.instancePath.endsWith(switchData)) return undefined;
  const cut = error.schemaPath.lastIndexOf(switchAt);
  if (cut < 0) return undefined;
  const at = error.instancePath.slice(0, error.instancePath.length - switchData.length);
  const target = valueAt(data, at);
  if (!isObject(target) || names.some((n) => typeof n !== 'string' || Object.prototype.hasOwnProperty.call(target, n))) return undefined;
  return { names: names as string[], at, schemaPath: `${error.schemaPath.slice(0, cut)}/required` };
}

/** The object's `required` errors for the missing switch properties, in place of the branch's error. */
export function switchErrors(error: AjvErrorObject, missing: VacuousSwitch): AjvErrorObject[] {
  return missing.names.map((p) => ({ ...error, keyword: 'required', instancePath: missing.at, schemaPath: missing.schemaPath, params: { missingProperty: p } }));
}

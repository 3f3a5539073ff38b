/**
 * The discriminator hint the generator puts in a union error's params (generator/compile/validators/unions.ts), read
 * back defensively: the property every arm pins, the values each arm takes, the properties each declares, and the
 * thunks of `$ref` arms. Copied into the generated output with the rest of the runtime.
 */
import { isObject } from '../wire/json-copy.js';

export interface DiscriminatorHint {
  property: string;
  allowedValues: unknown[];
  branches: unknown[][];
  /** The properties each branch declares (null: unknown). */
  names?: (string[] | null)[];
  /** Per branch that is a `$ref`: a thunk returning the branch's compiled function (generator/compile/validators/split.ts). */
  validators: unknown[];
}

export function discriminatorHint(raw: unknown): DiscriminatorHint | undefined {
  if (!isObject(raw) || typeof raw.property !== 'string' || !Array.isArray(raw.allowedValues)) return undefined;
  const branches = Array.isArray(raw.branches) ? raw.branches.map((b) => (Array.isArray(b) ? b : [])) : [];
  const names = namesOf(raw.names, branches.length);
  return { property: raw.property, allowedValues: raw.allowedValues, branches, validators: Array.isArray(raw.validators) ? raw.validators : [], ...(names !== undefined ? { names } : {}) };
}

/** The generator's list of the properties each arm declares (null: unknown), when it is one for `n` arms. */
export function namesOf(raw: unknown, n: number): (string[] | null)[] | undefined {
  if (!Array.isArray(raw) || raw.length !== n) return undefined;
  return raw.map((names) => (Array.isArray(names) ? names.filter((x): x is string => typeof x === 'string') : null));
}

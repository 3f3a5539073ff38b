import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { join } from 'node:path';
import { CodegenError, escapeToken, packageRoot } from '../shared/index.js';
import { readJson } from './read-json.js';

/**
 * Validates the generator's own input formats (config, profile, overlay, normalization rules) against their JSON
 * Schemas in schemas/, reporting the first problem as a CodegenError at the failing pointer.
 */
// `discriminator`: a tagged union (a normalization rule's transform) reports the arm its tag names, not every arm.
// `strictRequired` off: `not: { required: [...] }` ("must not name") is a legitimate use of a name declared elsewhere.
// Code optimiser off: these validators live for one run, and optimising costs more than it saves.
const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false, discriminator: true, code: { optimize: false } });
const compiled = new Map<string, ValidateFunction>();

/**
 * `explain` lets a format give a more precise message for errors it knows (return undefined for the generic one).
 */
export function checkFormat(formatSchema: string, value: unknown, file: string, explain?: (errors: readonly ErrorObject[]) => CodegenError | undefined): void {
  let validate = compiled.get(formatSchema);
  if (validate === undefined) {
    validate = ajv.compile(readJson(join(packageRoot, 'schemas', formatSchema)) as object);
    compiled.set(formatSchema, validate);
  }
  if (validate(value)) return;
  const errors = validate.errors ?? [];
  throw explain?.(errors) ?? new CodegenError(file, errors[0] === undefined ? '' : pointerOf(errors[0]), errors[0] === undefined ? 'does not match its format' : describe(errors[0]));
}

export function pointerOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof p.missingProperty === 'string') {
    return `${error.instancePath}/${escapeToken(p.missingProperty)}`;
  }
  if (error.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') {
    return `${error.instancePath}/${escapeToken(p.additionalProperty)}`;
  }
  return error.instancePath;
}

export function describe(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known property here';
    case 'enum':
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return error.message ?? `fails ${error.keyword}`;
  }
}

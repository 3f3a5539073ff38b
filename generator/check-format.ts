import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { join } from 'node:path';
import { CodegenError } from './errors.js';
import { packageRoot } from './package-root.js';
import { readJson } from './read-json.js';

/**
 * Validates the generator's own input formats (config, profile, overlay, normalization rules) against their JSON
 * Schemas in schemas/, reporting the first problem as a CodegenError at the failing pointer.
 */
const ajv = new Ajv({ allErrors: false, strict: true });
const compiled = new Map<string, ValidateFunction>();

export function checkFormat(formatSchema: string, value: unknown, file: string): void {
  let validate = compiled.get(formatSchema);
  if (validate === undefined) {
    validate = ajv.compile(readJson(join(packageRoot, 'schemas', formatSchema)) as object);
    compiled.set(formatSchema, validate);
  }
  if (!validate(value)) throw new CodegenError(file, pointerOf(validate.errors![0]!), describe(validate.errors![0]!));
}

export function pointerOf(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof p.missingProperty === 'string') {
    return `${error.instancePath}/${p.missingProperty.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  }
  if (error.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') {
    return `${error.instancePath}/${p.additionalProperty.replace(/~/g, '~0').replace(/\//g, '~1')}`;
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

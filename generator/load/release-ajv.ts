import type { ValidateFunction } from 'ajv';
import type { Release } from './model.js';
import { createRuntimeAjv, type AjvInstance } from './ajv.js';

/**
 * One run-time Ajv per release, configured exactly as the compiled validators are (ajv.ts), for checks
 * the generator makes while it runs (profile capabilities against the release's capabilities schema) and for the
 * tests and benches that need a reference verdict. It never reaches the generated output.
 */
const cache = new WeakMap<Release, AjvInstance>();

export function releaseAjv(release: Release): AjvInstance {
  let ajv = cache.get(release);
  if (ajv === undefined) cache.set(release, (ajv = createRuntimeAjv(release)));
  return ajv;
}

/** The run-time validator of one schema file of the release, compiled on first use. */
export function compileReleaseSchema(release: Release, path: string): ValidateFunction {
  const file = release.schemas.byPath.get(path);
  if (file === undefined) throw new Error(`${release.label}: no schema at ${path}`);
  return releaseAjv(release).getSchema(file.id)!;
}

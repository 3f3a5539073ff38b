import { Ajv, type ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import type { Release } from './model.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext the plugin sits on the namespace's `.default`.
const addFormats = ajvFormats.default as unknown as ajvFormats.FormatsPlugin;

/**
 * A build-time Ajv holding every modular schema of one release, for checks the generator makes while it runs
 * (profile capabilities against the release's capabilities schema). Call-time validators are compiled ahead of
 * time elsewhere; this one never reaches the generated output.
 */
const cache = new WeakMap<Release, Ajv>();

export function releaseAjv(release: Release): Ajv {
  let ajv = cache.get(release);
  if (ajv === undefined) {
    ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
    addFormats(ajv);
    for (const file of release.schemas.byId.values()) ajv.addSchema(file.schema, file.id);
    cache.set(release, ajv);
  }
  return ajv;
}

export function compileReleaseSchema(release: Release, path: string): ValidateFunction {
  const file = release.schemas.byPath.get(path);
  if (file === undefined) throw new Error(`${release.label}: no schema at ${path}`);
  const ajv = releaseAjv(release);
  return ajv.getSchema(file.id) ?? ajv.compile(file.schema);
}

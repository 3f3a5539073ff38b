import type { ErrorObject } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { createRequire } from 'node:module';
import { cacheDir, readCache, writeCache, generatorCodeHash, sha256 } from '../shared/index.js';
import type { Release } from './model.js';
import { createStandaloneAjv } from './ajv.js';

// ajv/dist/standalone is CommonJS with `exports.default`; under NodeNext its default import is the module object.
type StandaloneCode = (typeof standaloneModule)['default'];
const standaloneCode: StandaloneCode = (standaloneModule as unknown as { default?: StandaloneCode }).default ?? (standaloneModule as unknown as StandaloneCode);
const require = createRequire(import.meta.url);

export type CapabilitiesValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * The validator a profile's capabilities are checked with: the release's get_adcp_capabilities response schema,
 * compiled by Ajv with the canonical validators' exact options (load/ajv.ts). Compiling it takes a second
 * or more per release, and a capability edit changes the profile, not the schema, so the compiled code is kept in
 * the build cache keyed by the generator, the release and the schema: the next run with another profile only
 * loads it. Ajv's own standalone output, loaded with the generator's own `require` (ajv's run-time helpers).
 */
export function capabilitiesValidator(release: Release, path: string): CapabilitiesValidator {
  const dir = cacheDir('capabilities');
  const key = sha256(JSON.stringify({ code: generatorCodeHash(), release: release.hash, path }));
  const cached = dir === undefined ? undefined : readCache(dir, key);
  if (cached !== undefined) return instantiate(cached);
  const file = release.schemas.byPath.get(path);
  if (file === undefined) throw new Error(`${release.label}: no schema at ${path}`);
  // Only the documents the schema reaches: Ajv checks every document it is given against the meta-schema, and a
  // release holds several times more than this one schema needs (a cold run's load stage was ~1 s of this).
  // Ajv's code optimiser off: this code is never shipped (only cached), and the optimiser is ~40% of its compile.
  const ajv = createStandaloneAjv(release, release.graph.reach([file]), { code: { optimize: false } });
  const validate = ajv.getSchema(file.id);
  if (validate === undefined) throw new Error(`${release.label}: Ajv has no schema ${file.id}`);
  if (dir !== undefined) writeCache(dir, key, standaloneCode(ajv, validate));
  return validate as CapabilitiesValidator;
}

function instantiate(source: string): CapabilitiesValidator {
  const module: { exports: unknown } = { exports: {} };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- Ajv standalone code from our own build cache
  new Function('require', 'module', 'exports', source)(require, module, module.exports);
  return module.exports as CapabilitiesValidator;
}

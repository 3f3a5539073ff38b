import type { ErrorObject } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { createRequire } from 'node:module';
import { buildCache, generatorCodeHash, sha256, type BuildCache } from '../shared/index.js';
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
 * loads it. It is code, so it runs only from an entry this user's cache authenticates (shared/build-cache.ts; a
 * planted one is never read), and with Ajv's run-time helpers as the only modules it can require.
 */
export function capabilitiesValidator(release: Release, path: string, cache: BuildCache = buildCache()): CapabilitiesValidator {
  const key = sha256(JSON.stringify({ code: generatorCodeHash(), release: release.hash, path }));
  const cached = cache.get('capabilities', key);
  if (cached !== undefined) return instantiate(cached);
  const file = release.schemas.byPath.get(path);
  if (file === undefined) throw new Error(`${release.label}: no schema at ${path}`);
  // Only the documents the schema reaches: Ajv checks every document it is given against the meta-schema, and a
  // release holds several times more than this one schema needs (a cold run's load stage was ~1 s of this).
  // Ajv's code optimiser off: this code is never shipped (only cached), and the optimiser is ~40% of its compile.
  const ajv = createStandaloneAjv(release, release.graph.reach([file]), { code: { optimize: false } });
  const validate = ajv.getSchema(file.id);
  if (validate === undefined) throw new Error(`${release.label}: Ajv has no schema ${file.id}`);
  cache.set('capabilities', key, standaloneCode(ajv, validate));
  return validate as CapabilitiesValidator;
}

/** What Ajv's standalone code requires: its run-time helpers and ajv-formats' formats, nothing else. */
const AJV_RUNTIME = /^(ajv\/dist\/runtime\/[a-z0-9_]+|ajv-formats\/dist\/formats)$/;

function instantiate(source: string): CapabilitiesValidator {
  const module: { exports: unknown } = { exports: {} };
  const requireHelper = (id: string): unknown => {
    if (!AJV_RUNTIME.test(id)) throw new Error(`adcp-codegen: the cached capabilities validator requires ${JSON.stringify(id)}, which Ajv's code never does`);
    return require(id) as unknown;
  };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- Ajv standalone code from this user's authenticated build cache
  new Function('require', 'module', 'exports', source)(requireHelper, module, module.exports);
  return module.exports as CapabilitiesValidator;
}

// @ts-check
/**
 * The generated set the examples serve: `ADCP_GENERATED=<dir>` (relative to the working directory), default this
 * repository's committed `generated/` (AdCP 3.0.6, the example profiles). The same seller serves a set generated
 * elsewhere, for instance with AdCP 3.2.0-beta.5 beside 3.0.6:
 *
 *   npx adcp-codegen generate --config examples/sandbox.config.json --out /tmp/reference-seller
 *   ADCP_GENERATED=/tmp/reference-seller ADCP_PROFILE=guaranteed-publisher-sandbox npm run example
 */
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const generatedDir = process.env.ADCP_GENERATED !== undefined && process.env.ADCP_GENERATED !== '' ? resolve(process.env.ADCP_GENERATED) : fileURLToPath(new URL('../generated', import.meta.url));

/** The set's entry (typed as the committed set, whose runtime surface every set shares). */
export async function loadGenerated(/** @type {string} */ dir = generatedDir) {
  return /** @type {typeof import('../generated/index.js')} */ (await import(pathToFileURL(join(dir, 'index.js')).href));
}

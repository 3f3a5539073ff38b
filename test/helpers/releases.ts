import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wireVersionOf } from '../../runtime/wire/versions.js';
// Every test imports this module: through it, every test run gets its own scratch temp dir and private cache.
import './temp.js';

/** Repository root, from dist/test/helpers or test/helpers alike. */
export const repoRoot = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
})();

/** The AdCP 3.0.6 release inside the installed @adcp/sdk (a devDependency, so always present after npm ci). */
export function sdkReleaseDir(): string {
  const require = createRequire(join(repoRoot, 'package.json'));
  const pkg = require.resolve('@adcp/sdk/package.json');
  return join(dirname(pkg), 'dist/lib/schemas-data/3.0');
}

/** ../shared/adcp/3.2.0-beta.5 beside the clone, or undefined when this machine has no shared/ (npm test). */
export function sharedReleaseDir(): string | undefined {
  const dir = resolve(repoRoot, '../shared/adcp/3.2.0-beta.5');
  return existsSync(join(dir, 'manifest.json')) ? dir : undefined;
}

export function sharedComplianceDir(): string | undefined {
  const dir = resolve(repoRoot, '../shared/adcp/compliance/3.2.0-beta.5');
  return existsSync(dir) ? dir : undefined;
}

/**
 * The AdCP wire version of the shared 3.2 release (`3.2-beta.5`), read from its manifest: the key the generated set,
 * `adcp_version` and `supported_versions` name it by. Tests derive it instead of spelling it, so a newer beta in
 * ../shared needs no edit.
 */
export function sharedReleaseKey(): string {
  const dir = sharedReleaseDir();
  if (dir === undefined) throw new Error('../shared/adcp/3.2.0-beta.5 is required');
  const version = (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { adcp_version: string }).adcp_version;
  const key = wireVersionOf(version);
  if (key === undefined) throw new Error(`../shared release version ${version} is not semver`);
  return key;
}

/** ../shared/adcp-grader beside the clone (AdCP's own 3.2 grader and its installer), or undefined without shared/. */
export function sharedGraderDir(): string | undefined {
  const dir = resolve(repoRoot, '../shared/adcp-grader');
  return existsSync(join(dir, 'install.sh')) ? dir : undefined;
}

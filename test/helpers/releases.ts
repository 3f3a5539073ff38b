import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** ../shared/adcp-grader beside the clone (AdCP's own 3.2 grader and its installer), or undefined without shared/. */
export function sharedGraderDir(): string | undefined {
  const dir = resolve(repoRoot, '../shared/adcp-grader');
  return existsSync(join(dir, 'install.sh')) ? dir : undefined;
}

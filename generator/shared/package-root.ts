import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** adcp-codegen's own root (where schemas/ and templates/ live), from src or dist alike. */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'templates'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('adcp-codegen: cannot find the package root (templates/ missing)');
    dir = up;
  }
  return dir;
})();

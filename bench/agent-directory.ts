import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeTree } from '../test/helpers/fixture-release.js';
import { repoRoot } from '../test/helpers/releases.js';

/**
 * An agent directory as the benches generate into, written under `dir`: each profile as profiles/<name>.json and a
 * config over `releases` with the shipped normalization rules and overlays, writing `generated/`; `extra` files
 * (path → JSON value) beside them, and the repository's node_modules linked in.
 */
export function writeAgentDirectory(dir: string, releases: readonly string[], profiles: readonly Record<string, unknown>[], extra: Record<string, unknown> = {}): string {
  // The packages the set's runtime finds beside it (the MCP SDK, better-sqlite3 for the local store …), as an agent
  // repository has them installed.
  const modules = join(dir, 'node_modules');
  if (!existsSync(modules)) {
    mkdirSync(dir, { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules'), modules, 'dir');
  }
  return writeTree(
    {
      ...extra,
      ...Object.fromEntries(profiles.map((p) => [`profiles/${String(p.name)}.json`, p])),
      'adcp-codegen.config.json': {
        releases,
        profiles: ['profiles/*.json'],
        normalizations: [join(repoRoot, 'schemas/normalizations/*.json')],
        overlays: [join(repoRoot, 'schemas/overlays/*.json')],
        out: 'generated',
      },
    },
    dir,
  );
}

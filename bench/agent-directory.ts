import { join } from 'node:path';
import { writeTree } from '../test/helpers/fixture-release.js';
import { repoRoot } from '../test/helpers/releases.js';

/**
 * An agent directory as the benches generate into, written under `dir`: each profile as profiles/<name>.json and a
 * config over `releases` with the shipped normalization rules and overlays, writing `generated/`; `extra` files
 * (path → JSON value) beside them.
 */
export function writeAgentDirectory(dir: string, releases: readonly string[], profiles: readonly Record<string, unknown>[], extra: Record<string, unknown> = {}): string {
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

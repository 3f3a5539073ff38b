import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readProfile, type Profile } from '../../generator/load/index.js';
import { repoRoot } from './releases.js';

export const profilesDir = join(repoRoot, 'schemas/profiles');

export function exampleProfiles(): Profile[] {
  return readdirSync(profilesDir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => readProfile(join(profilesDir, f), `schemas/profiles/${f}`));
}

export function profileFrom(raw: Record<string, unknown>, file = 'profile.json'): Profile {
  return {
    name: String(raw.name ?? 'p'),
    file,
    tools: (raw.tools as string[]) ?? [],
    sharedTools: (raw.shared_tools as string[]) ?? [],
    surface: (raw.surface as 'production' | 'sandbox') ?? 'production',
    capabilities: (raw.capabilities as Profile['capabilities']) ?? {},
    releases: raw.releases as string[] | undefined,
    advertise: {
      annotations: ((raw.advertise as { annotations?: 'structural' | 'full' } | undefined)?.annotations) ?? (raw.surface === 'sandbox' ? 'full' : 'structural'),
      outputSchema: (raw.advertise as { outputSchema?: boolean } | undefined)?.outputSchema ?? false,
    },
    hash: 'test',
  };
}

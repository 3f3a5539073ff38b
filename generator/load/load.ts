import { CodegenError, type BuildCache } from '../shared/index.js';
import { loadConfig, type ConfigOverrides, type ResolvedConfig } from './config.js';
import type { CapabilitiesValidator } from './capabilities-validator.js';
import { checkCapabilities, defaultRelease, readProfile, servedReleases } from './profile.js';
import { digestRelease, displayPath, highestFirst, loadRelease, type ReleaseDigest } from './release.js';
import type { Profile, Release } from './model.js';

/**
 * Stage 1a: the config, every profile read and checked against its format, and each release's digest — enough to
 * hash every input without parsing a release, so an unchanged regeneration stops here.
 */
export interface InputFiles {
  readonly config: ResolvedConfig;
  /** Per `config.releaseDirs` entry, in the same order. */
  readonly digests: readonly ReleaseDigest[];
  /** Sorted by name. */
  readonly profiles: readonly Profile[];
}

/** Stage 1 output: the config, every release model, and every profile checked against the releases it serves. */
export interface Inputs {
  readonly config: ResolvedConfig;
  /** Highest release first. */
  readonly releases: readonly Release[];
  readonly profiles: readonly Profile[];
  /** Per profile name, the releases it serves, highest first. */
  readonly served: ReadonlyMap<string, readonly Release[]>;
}

export function readInputs(overrides: ConfigOverrides): InputFiles {
  const config = loadConfig(overrides);
  const digests = config.releaseDirs.map(({ dir, display }) => digestRelease(dir, display));
  const cwd = overrides.cwd ?? process.cwd();
  const profiles = config.profiles.map((path) => readProfile(path, displayPath(path, cwd)));
  const byName = new Map<string, Profile>();
  for (const p of profiles) {
    const first = byName.get(p.name);
    if (first !== undefined) throw new CodegenError(p.file, '/name', `profile name ${JSON.stringify(p.name)} is also used by ${first.file}`);
    byName.set(p.name, p);
  }
  profiles.sort((a, b) => (a.name < b.name ? -1 : 1));
  return { config, digests, profiles };
}

/**
 * Stage 1b: parse the releases and check each profile against the releases it serves (with capabilities validators
 * from `cache` when it holds them).
 */
export function load(input: ConfigOverrides | InputFiles, cache?: BuildCache): Inputs {
  const { config, digests, profiles } = 'digests' in input ? input : readInputs(input);
  const releases = config.releaseDirs.map(({ dir, display }, i) => loadRelease(dir, display, digests[i]));
  releases.forEach((r, i) => {
    const other = releases.findIndex((x) => x.key === r.key);
    if (other !== i) {
      throw new CodegenError(config.file ?? '<command line>', `/releases/${i}`, `two configured releases are AdCP ${r.key} on the wire (${releases[other]!.version} and ${r.version}); serve one`);
    }
  });
  releases.sort(highestFirst);

  const served = new Map<string, readonly Release[]>();
  const validators = new Map<Release, CapabilitiesValidator>();
  for (const p of profiles) {
    const rs = servedReleases(p, releases);
    defaultRelease(p, rs); // a default_release the profile does not serve fails here, before anything compiles
    // Stated in the newest served release's vocabulary; older releases are fitted to what they can express.
    rs.forEach((r, i) => checkCapabilities(p, r, validators, cache, i > 0));
    served.set(p.name, rs);
  }
  return { config, releases, profiles, served };
}

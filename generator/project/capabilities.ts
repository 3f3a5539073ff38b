import { CodegenError, isPlainObject } from '../shared/index.js';
import type { JsonObject, Profile } from '../load/index.js';

/**
 * The get_adcp_capabilities body a profile serves: its own, with `adcp.supported_versions` (AdCP 3.2: the
 * release-precision versions the agent speaks, authoritative for a buyer's `adcp_version` pin) set to the releases
 * the generated set really serves, ascending as the spec's examples list them. Earlier releases' `adcp` block is
 * open, so the same body is valid for each. A profile that states other versions than it serves is an error.
 */
export function servedCapabilities(profile: Profile, releaseKeys: readonly string[]): JsonObject {
  const versions = [...releaseKeys].sort((a, b) => {
    const [am, an] = a.split('.').map(Number) as [number, number];
    const [bm, bn] = b.split('.').map(Number) as [number, number];
    return am - bm || an - bn;
  });
  const adcp = isPlainObject(profile.capabilities.adcp) ? profile.capabilities.adcp : {};
  const stated = adcp.supported_versions;
  if (stated !== undefined && JSON.stringify(stated) !== JSON.stringify(versions)) {
    throw new CodegenError(
      profile.file,
      '/capabilities/adcp/supported_versions',
      `states ${JSON.stringify(stated)} but the profile serves ${JSON.stringify(versions)}; leave it out and the served releases are published`,
    );
  }
  return { ...profile.capabilities, adcp: { ...adcp, supported_versions: versions } } as JsonObject;
}

import type { ProfileRelease } from '../artifacts/profile.js';

/**
 * get_adcp_capabilities as served: the profile's body (validated at generation against each release's schema),
 * plus what only the running agent knows — where it is published (`identity.brand_json_url` from its public URL),
 * which keys it signs with. Each protocol service adds its part; the profile stays the truth for everything it
 * states, so a part fills in, never contradicts.
 */
export type CapabilityPart = (body: Record<string, unknown>, release: ProfileRelease) => void;

export interface RuntimeCapabilities {
  add(part: CapabilityPart): void;
  /** A fresh body for one release: the caller may keep or change it. */
  of(release: ProfileRelease): Record<string, unknown>;
}

export function runtimeCapabilities(): RuntimeCapabilities {
  const parts: CapabilityPart[] = [];
  return {
    add: (part) => void parts.push(part),
    of(release) {
      const body = structuredClone(release.capabilities);
      for (const part of parts) part(body, release);
      return body;
    },
  };
}

import { clip, MAX_PAYLOAD_TEXT } from './bounds.js';
import type { Issue } from '../artifacts/contract.js';
import { parseWireVersion, type WireVersion } from './versions.js';

export interface ServedRelease extends WireVersion {
  /** Release precision with its pre-release tag, as the wire spells it: `3.2-beta.5`, `3.0`. */
  readonly key: string;
}

/** `error-details/version-unsupported.json`: what a buyer needs to re-pin without another capabilities call. */
export interface VersionUnsupportedDetails {
  adcp_version?: string;
  adcp_major_version?: number;
  supported_versions: string[];
  supported_majors: number[];
}

export type ReleaseChoice =
  | { ok: true; release: ServedRelease }
  | { ok: false; code: 'VERSION_UNSUPPORTED'; message: string; details: VersionUnsupportedDetails }
  | { ok: false; code: 'INVALID_REQUEST'; issues: Issue[] };

/**
 * AdCP version negotiation (docs/reference/versioning.mdx, "Version negotiation" and "Pre-release pins"), over the
 * releases a profile serves, `served` sorted highest first:
 * - an exact match is served;
 * - a pre-release pin (`3.2-beta.5`) matches only exactly;
 * - a release pin never downshifts onto a pre-release: it gets the highest served release (never a pre-release)
 *   not above it in the same major;
 * - none such (every served release of the major is above the pin, or another major) → VERSION_UNSUPPORTED with
 *   `supported_versions`;
 * - no pin → the server's default release, `fallback`; only `adcp_major_version` → the default when it is of that
 *   major, else the highest stable release served in it. A pre-release is never chosen for a call that did not pin
 *   it unless the profile names it as its default (`fallback`: its `default_release`, else its highest stable
 *   release): a buyer speaking only `adcp_major_version: 3` is a 3.0 buyer, not a beta tester. Nothing to serve
 *   (no default; no stable release of the major) → VERSION_UNSUPPORTED; both fields disagreeing on the major →
 *   VERSION_UNSUPPORTED.
 * Patches are not negotiated: a pin with one is malformed (INVALID_REQUEST at its field).
 */
export function selectRelease(served: readonly ServedRelease[], args: unknown, fallback?: ServedRelease): ReleaseChoice {
  // agent.call passes its parse-once copy; any other caller's value is read here once, and a field that cannot be
  // read (a throwing getter, a proxy) is an INVALID_REQUEST at that field, never an exception.
  const read = (k: string): { ok: true; value: unknown } | { ok: false } => {
    try {
      if (args === null || typeof args !== 'object' || Array.isArray(args)) return { ok: true, value: undefined };
      return { ok: true, value: Object.prototype.hasOwnProperty.call(args, k) ? (args as Record<string, unknown>)[k] : undefined };
    } catch {
      return { ok: false };
    }
  };
  const pinRead = read('adcp_version');
  const majorRead = read('adcp_major_version');
  for (const [k, r] of [['adcp_version', pinRead], ['adcp_major_version', majorRead]] as const) {
    if (!r.ok) return { ok: false, code: 'INVALID_REQUEST', issues: [{ pointer: `/${k}`, keyword: 'type', message: 'cannot be read' }] };
  }
  const pinValue = pinRead.ok ? pinRead.value : undefined;
  const major = majorRead.ok ? majorRead.value : undefined;

  let pin: WireVersion | undefined;
  if (pinValue !== undefined) {
    pin = typeof pinValue === 'string' ? parseWireVersion(pinValue) : undefined;
    if (pin === undefined) {
      return { ok: false, code: 'INVALID_REQUEST', issues: [{ pointer: '/adcp_version', keyword: 'pattern', message: 'must be a release-precision version such as "3.2" or "3.2-beta.5" (no patch)' }] };
    }
  }
  if (major !== undefined && (typeof major !== 'number' || !Number.isInteger(major))) {
    return { ok: false, code: 'INVALID_REQUEST', issues: [{ pointer: '/adcp_major_version', keyword: 'type', message: 'must be an integer' }] };
  }
  const unsupported = (why: string): ReleaseChoice => ({
    ok: false,
    code: 'VERSION_UNSUPPORTED',
    message: `${why}; supported versions: ${served.map((r) => r.key).join(', ')}`,
    details: {
      // The pin echoed back, unless it is long enough to make the error amplify the request (bounds.ts).
      ...(typeof pinValue === 'string' && pinValue.length <= MAX_PAYLOAD_TEXT ? { adcp_version: pinValue } : {}),
      ...(typeof major === 'number' ? { adcp_major_version: major } : {}),
      supported_versions: served.map((r) => r.key),
      supported_majors: [...new Set(served.map((r) => r.major))],
    },
  });
  if (pin !== undefined && major !== undefined && pin.major !== major) {
    return unsupported(`adcp_version ${clip(String(pinValue))} and adcp_major_version ${String(major)} disagree`);
  }

  if (pin === undefined) {
    if (major === undefined) return fallback !== undefined ? { ok: true, release: fallback } : unsupported('no adcp_version was sent and the agent serves only pre-releases, matched only by an exact adcp_version');
    if (fallback?.major === major) return { ok: true, release: fallback };
    const stable = served.find((r) => r.major === major && r.prerelease === undefined);
    if (stable !== undefined) return { ok: true, release: stable };
    return unsupported(served.some((r) => r.major === major) ? `adcp_major_version ${String(major)} is served only by pre-releases, matched only by an exact adcp_version` : `adcp_major_version ${String(major)} is not served`);
  }
  const exact = served.find((r) => r.major === pin.major && r.minor === pin.minor && r.prerelease === pin.prerelease);
  if (exact !== undefined) return { ok: true, release: exact };
  if (pin.prerelease !== undefined) return unsupported(`adcp_version ${clip(String(pinValue))} is a pre-release, matched only exactly, and is not served`);
  const below = served.find((r) => r.major === pin.major && r.prerelease === undefined && r.minor <= pin.minor);
  return below !== undefined ? { ok: true, release: below } : unsupported(`adcp_version ${clip(String(pinValue))} is not served and no served release of major ${pin.major} is below it`);
}

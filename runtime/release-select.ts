import type { Issue } from './contract.js';

export interface ServedRelease {
  /** Release precision, `3.2`. */
  readonly key: string;
  readonly major: number;
  readonly minor: number;
}

export type ReleaseChoice =
  | { ok: true; release: ServedRelease }
  | { ok: false; code: 'VERSION_UNSUPPORTED'; message: string }
  | { ok: false; code: 'INVALID_REQUEST'; issues: Issue[] };

const RELEASE_PIN = /^(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?)?$/;

/**
 * AdCP version negotiation (core/version-envelope.json): the buyer pins a release (`adcp_version`, release
 * precision; pre-release tags hang off the release) or, deprecated, a major (`adcp_major_version`). No pin → the
 * highest served release; a pin inside a served major → the highest served release not above it; otherwise, or when
 * the two fields disagree, VERSION_UNSUPPORTED. Patches are not negotiated.
 *
 * `served` must be sorted highest first.
 */
export function selectRelease(served: readonly ServedRelease[], args: unknown): ReleaseChoice {
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
  const pin = pinRead.ok ? pinRead.value : undefined;
  const major = majorRead.ok ? majorRead.value : undefined;
  const supported = (): string => served.map((r) => r.key).join(', ');

  let wantMajor: number | undefined;
  let wantMinor: number | undefined;
  if (pin !== undefined) {
    const m = typeof pin === 'string' ? RELEASE_PIN.exec(pin) : null;
    if (m === null) {
      return { ok: false, code: 'INVALID_REQUEST', issues: [{ pointer: '/adcp_version', keyword: 'pattern', message: 'must be a release-precision version such as "3.2" or "3.1-beta"' }] };
    }
    wantMajor = Number(m[1]);
    wantMinor = Number(m[2]);
  }
  if (major !== undefined) {
    if (typeof major !== 'number' || !Number.isInteger(major)) {
      return { ok: false, code: 'INVALID_REQUEST', issues: [{ pointer: '/adcp_major_version', keyword: 'type', message: 'must be an integer' }] };
    }
    if (wantMajor !== undefined && wantMajor !== major) {
      return { ok: false, code: 'VERSION_UNSUPPORTED', message: `adcp_version ${String(pin)} and adcp_major_version ${major} disagree; served releases: ${supported()}` };
    }
    wantMajor = major;
  }
  if (wantMajor === undefined) return { ok: true, release: served[0]! };
  const inMajor = served.filter((r) => r.major === wantMajor);
  const chosen = wantMinor === undefined ? inMajor[0] : inMajor.find((r) => r.minor <= wantMinor!);
  if (chosen === undefined) {
    const asked = pin !== undefined ? `adcp_version ${String(pin)}` : `adcp_major_version ${String(major)}`;
    return { ok: false, code: 'VERSION_UNSUPPORTED', message: `${asked} is not served; served releases: ${supported()}` };
  }
  return { ok: true, release: chosen };
}

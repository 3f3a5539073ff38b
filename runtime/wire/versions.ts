/**
 * AdCP version strings (docs/reference/versioning.mdx): the wire speaks release precision, `MAJOR.MINOR` with an
 * optional pre-release tag (`3.2`, `3.2-beta.5`, `3.1-rc.1`); patches are never negotiated. A published release's
 * full version (`3.2.0-beta.5`, the manifest's `adcp_version`) is normalized to that form before it goes on the wire
 * (core/version-envelope.json, NORMALIZATION). The generator names its releases by the same key, so the two sides
 * can never spell one release two ways.
 */

/** The wire pattern of `adcp_version` and `supported_versions` items (core/version-envelope.json). */
export const WIRE_VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?))?$/;

export interface WireVersion {
  readonly major: number;
  readonly minor: number;
  /** The pre-release tag (`beta.5`), absent for a release. */
  readonly prerelease?: string;
}

/** `3.2-beta.5` → { major: 3, minor: 2, prerelease: 'beta.5' }; undefined for anything that is not a wire version. */
export function parseWireVersion(value: string): WireVersion | undefined {
  const m = WIRE_VERSION.exec(value);
  if (m === null) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), ...(m[3] !== undefined ? { prerelease: m[3] } : {}) };
}

/** A release's full version (`3.2.0-beta.5`, `3.0.6`, `3.1`) at release precision (`3.2-beta.5`, `3.0`, `3.1`). */
export function wireVersionOf(full: string): string | undefined {
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)(?:\.(?:0|[1-9]\d*))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/.exec(full);
  if (m === null) return undefined;
  const wire = m[3] === undefined ? `${m[1]}.${m[2]}` : `${m[1]}.${m[2]}-${m[3]}`;
  return WIRE_VERSION.test(wire) ? wire : undefined;
}

/**
 * Semver precedence at release precision: major, then minor, then a release above its own pre-releases, which
 * compare identifier by identifier (numeric ones numerically and below alphanumeric ones, a shorter list first).
 * Negative when `a` precedes `b`.
 */
export function compareWireVersions(a: WireVersion, b: WireVersion): number {
  if (a.major !== b.major) return a.major - b.major;
  if (a.minor !== b.minor) return a.minor - b.minor;
  if (a.prerelease === b.prerelease) return 0;
  if (a.prerelease === undefined) return 1;
  if (b.prerelease === undefined) return -1;
  const x = a.prerelease.split('.');
  const y = b.prerelease.split('.');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i]!;
    const q = y[i]!;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

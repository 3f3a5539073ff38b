import { CodegenError, hashJson, isPlainObject } from '../shared/index.js';
import { capabilitiesIn, highestFirst, type JsonObject, type Profile, type Release } from '../load/index.js';

/** `adcp.build_version`'s pattern (protocol/get-adcp-capabilities-response.json): semver with the patch. */
const BUILD_VERSION = /^\d+\.\d+\.\d+(-[a-zA-Z0-9.-]+)?(\+[a-zA-Z0-9.-]+)?$/;

/**
 * The get_adcp_capabilities body a profile serves in each of `releases` (same order): its own, with
 * `adcp.supported_versions` (AdCP 3.2: the release-precision versions the agent speaks, pre-release tags kept,
 * authoritative for a buyer's `adcp_version` pin) set to the releases the generated set really serves, ascending as
 * the spec's examples list them, and `adcp.build_version` to the answering release's full version (`3.2.0-beta.5`;
 * advisory, never negotiated) unless the profile states its deployment's own. Earlier releases' `adcp` block is
 * open, so the same fields are valid in each; an older release's body leaves out the array items its enums do not
 * know (load/capabilities-fit.ts). A profile that states other versions than it serves is an error.
 */
export function servedCapabilities(profile: Profile, releases: readonly Release[]): JsonObject[] {
  const versions = [...releases].sort(highestFirst).reverse().map((r) => r.key);
  const adcp = isPlainObject(profile.capabilities.adcp) ? profile.capabilities.adcp : {};
  const stated = adcp.supported_versions;
  if (stated !== undefined && JSON.stringify(stated) !== JSON.stringify(versions)) {
    throw new CodegenError(
      profile.file,
      '/capabilities/adcp/supported_versions',
      `states ${JSON.stringify(stated)} but the profile serves ${JSON.stringify(versions)}; leave it out and the served releases are published`,
    );
  }
  const bodies = releases.map((release) => {
    const build = adcp.build_version ?? (BUILD_VERSION.test(release.version) ? release.version : undefined);
    return { ...capabilitiesIn(profile, release), adcp: { ...adcp, supported_versions: versions, ...(build !== undefined ? { build_version: build } : {}) } } as JsonObject;
  });
  return withCapabilitiesVersion(bodies);
}

/**
 * `adcp.capability_changes.capabilities_version` where the profile declares capability changes and no version: a hash
 * of every served body (the version itself left out), so a deploy whose capabilities change publishes a new one, and
 * an unchanged deploy the same one — the read-after-notify fence `capabilities.changed` webhooks name. A version the
 * profile states is its own.
 */
function withCapabilitiesVersion(bodies: JsonObject[]): JsonObject[] {
  const changes = (b: JsonObject): JsonObject | undefined => {
    const adcp = b.adcp;
    return isPlainObject(adcp) && isPlainObject(adcp.capability_changes) ? (adcp.capability_changes as JsonObject) : undefined;
  };
  if (bodies.every((b) => changes(b) === undefined || changes(b)!.capabilities_version !== undefined)) return bodies;
  const version = `sha256:${hashJson(bodies).slice(0, 32)}`;
  return bodies.map((b) => {
    const c = changes(b);
    if (c === undefined || c.capabilities_version !== undefined) return b;
    const adcp = b.adcp as JsonObject;
    return { ...b, adcp: { ...adcp, capability_changes: { ...c, capabilities_version: version } } } as JsonObject;
  });
}

/**
 * Capability fields the running agent fills in (runtime/services/capabilities.ts), as dotted paths: each is
 * published only in a release whose get_adcp_capabilities response declares it. `identity.brand_json_url` (AdCP 3.2;
 * 3.0 has no such property) points buyers at the brand.json naming the agent's signing keys, from its public URL.
 */
export const FILLABLE_CAPABILITIES: readonly string[] = ['identity.brand_json_url'];

/** The FILLABLE_CAPABILITIES `release`'s get_adcp_capabilities response declares: through `$ref`s and `allOf`/`oneOf`/`anyOf`. */
export function fillableCapabilities(release: Release): string[] {
  const tool = release.tools.get('get_adcp_capabilities');
  const root = tool === undefined ? undefined : release.schemas.byPath.get(tool.responseSchema);
  if (root === undefined) return [];
  return FILLABLE_CAPABILITIES.filter((path) => declaresPath(release, root.schema, root.id, path.split('.')));
}

/**
 * Whether `node` (in the file `base`) declares the property path `path` (`['push_notification_config',
 * 'operation_id']`): each name under `properties`, through `$ref`s and `allOf`/`oneOf`/`anyOf` members.
 */
export function declaresPath(release: Release, node: unknown, base: string, path: readonly string[], seen = new Set<unknown>()): boolean {
  if (path.length === 0) return true;
  if (!isPlainObject(node) || seen.has(node)) return false;
  seen.add(node);
  const [head, ...rest] = path as [string, ...string[]];
  if (isPlainObject(node.properties) && Object.prototype.hasOwnProperty.call(node.properties, head) && declaresPath(release, node.properties[head], base, rest)) return true;
  if (typeof node.$ref === 'string') {
    const target = release.schemas.resolve(node.$ref, base);
    if (declaresPath(release, target.schema, target.file.id, path, seen)) return true;
  }
  return (['allOf', 'oneOf', 'anyOf'] as const).some((k) => Array.isArray(node[k]) && (node[k] as unknown[]).some((m) => declaresPath(release, m, base, path, seen)));
}

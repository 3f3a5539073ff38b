import { checkFormat, describe, pointerOf } from './check-format.js';
import { CodegenError, hashJson, isPlainObject, type BuildCache } from '../shared/index.js';
import type { JsonObject, Profile, Release } from './model.js';
import { readJson } from './read-json.js';
import { highestFirst } from './release.js';
import { fitCapabilities } from './capabilities-fit.js';
import { capabilitiesValidator, type CapabilitiesValidator } from './capabilities-validator.js';

interface RawProfile {
  name: string;
  tools: string[];
  shared_tools?: string[];
  surface?: 'production' | 'sandbox';
  capabilities: JsonObject;
  releases?: string[];
  default_release?: string;
  advertise?: { annotations?: 'structural' | 'full'; outputSchema?: boolean };
}

/** Reads and checks one profile file against schemas/profile.schema.json. */
export function readProfile(path: string, display: string): Profile {
  const raw = readJson(path, display);
  checkFormat('profile.schema.json', raw, display);
  const p = raw as RawProfile;
  rejectDuplicates(p.tools, display, '/tools');
  rejectDuplicates(p.shared_tools ?? [], display, '/shared_tools');
  if (p.releases) rejectDuplicates(p.releases, display, '/releases');
  return {
    name: p.name,
    file: display,
    tools: p.tools,
    sharedTools: p.shared_tools ?? [],
    surface: p.surface ?? 'production',
    advertise: {
      // Production hosts advertise the structural projection (AdCP 3.2); sandbox keeps the documentation.
      annotations: p.advertise?.annotations ?? (p.surface === 'sandbox' ? 'full' : 'structural'),
      outputSchema: p.advertise?.outputSchema ?? false,
    },
    capabilities: p.capabilities,
    releases: p.releases,
    ...(p.default_release !== undefined ? { defaultRelease: p.default_release } : {}),
    hash: hashJson(raw),
  };
}

function rejectDuplicates(names: readonly string[], file: string, pointer: string): void {
  const seen = new Map<string, number>();
  names.forEach((name, i) => {
    const first = seen.get(name);
    if (first !== undefined) throw new CodegenError(file, `${pointer}/${i}`, `${JSON.stringify(name)} is listed twice (first at ${pointer}/${first})`);
    seen.set(name, i);
  });
}

/**
 * The releases a profile serves, highest first. A profile names each by its key (`3.2-beta.5`, `3.0`) or by
 * `MAJOR.MINOR` alone where that is unambiguous: the configured release of that precision, or its only configured
 * pre-release. A release the profile names but the config does not provide is an error: the team asked for a
 * surface the build cannot produce.
 */
export function servedReleases(profile: Profile, releases: readonly Release[]): Release[] {
  const sorted = [...releases].sort(highestFirst);
  if (profile.releases === undefined) return sorted;
  const configured = sorted.map((x) => x.key).join(', ');
  const named = profile.releases.map((name, i) => {
    const found = releaseNamed(name, sorted);
    if ('release' in found) return found.release;
    throw new CodegenError(
      profile.file,
      `/releases/${i}`,
      found.candidates.length > 1 ? `release ${name} is ambiguous: configured as ${found.candidates.map((x) => x.key).join(' and ')}; name one` : `release ${name} is not configured (configured: ${configured})`,
    );
  });
  named.forEach((r, i) => {
    const first = named.indexOf(r);
    if (first !== i) throw new CodegenError(profile.file, `/releases/${i}`, `names release ${r.key} again (first at /releases/${first})`);
  });
  return named.sort(highestFirst);
}

/** The release `name` names among `releases`: its key, or `MAJOR.MINOR` where exactly one has it; else the candidates. */
function releaseNamed(name: string, releases: readonly Release[]): { release: Release } | { candidates: readonly Release[] } {
  const exact = releases.find((x) => x.key === name);
  if (exact !== undefined) return { release: exact };
  const sameMinor = releases.filter((x) => `${x.major}.${x.minor}` === name);
  return sameMinor.length === 1 ? { release: sameMinor[0]! } : { candidates: sameMinor };
}

/**
 * The release a profile serves to a call that pins none (versioning.mdx's "server's default"; runtime/wire/
 * release-select.ts): its `default_release`, named as `releases` names them and one it serves, else the highest
 * stable release it serves (`served` is highest first); undefined when it serves only pre-releases and names none.
 */
export function defaultRelease(profile: Profile, served: readonly Release[]): Release | undefined {
  const name = profile.defaultRelease;
  if (name === undefined) return served.find((r) => r.prerelease === undefined);
  const found = releaseNamed(name, served);
  if ('release' in found) return found.release;
  const serves = served.map((r) => r.key).join(', ');
  throw new CodegenError(
    profile.file,
    '/default_release',
    found.candidates.length > 1 ? `release ${name} is ambiguous: the profile serves ${found.candidates.map((x) => x.key).join(' and ')}; name one` : `release ${name} is not one the profile serves (it serves ${serves})`,
  );
}

/**
 * The profile's capabilities must be a valid get_adcp_capabilities response body of every release it serves: as
 * written in the newest (`older` false), and in an older one once the array items its enums do not know are left out
 * of its body (capabilities-fit.ts).
 */
export function checkCapabilities(profile: Profile, release: Release, validators: Map<Release, CapabilitiesValidator> = new Map(), cache?: BuildCache, older = false): void {
  const tool = release.tools.get('get_adcp_capabilities');
  if (tool === undefined) return; // a release without the capabilities tool has nothing to check against
  // Several profiles serve one release: the caller's map shares one validator between them, and lets it (and the
  // Ajv instance behind it) go once the profiles are checked.
  let validate = validators.get(release);
  if (validate === undefined) validators.set(release, (validate = capabilitiesValidator(release, tool.responseSchema, cache)));
  // Validated as served: the runtime adds the protocol envelope's `status` to every completed response, and the
  // generator derives `adcp.capability_changes.capabilities_version` (project/capabilities.ts).
  const check = validate;
  const served = ((data: unknown) => check({ status: 'completed', ...withDerivedVersion(data as JsonObject) })) as CapabilitiesValidator;
  Object.defineProperty(served, 'errors', { get: () => check.errors });
  const error = older ? fitCapabilities(profile, release, profile.capabilities, served) : served(profile.capabilities) ? undefined : served.errors![0]!;
  if (error !== undefined) {
    throw new CodegenError(
      profile.file,
      `/capabilities${pointerOf(error)}`,
      `${describe(error)} (AdCP ${release.version} ${tool.responseSchema})`,
    );
  }
}

/**
 * The capabilities with a stand-in `capabilities_version` where the profile declares `adcp.capability_changes`
 * without one: the generator derives it from the served capabilities (project/capabilities.ts), so a profile need not
 * (and should not) state it, yet the schema requires it there.
 */
export function withDerivedVersion(capabilities: JsonObject): JsonObject {
  const adcp = capabilities.adcp;
  if (!isPlainObject(adcp) || !isPlainObject(adcp.capability_changes) || adcp.capability_changes.capabilities_version !== undefined) return capabilities;
  return { ...capabilities, adcp: { ...adcp, capability_changes: { ...adcp.capability_changes, capabilities_version: 'derived' } } };
}

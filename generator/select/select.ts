import { CodegenError, getAtPointer } from '../shared/index.js';
import type { Profile, Release } from '../load/index.js';
import { didYouMean } from '../../runtime/wire/closest-names.js';

/** Capability blocks that enable tools by exact name (AdCP 3.2 tool surface, step 2), as pointers into `capabilities`. */
const EXACT_TOOL_CLAIMS: readonly string[] = [
  '/media_buy/lifecycle_tools',
  '/media_buy/relationship_notifications/repair_tasks',
  '/media_buy/relationship_notifications/projection_tasks',
];

/** The manifest protocol every agent serves: discovery and task tools (get_adcp_capabilities, get_task_status …). */
const BASE_PROTOCOL = 'protocol';
/** Never on a production surface (step 4). */
const COMPLIANCE_PROTOCOL = 'compliance';

export interface SelectedTool {
  readonly name: string;
  /** Why the tool is on the surface: its protocol is enabled, a capability block names it, or the host shares it. */
  readonly reason: 'protocol' | 'capability' | 'shared' | 'unscoped';
}

export interface Selection {
  readonly release: Release;
  /** Sorted by name. */
  readonly tools: readonly SelectedTool[];
  /** Implemented tools this release's manifest does not have (the profile names them for another release). */
  readonly notInRelease: readonly string[];
  /** Implemented tools outside every enabled protocol and claim: implemented but not advertised. */
  readonly outOfScope: readonly string[];
}

/**
 * The AdCP 3.2 tool-surface algorithm for one profile and one release, step by step. Every inconsistency fails
 * closed with an error naming the profile file and pointer.
 */
export function selectTools(profile: Profile, release: Release, allServed: readonly Release[]): Selection {
  const file = profile.file;
  // Step 1: start from the implemented tools; each must exist in some served release's manifest.
  profile.tools.forEach((name, i) => {
    if (!allServed.some((r) => r.tools.has(name))) {
      throw new CodegenError(file, `/tools/${i}`, `unknown tool ${JSON.stringify(name)}: not in the manifest of ${allServed.map((r) => `AdCP ${r.version}`).join(' or ')}${didYouMean(name, allServed.flatMap((r) => [...r.tools.keys()]))}`);
    }
  });
  const implemented = new Set(profile.tools);
  profile.sharedTools.forEach((name, i) => {
    if (!implemented.has(name)) throw new CodegenError(file, `/shared_tools/${i}`, `shared tool ${JSON.stringify(name)} is not implemented (add it to "tools")`);
  });
  // A tool this copy of the release cannot serve (its manifest names schemas the copy lacks, as @adcp/sdk's copy of
  // 3.0.6 lacks the compliance controller's) is, for a profile another served release can serve it from, a tool
  // absent from this release; served by none, it stays an error below.
  const servedElsewhere = (name: string): boolean => allServed.some((r) => r !== release && r.tools.has(name) && !r.unavailable.has(name));
  const here = (name: string): boolean => release.tools.has(name) && !(release.unavailable.has(name) && servedElsewhere(name));
  const inRelease = profile.tools.filter(here);
  const notInRelease = profile.tools.filter((name) => !here(name));

  // Step 4 (checked first so it fails closed whatever the scope): no compliance tools on a production surface.
  if (profile.surface === 'production') {
    profile.tools.forEach((name, i) => {
      if (release.tools.get(name)?.protocol === COMPLIANCE_PROTOCOL) {
        throw new CodegenError(file, `/tools/${i}`, `${name} belongs to the compliance protocol, which a production surface excludes (set "surface": "sandbox" for conformance runs)`);
      }
    });
  }

  const caps = profile.capabilities;
  const protocols = caps.supported_protocols;
  const chosen = new Map<string, SelectedTool['reason']>();
  if (!Array.isArray(protocols)) {
    // Step 2, first half: without a narrower scope select every implemented tool.
    for (const name of inRelease) chosen.set(name, 'unscoped');
  } else {
    // Step 2: implemented tools whose manifest protocol is enabled (snake_case → kebab-case) …
    const enabled = new Set<string>([BASE_PROTOCOL, ...protocols.filter((p): p is string => typeof p === 'string').map(kebab)]);
    for (const name of inRelease) if (enabled.has(release.tools.get(name)!.protocol)) chosen.set(name, 'protocol');
    // … plus exact names enabled by capability blocks; a claim that is not implemented is a configuration error …
    for (const claim of EXACT_TOOL_CLAIMS) {
      const claimed = getAtPointer(caps, claim);
      if (!Array.isArray(claimed)) continue;
      claimed.forEach((name, i) => {
        if (typeof name !== 'string') return;
        const pointer = `/capabilities${claim}/${i}`;
        if (!implemented.has(name)) throw new CodegenError(file, pointer, `capabilities claim ${name}, which the agent does not implement (fail closed: add it to "tools" or drop the claim)`);
        if (here(name) && !chosen.has(name)) chosen.set(name, 'capability');
      });
    }
    // … plus the shared tools the host names.
    for (const name of profile.sharedTools) if (here(name) && !chosen.has(name)) chosen.set(name, 'shared');
  }
  // Step 3: protocol is ownership, not dependency — nothing above pulls in a tool that is not implemented.
  // Step 5: sorted names.
  const tools = [...chosen.entries()].map(([name, reason]) => ({ name, reason })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const t of tools) {
    const why = release.unavailable.get(t.name);
    if (why !== undefined) throw new CodegenError(file, `/tools/${profile.tools.indexOf(t.name)}`, `${t.name} cannot be served from AdCP ${release.version}: ${why}`);
  }
  return {
    release,
    tools,
    notInRelease,
    outOfScope: inRelease.filter((name) => !chosen.has(name)).sort(),
  };
}

function kebab(protocol: string): string {
  return protocol.replace(/_/g, '-');
}

/** Stage 2: per profile, the selection for each release it serves (highest release first). */
export function select(profiles: readonly Profile[], served: ReadonlyMap<string, readonly Release[]>): Map<string, Selection[]> {
  const out = new Map<string, Selection[]>();
  for (const profile of profiles) {
    const releases = served.get(profile.name) ?? [];
    out.set(profile.name, releases.map((r) => selectTools(profile, r, releases)));
  }
  return out;
}

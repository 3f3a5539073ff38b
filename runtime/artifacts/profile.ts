import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServedRelease } from '../wire/release-select.js';
import { parseWireVersion } from '../wire/versions.js';

/**
 * One profile of a generated set, as `profiles/<name>.json` states it: the releases it serves, highest first, each
 * with its tools, capabilities body and the facts the call stages need about its response schemas. Only what calls
 * need is read here; the tools/list entries (most of a profile's bytes) wait in their own file (tools-list.ts).
 */

export interface ProfileRelease extends ServedRelease {
  readonly version: string;
  readonly tools: readonly string[];
  readonly capabilities: Record<string, unknown>;
  /** Per tool, envelope fields (`status`, `adcp_version`, `context`) its response schema refuses: never added. */
  readonly omitEnvelope?: Readonly<Record<string, readonly string[]>>;
  /**
   * Tools whose `status` is the response's own state in this release (3.0's create_media_buy), with the values its
   * schema declares: never defaulted to `completed`; a handler's own among them is taken as it is.
   */
  readonly domainStatus?: Readonly<Record<string, readonly string[]>>;
  /** The `$id` prefix of the release's schemas (issues name the one that rejected), and whether they are AdCP's published ones. */
  readonly schemaIds?: { readonly base: string; readonly published: boolean };
  /** Batch tools that answer items one by one (`ARTIFACT_PATHS.items`). */
  readonly itemOutcomes?: readonly string[];
  /**
   * Tools whose request declares `idempotency_key` in this release (derived from its schemas at generation), each
   * with the insert budget its keys count against: `write` for mutating tools, `read` for the rest.
   */
  readonly idempotency?: Readonly<Record<string, 'read' | 'write'>>;
  /** Each tool's AdCP protocol as the release's manifest names it (`media-buy`): what a task reports as its protocol. */
  readonly protocols?: Readonly<Record<string, string>>;
  /** Capability fields the running agent fills in that this release declares (`identity.brand_json_url`), as dotted paths. */
  readonly fillable?: readonly string[];
  /**
   * Tools whose request's `push_notification_config` declares `operation_id` in this release (AdCP 3.2, not 3.0.6): a
   * task registering a webhook there must name one (ctx.task() refuses it otherwise).
   */
  readonly pushOperationId?: readonly string[];
}

export interface ProfileFile {
  readonly name: string;
  /**
   * `sandbox`: a conformance deployment (the compliance controller served): the agent may sign with a development key
   * it makes itself and deliver webhooks to loopback receivers. Production otherwise.
   */
  readonly surface: 'production' | 'sandbox';
  /** Served releases, highest first. */
  readonly releases: readonly ProfileRelease[];
  /**
   * The release a call pinning none is served (versioning.mdx's "server's default"): the profile's `default_release`,
   * else the highest stable release it serves, as the generator resolved it; absent when it serves only pre-releases
   * and names none.
   */
  readonly defaultRelease?: ProfileRelease;
  /** Tools whose tools/list entry advertises an outputSchema: their responses are validated in production too. */
  readonly outputAdvertised: ReadonlySet<string>;
}

export function readProfile(outDir: string, name: string): ProfileFile {
  // A regeneration committed but not yet fully applied (killed midway): the files may be a mix of two sets.
  if (existsSync(join(outDir, '.adcp-codegen', 'commit.json'))) {
    throw new Error(`adcp-codegen: the generated set in ${outDir} is being replaced by an interrupted regeneration; run adcp-codegen generate to finish it`);
  }
  const file = JSON.parse(readFileSync(join(outDir, 'profiles', `${name}.json`), 'utf8')) as {
    profile: { surface?: 'sandbox'; defaultRelease?: string; releases: Omit<ProfileRelease, 'major' | 'minor' | 'prerelease'>[]; outputAdvertised: string[] };
  };
  const releases: ProfileRelease[] = file.profile.releases.map((r) => {
    const version = parseWireVersion(r.key);
    // Written by the generator from the same parser: anything else is a set edited by hand.
    if (version === undefined) throw new Error(`adcp-codegen: profiles/${name}.json names release ${JSON.stringify(r.key)}, not an AdCP wire version; run adcp-codegen generate`);
    return { ...r, ...version };
  });
  const named = file.profile.defaultRelease;
  const defaultRelease = named === undefined ? undefined : releases.find((r) => r.key === named);
  if (named !== undefined && defaultRelease === undefined) throw new Error(`adcp-codegen: profiles/${name}.json names default release ${JSON.stringify(named)}, which it does not serve; run adcp-codegen generate`);
  return { name, surface: file.profile.surface === 'sandbox' ? 'sandbox' : 'production', releases, ...(defaultRelease !== undefined ? { defaultRelease } : {}), outputAdvertised: new Set(file.profile.outputAdvertised) };
}

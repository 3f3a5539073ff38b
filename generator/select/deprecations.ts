import type { Release } from '../load/index.js';
import type { Selection } from './select.js';

/**
 * A selected tool that a served release's manifest deprecates (`deprecated_in`, and `superseded_by` where it names
 * replacements): AdCP 3.2 deprecates the media-buy facades (get_products, create_media_buy, update_media_buy,
 * list_creative_formats) in favour of the compact lifecycle and proposal mode. Deprecated tools stay supported through
 * 3.x (versioning.mdx, "Deprecation policy"), so the team is told, not stopped: one note per tool and release, naming
 * every profile that serves it there, never a line per profile.
 */
export interface Deprecation {
  readonly release: Release;
  readonly tool: string;
  /** The manifest's `deprecated_in`: the AdCP release that deprecates the tool (`3.2.0`). */
  readonly deprecatedIn: string;
  /** The manifest's `superseded_by`: its replacements, in the manifest's order (none named: empty). */
  readonly supersededBy: readonly string[];
  /** The profiles serving the tool in that release, sorted. */
  readonly profiles: readonly string[];
}

/** Every deprecated tool the selections serve, by release (as configured) then tool name. */
export function deprecations(selections: ReadonlyMap<string, readonly Selection[]>): Deprecation[] {
  const found = new Map<Release, Map<string, string[]>>();
  for (const [profile, selected] of selections) {
    for (const { release, tools } of selected) {
      for (const { name } of tools) {
        if (release.tools.get(name)?.deprecatedIn === undefined) continue;
        const byTool = found.get(release) ?? found.set(release, new Map()).get(release)!;
        (byTool.get(name) ?? byTool.set(name, []).get(name)!).push(profile);
      }
    }
  }
  return [...found].flatMap(([release, byTool]) =>
    [...byTool.keys()].sort().map((tool) => {
      const def = release.tools.get(tool)!;
      return { release, tool, deprecatedIn: def.deprecatedIn!, supersededBy: def.supersededBy ?? [], profiles: [...new Set(byTool.get(tool))].sort() };
    }),
  );
}

/**
 * One line for a deprecation: `create_media_buy: deprecated in AdCP 3.2.0 (the 3.2.0-beta.5 manifest), superseded by
 * buy_products, accept_proposal; served by profile my-seller (AdCP keeps it through 3.x)`.
 */
export function deprecationNote(d: Deprecation): string {
  const replaced = d.supersededBy.length > 0 ? `superseded by ${d.supersededBy.join(', ')}` : 'no replacement named';
  const by = `${d.profiles.length === 1 ? 'profile' : 'profiles'} ${d.profiles.join(', ')}`;
  return `${d.tool}: deprecated in AdCP ${d.deprecatedIn} (the ${d.release.version} manifest), ${replaced}; served by ${by} (AdCP keeps it through ${d.release.major}.x)`;
}

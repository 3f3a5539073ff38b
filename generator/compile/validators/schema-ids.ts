import type { Release, SchemaFile } from '../../load/index.js';

/**
 * How a release names its schemas, for `issues[].schema_id` (error-handling.mdx, "Validator-internals fields on
 * issues"): the prefix every document's `$id` shares (`https://adcontextprotocol.org/schemas/3.2.0-beta.5/`, or
 * 3.0.6's rooted `/schemas/3.0.6/`). Each compiled definition states its location by the rest of its document's
 * `$id` (`validate.location`, the same in every release: 3.2's copies under core/async-response-refs/ carry the ids
 * of the files they copy), so the runtime names the document holding the rejecting keyword as `base` + that.
 * `published`: the ids are AdCP's own for exactly this version — schemas anyone can fetch and replay the validation
 * against, which is what makes them safe to emit in production (the page's private-extension and version-skew
 * carve-outs). Undefined when the ids share no `…/schemas/<version>/` prefix.
 */
export interface SchemaIds {
  readonly base: string;
  readonly published: boolean;
}

const PUBLISHED_HOST = 'https://adcontextprotocol.org';
const BASE = /^(.*\/schemas\/[^/]+\/)[^#]+$/;

export function schemaIds(release: Release): SchemaIds | undefined {
  let base: string | undefined;
  for (const file of release.schemas.byId.values()) {
    const prefix = BASE.exec(file.id)?.[1];
    if (prefix === undefined || (base !== undefined && base !== prefix)) return undefined;
    base = prefix;
  }
  if (base === undefined) return undefined;
  const path = `/schemas/${release.version}/`;
  return { base, published: base === path || base === `${PUBLISHED_HOST}${path}` };
}

/** How a definition of `file` names its document: its `$id` after the release's prefix, else its path. */
export function documentName(ids: SchemaIds | undefined, file: SchemaFile): string {
  return ids !== undefined && file.id.startsWith(ids.base) ? file.id.slice(ids.base.length) : file.path;
}

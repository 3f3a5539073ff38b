import { isCredentialName } from '../wire/credential-names.js';
import type { Served } from './served.js';
import type { ToolsLists } from './tools-list.js';

/**
 * The credential-looking property names a tool's own request schemas declare (`auth_token` in a property list
 * reference, `api_key_header` in a webhook asset …): fields AdCP defines, which the credential check
 * (call/credentials.ts) must not refuse. Read from the tool's advertised input schemas in every served release
 * (self-contained, `$defs` included), on the first call whose arguments carry such a name, and kept.
 */
export function declaredCredentialNames(served: Served, lists: Pick<ToolsLists, 'toolsList'>): (tool: string) => ReadonlySet<string> {
  return (tool) =>
    served.cached(`credential-names\u0000${tool}`, () => {
      const names = new Set<string>();
      for (const key of served.releasesServing(tool)) {
        const entry = lists.toolsList(key).find((e) => e.name === tool);
        if (entry !== undefined) collect(entry.inputSchema, names);
      }
      return names;
    });
}

/** Values of these keywords are data, not schemas: a `properties` inside them declares nothing. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'examples', 'default']);

function collect(schema: unknown, names: Set<string>): void {
  if (schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const s of schema) collect(s, names);
    return;
  }
  for (const [keyword, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(keyword)) continue;
    if (keyword === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const name of Object.keys(value)) if (isCredentialName(name)) names.add(name);
    }
    collect(value, names);
  }
}

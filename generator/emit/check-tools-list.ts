import { createRequire } from 'node:module';
import type { ToolsListEntry } from '../project/index.js';
import { type ProfileData, toolsListEntryWith } from './emit.js';
import { CodegenError } from '../shared/index.js';

interface ZodLike {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: { path: (string | number)[]; message: string }[] } };
}

/**
 * Checks every tools/list a generated set will serve — each profile's endpoint list and each per-release list —
 * against the MCP SDK's own `ListToolsResultSchema`, the check `Client.listTools()` applies (one bad entry fails the
 * whole list). The SDK is resolved from the agent repository (beside `anchor`, its config file); without it
 * nothing is checked and the count is undefined. A rejection is an error naming the profile, the tool and the path.
 */
export function checkToolsLists(profiles: readonly ProfileData[], anchor: string): number | undefined {
  const schema = sdkSchema(anchor);
  if (schema === undefined) return undefined;
  let count = 0;
  for (const { profile, advertised } of profiles) {
    const lists: [string, readonly ToolsListEntry[]][] = [
      ['the endpoint tools/list', advertised.endpoint],
      ...advertised.releases.map((r): [string, readonly ToolsListEntry[]] => [`the AdCP ${r.release.key} tools/list`, r.entries]),
    ];
    for (const [label, entries] of lists) {
      const tools = entries.map(toolsListJson);
      const verdict = schema.safeParse({ tools });
      count++;
      if (verdict.success) continue;
      const issue = verdict.error.issues[0]!;
      const [, index, ...rest] = issue.path;
      const tool = typeof index === 'number' ? entries[index]?.name : undefined;
      throw new CodegenError(
        profile.file,
        '',
        `${label} is rejected by @modelcontextprotocol/sdk's ListToolsResultSchema: ${tool !== undefined ? `tool ${tool}, ` : ''}${rest.length > 0 ? `/${rest.join('/')}` : `/${issue.path.join('/')}`}: ${issue.message}`,
      );
    }
  }
  return count;
}

/** One tools/list entry as the runtime sends it. */
export function toolsListJson(e: ToolsListEntry): Record<string, unknown> {
  return toolsListEntryWith(e, (s) => s.schema);
}

function sdkSchema(anchor: string): ZodLike | undefined {
  try {
    const types = createRequire(anchor)('@modelcontextprotocol/sdk/types.js') as { ListToolsResultSchema?: ZodLike };
    return types.ListToolsResultSchema;
  } catch {
    return undefined;
  }
}

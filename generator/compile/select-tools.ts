import { CodegenError, escapeToken } from '../shared/index.js';
import type { Release, ToolDef } from '../load/index.js';

/**
 * The tools one compiler emits, in name order, each once: the named ones, or (none named) every tool this copy of
 * the release can compile. A name the release does not have, or a tool whose schemas this copy does not ship, is a
 * build error naming the release manifest; every compiler reports it the same way.
 */
export function selectTools(release: Release, tools?: readonly string[]): ToolDef[] {
  const names = tools ?? [...release.tools.keys()].filter((n) => !release.unavailable.has(n));
  return [...new Set(names)].sort().map((name) => {
    const tool = release.tools.get(name);
    if (tool === undefined) throw new CodegenError(`${release.label}/manifest.json`, '/tools', `no tool ${JSON.stringify(name)} in this release`);
    const why = release.unavailable.get(name);
    if (why !== undefined) throw new CodegenError(`${release.label}/manifest.json`, `/tools/${escapeToken(name)}`, `tool ${name} is unavailable: ${why}`);
    return tool;
  });
}

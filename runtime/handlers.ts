import type { HandlerMap, PerReleaseHandlers, ToolHandler } from './agent-types.js';

/**
 * The handlers as the transports take them: one function per tool, a per-release set dispatching on the release
 * that serves the call. The contract the generated types state is checked here, at registration, so a handler set
 * the types would reject (a tool the profile does not serve, a served tool or release without a handler) fails at
 * start rather than on a buyer's call. get_adcp_capabilities alone may be left out: the transports serve it from
 * the profile (`capabilities`, as served in the answering release).
 */
export function bindHandlerSet(
  profile: string,
  handlers: HandlerMap<string>,
  allTools: ReadonlySet<string>,
  releasesServing: (tool: string) => string[],
  capabilities: (release: string) => Record<string, unknown>,
): Record<string, ToolHandler<any, any>> {
  if (handlers === null || typeof handlers !== 'object') throw new Error(`adcp-codegen: handlers for profile ${profile} must be an object of tool handlers`);
  const out: Record<string, ToolHandler<any, any>> = {};
  const extra: string[] = [];
  const missing: string[] = [];
  for (const tool of Object.keys(handlers)) {
    const h = handlers[tool];
    if (h === undefined) continue;
    if (!allTools.has(tool)) {
      extra.push(tool);
      continue;
    }
    if (typeof h === 'function') {
      out[tool] = h;
      continue;
    }
    const releases = releasesServing(tool);
    for (const key of releases) if (typeof ownHandler(h, key) !== 'function') missing.push(`${tool} (AdCP ${key})`);
    for (const key of Object.keys(h)) if (!releases.includes(key)) extra.push(`${tool} (AdCP ${key})`);
    out[tool] = (args, ctx) => ownHandler(h, ctx.release)!(args, ctx);
  }
  if (allTools.has('get_adcp_capabilities') && !Object.prototype.hasOwnProperty.call(out, 'get_adcp_capabilities')) {
    // The profile's own object: `call` copies every handler result before anything reads it.
    out.get_adcp_capabilities = (_args, ctx) => capabilities(ctx.release);
  }
  for (const tool of [...allTools].sort()) if (!Object.prototype.hasOwnProperty.call(out, tool)) missing.push(tool);
  if (extra.length > 0) throw new Error(`adcp-codegen: handler(s) for tools profile ${profile} does not serve: ${extra.sort().join(', ')}`);
  if (missing.length > 0) throw new Error(`adcp-codegen: profile ${profile} serves tools without a handler: ${missing.sort().join(', ')}`);
  return out;
}

/** The handler of a per-release set for one release, own properties only. */
export function ownHandler(set: PerReleaseHandlers, release: string): ToolHandler<any, any, any> | undefined {
  const h = Object.prototype.hasOwnProperty.call(set, release) ? set[release] : undefined;
  return typeof h === 'function' ? h : undefined;
}

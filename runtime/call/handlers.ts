import type { AnyToolHandler, HandlerMap, PerReleaseHandlers, ToolHandler } from '../api/agent-types.js';
import { didYouMean } from '../wire/closest-names.js';

/**
 * A handler set checked against the profile, as the transports take it: what the generated types state (a handler
 * for every tool the profile serves, and for each release a per-release set answers; none for anything else) is
 * checked here, once, where the set is registered (agent.mcpServerFactory at start-up, registerMcp, a2aExecutor), so
 * a set that does not match — a profile changed and the agent not rebuilt — fails before a buyer's call, naming every
 * missing and extra tool. The tools the runtime serves itself (get_adcp_capabilities, the task reads) may be left out.
 */
export interface HandlerProfile {
  readonly name: string;
  /** Every tool the profile serves in some release. */
  readonly tools: ReadonlySet<string>;
  /** The served releases that serve `tool`, highest first. */
  releasesServing(tool: string): readonly string[];
  /** The runtime's own handlers (get_adcp_capabilities, the task reads): used for a served tool the set leaves out. */
  readonly builtins: Readonly<Record<string, AnyToolHandler>>;
}

export function checkHandlers(handlers: HandlerMap<string>, profile: HandlerProfile): Readonly<Record<string, AnyToolHandler>> {
  const { name, tools } = profile;
  if (handlers === null || typeof handlers !== 'object') throw new Error(`adcp-codegen: handlers for profile ${name} must be an object of tool handlers`);
  const out: Record<string, AnyToolHandler> = {};
  const extra: string[] = [];
  const missing: string[] = [];
  for (const tool of Object.keys(handlers)) {
    const h = handlers[tool];
    if (h === undefined) continue;
    if (!tools.has(tool)) {
      extra.push(tool);
      continue;
    }
    if (typeof h === 'function') {
      out[tool] = h;
      continue;
    }
    const releases = profile.releasesServing(tool);
    for (const key of releases) if (typeof ownHandler(h, key) !== 'function') missing.push(`${tool} (AdCP ${key})`);
    for (const key of Object.keys(h)) if (!releases.includes(key)) extra.push(`${tool} (AdCP ${key})`);
    // Kept as the per-release set: a set is never converted (each handler answers in its own release).
    out[tool] = h;
  }
  // The runtime's own handlers, for the served tools the set leaves out (services/builtins.ts).
  for (const [tool, h] of Object.entries(profile.builtins)) if (tools.has(tool) && !Object.prototype.hasOwnProperty.call(out, tool)) out[tool] = h;
  for (const tool of [...tools].sort()) if (!Object.prototype.hasOwnProperty.call(out, tool)) missing.push(tool);
  if (missing.length > 0 || extra.length > 0) throw new HandlerSetError(name, missing.sort(), extra.sort(), tools);
  return Object.freeze(out);
}

/** The handler of a per-release set for one release, own properties only. */
export function ownHandler(set: PerReleaseHandlers, release: string): ToolHandler<any, any, any> | undefined {
  const h = Object.prototype.hasOwnProperty.call(set, release) ? set[release] : undefined;
  return typeof h === 'function' ? h : undefined;
}

/**
 * A handler set that does not match its profile, said in one line a team can act on: which handlers to write, which
 * to remove (with the profile's closest tool name for a misspelt one). Its `stack` is that line alone: it is the
 * team's set, not the runtime, that is wrong, and a start that fails on it should not print the runtime's frames.
 */
export class HandlerSetError extends Error {
  constructor(profile: string, missing: readonly string[], extra: readonly string[], tools: ReadonlySet<string>) {
    const fixes = [
      ...(missing.length > 0 ? [`write a handler for ${missing.join(', ')}`] : []),
      ...extra.map((e) => {
        const perRelease = / \(AdCP (.*)\)$/.exec(e);
        if (perRelease !== null) return `remove the AdCP ${perRelease[1]} handler of ${e.slice(0, perRelease.index)}, a release that does not serve it`;
        return `remove the handler of ${e}, not a tool profile ${profile} serves${didYouMean(e, tools)}`;
      }),
    ];
    super(`adcp-codegen: the handlers do not match profile ${profile}: ${fixes.join('; ')} (to serve another tool, add it to the profile's tools and regenerate)`);
    this.name = 'HandlerSetError';
    this.stack = `${this.name}: ${this.message}`;
  }
}

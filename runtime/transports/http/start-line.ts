import type { Agent } from '../../api/agent-types.js';
import type { HttpHandler } from '../../api/http-types.js';
import type { RuntimeLog } from '../../ops/log.js';
import { A2A_PATH, MCP_PATH } from '../../wire/paths.js';

/**
 * The line an agent starts with, from agent.serve once it listens: the runtime's own, so that what it says is what
 * runs — the profile and mode, the releases and how many tools, each transport at its URL (A2A only when the entry
 * really serves it), where the store is (PostgreSQL's host and database, never a password; the SQLite directory),
 * and how callers authenticate. One `info` line of the agent's log (event `listening`), its fields the same facts.
 */

/** What the entry decided when it was made, which only it knows: whether it serves A2A, how callers authenticate. */
export interface EntryFacts {
  readonly a2a: boolean;
  /** `none`, or the schemes a 401 offers (`Bearer`, `Bearer, Basic`), with `RFC 9421 signatures` when verified. */
  readonly authentication: string;
}

const facts = new WeakMap<HttpHandler, EntryFacts>();

/** Recorded by the entry (transports/http/entry.ts) for the handler it made. */
export function noteEntry(handler: HttpHandler, entry: EntryFacts): HttpHandler {
  facts.set(handler, entry);
  return handler;
}

export function announceStart(agent: Pick<Agent, 'name' | 'mode' | 'releases' | 'tools'>, handler: HttpHandler, base: string, where: string, log: RuntimeLog): void {
  const entry = facts.get(handler) ?? { a2a: false, authentication: 'unknown' };
  const tools = new Set(agent.releases.flatMap((r) => agent.tools(r))).size;
  const mcp = `${base}${MCP_PATH}`;
  const a2a = entry.a2a ? `${base}${A2A_PATH}` : null;
  const transports = a2a === null ? `MCP at ${mcp} (no A2A)` : `MCP at ${mcp} and A2A at ${a2a}`;
  log.info(
    'listening',
    `adcp-codegen: ${agent.name} (${agent.mode}) serving ${transports} — AdCP ${agent.releases.join(' + ')}, ${tools} tools; store: ${where}; authentication: ${entry.authentication}`,
    { profile: agent.name, mode: agent.mode, releases: agent.releases, tools, mcp, a2a, store: where, authentication: entry.authentication },
  );
}

import { agentRequire } from './agent-require.js';

/**
 * The agent's own npm packages the runtime builds on (the MCP SDK, pg, better-sqlite3, canonicalize …), resolved
 * when first needed — an agent that never serves MCP need not install the SDK — from the directory holding the
 * generated set, never from inside it: a set is committed and reviewed as generated output, and a `node_modules`
 * planted in it would otherwise decide what runs (issue 20; `--check` names such a directory too).
 */
export function agentPackage<T>(name: string, purpose: string): T {
  try {
    return agentRequire()(name) as T;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((e as Error).message).includes(name)) {
      const pkg = name.startsWith('@') ? name.split('/').slice(0, 2).join('/') : name.split('/')[0]!;
      throw new Error(`adcp-codegen: ${purpose} needs the npm package ${pkg} among the agent's dependencies (npm install ${pkg})`);
    }
    throw e;
  }
}

/** Where a package resolves from: the generated set's parent directory (the agent's repository). */
export function agentPackagePath(name: string): string {
  return agentRequire().resolve(name);
}


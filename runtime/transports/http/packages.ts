import { createRequire } from 'node:module';

/**
 * `require` for the agent's own packages (@modelcontextprotocol/sdk, @a2a-js/sdk): resolved from the directory that
 * holds the generated set, never from inside it, as transports/mcp.ts does (a `node_modules` planted in a committed
 * set must not shadow the agent's SDK). In the set's bundle every runtime module's `import.meta.url` is the set's
 * `index.js`, so `../` is that directory.
 */
export function agentRequire(): ReturnType<typeof createRequire> {
  return createRequire(new URL('../', import.meta.url));
}

/** Whether `error` is the resolution failure of `specifier` itself (not of something it requires). */
export function isMissing(error: unknown, specifier: string): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e !== null && typeof e === 'object' && e.code === 'MODULE_NOT_FOUND' && typeof e.message === 'string' && e.message.includes(`'${specifier}'`);
}

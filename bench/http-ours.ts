import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CREATE_MEDIA_BUY_RESPONSE, getProductsHandler } from './http-bodies.js';

/**
 * How bench/http starts OUR server, the one place that knows: the committed generated set's guaranteed-publisher
 * profile (AdCP 3.0.6, production mode) served by the example `examples/serve-mcp.js` (stateless Streamable HTTP, a
 * fresh McpServer per POST, no authentication, no idempotency store: the bearer key the load generator sends is
 * ignored). It will switch to the product's own HTTP entry, `agent.serve()` (authentication and idempotency built in),
 * when that lands; the rest of the bench only sees `{ url, close }`.
 */
export async function startOurs(): Promise<{ url: string; close(): Promise<void> }> {
  const root = repoRoot();
  const { loadProfile } = (await import(pathToFileURL(join(root, 'generated/index.js')).href)) as {
    loadProfile(name: string, options: { mode: 'production' | 'development' }): Promise<OurAgent>;
  };
  const { serveMcp } = (await import(pathToFileURL(join(root, 'examples/serve-mcp.js')).href)) as {
    serveMcp(agent: OurAgent, handlers: Record<string, (args: { brief?: unknown }) => unknown>, options: { port: number }): Promise<{ url: string; close(): Promise<void> }>;
  };
  const agent = await loadProfile('guaranteed-publisher', { mode: 'production' });
  // A handler for every tool the profile serves (get_adcp_capabilities is served from the profile); only get_products
  // and create_media_buy are called.
  const handlers: Record<string, (args: { brief?: unknown }) => unknown> = {};
  for (const tool of agent.tools()) {
    if (tool === 'get_adcp_capabilities') continue;
    handlers[tool] = tool === 'get_products' ? getProductsHandler : tool === 'create_media_buy' ? () => CREATE_MEDIA_BUY_RESPONSE : () => ({});
  }
  return serveMcp(agent, handlers, { port: 0 });
}

interface OurAgent {
  tools(): readonly string[];
}

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

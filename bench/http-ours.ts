import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generate } from '../generator/index.js';
import { silentLogger } from '../generator/shared/index.js';
import { API_KEY, createMediaBuyHandler, getProductsHandler, PRINCIPAL } from './http-bodies.js';

/**
 * How bench/http starts OUR server, the one place that knows: the guaranteed-publisher profile (AdCP 3.0.6,
 * production mode) on the product's own HTTP entry, `agent.serve()`, in one of three set-ups:
 *
 * - `ours`: the committed set, authentication on (`apiKeyAuth`, the key the load generator sends) and idempotency on
 *   the embedded store (SQLite in a fresh state directory, `synchronous = FULL`): what a deployment runs with no
 *   database server; the peer comparison uses it.
 * - `ours-pg`: the same with `DATABASE_URL` (the bench's own PostgreSQL server on loopback).
 * - `ours-bare`: neither: no authenticator, and a set generated from the same profile declaring no replay window
 *   (`adcp.idempotency.supported: false`, ADCP_BENCH_BARE_SET), so no store is ever opened: the baseline of a
 *   call's added cost for authentication plus idempotency.
 */
export type Variant = 'ours' | 'ours-pg' | 'ours-bare';

/** `logger`: AgentOptions.logger (bench/observe's, whose level it switches); the runtime's default otherwise. */
export async function startOurs(variant: Variant = 'ours', options: { logger?: unknown } = {}): Promise<{ url: string; close(): Promise<void> }> {
  const root = repoRoot();
  const setDir = variant === 'ours-bare' ? join(process.env.ADCP_BENCH_BARE_SET!, 'generated') : join(root, 'generated');
  const set = (await import(pathToFileURL(join(setDir, 'index.js')).href)) as {
    loadProfile(name: string, options: Record<string, unknown>): Promise<OurAgent>;
    apiKeyAuth(keys: Record<string, { principal: string }>): unknown;
  };
  const stateDir = variant === 'ours' ? mkdtempSync(join(tmpdir(), 'adcp-bench-state-')) : undefined;
  if (stateDir !== undefined) process.env.ADCP_STATE_DIR = stateDir;
  // The insert budgets (60 new keys a second per account by default, security.mdx rule 8) are raised: the load
  // generator mints thousands a second for one account, and the peer keeps none.
  const unlimited = { sustainedPerSecond: 1e9, burstPerSecond: 1e9 };
  const agent = await set.loadProfile('guaranteed-publisher', { mode: 'production', idempotency: { writes: unlimited, reads: unlimited }, ...options });
  // A handler for every tool the profile serves (get_adcp_capabilities is the runtime's); only get_products and
  // create_media_buy are called.
  const handlers: Record<string, (args: { brief?: unknown }) => unknown> = {};
  for (const tool of agent.tools()) {
    if (tool === 'get_adcp_capabilities') continue;
    handlers[tool] = tool === 'get_products' ? getProductsHandler : tool === 'create_media_buy' ? createMediaBuyHandler : () => ({});
  }
  const authenticate = variant === 'ours-bare' ? undefined : set.apiKeyAuth({ [API_KEY]: { principal: PRINCIPAL } });
  // No warning for the bare server: it is unauthenticated on purpose, for the baseline.
  if (variant === 'ours-bare') process.removeAllListeners('warning');
  const served = await agent.serve(handlers, { port: 0, authenticate });
  return {
    url: served.url,
    close: async () => {
      await served.close();
      if (stateDir !== undefined) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * The bare set: the guaranteed-publisher profile declaring no replay window, generated once into `out` (the bench's
 * run, before any server starts).
 */
export async function generateBareSet(out: string): Promise<void> {
  const root = repoRoot();
  const profile = JSON.parse(readFileSync(join(root, 'schemas/profiles/guaranteed-publisher.json'), 'utf8')) as { capabilities: { adcp: Record<string, unknown> } };
  profile.capabilities.adcp.idempotency = { supported: false };
  mkdirSync(join(out, 'profiles'), { recursive: true });
  writeFileSync(join(out, 'profiles/guaranteed-publisher.json'), JSON.stringify(profile));
  // An agent's repository: its dependencies beside the set (the runtime resolves the MCP SDK from there).
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
  writeFileSync(join(out, 'package.json'), JSON.stringify({ name: 'bench-bare', private: true, type: 'module' }));
  const config = {
    releases: [join(root, 'node_modules/@adcp/sdk/dist/lib/schemas-data/3.0')],
    profiles: ['profiles/guaranteed-publisher.json'],
    normalizations: [join(root, 'schemas/normalizations/*.json')],
    overlays: [join(root, 'schemas/overlays/*.json')],
    out: 'generated',
  };
  writeFileSync(join(out, 'adcp-codegen.config.json'), JSON.stringify(config));
  await generate({ config: join(out, 'adcp-codegen.config.json'), logger: silentLogger });
}

interface OurAgent {
  tools(): readonly string[];
  serve(handlers: unknown, options: Record<string, unknown>): Promise<{ url: string; close(): Promise<void> }>;
}

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

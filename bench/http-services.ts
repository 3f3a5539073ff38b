import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../test/helpers/postgres.js';
import { CREATE_MEDIA_BUY_REQUEST, GET_PRODUCTS_REQUEST, idempotencyKey } from './http-bodies.js';
import { load, toolsCall } from './http-load.js';
import { generateBareSet } from './http-ours.js';
import { startServer, type ServerChild } from './http-spawn.js';
import { median } from './stats.js';

/**
 * What authentication plus idempotency add to a call, on each store, measured over real HTTP in one run: the same
 * agent on the product's entry without them (`ours-bare`: no authenticator, a profile declaring no replay window)
 * against it with apiKeyAuth and idempotency on the embedded store (SQLite, a commit on disk before the answer) and
 * on a PostgreSQL server on loopback. Interleaved rounds, medians; each figure is the with ÷ without ratio of
 * requests per second (below 1: the services' cost).
 */
const ROUNDS = 5;
const ROUND_MS = 500;
const WARM_MS = 2500;

export async function addedCost(): Promise<string[]> {
  const bare = mkdtempSync(join(tmpdir(), 'adcp-bench-bare-'));
  const pg = await startPostgres({ name: 'bench' });
  const servers: ServerChild[] = [];
  try {
    await generateBareSet(bare);
    const setups = [
      { name: 'without (no authenticator, no replay window)', server: await startServer('ours', [], 'ours-bare', { ADCP_BENCH_BARE_SET: bare }) },
      { name: 'embedded store', server: await startServer('ours', [], 'ours') },
      { name: 'PostgreSQL', server: await startServer('ours', [], 'ours-pg', { DATABASE_URL: pg.url }) },
    ];
    servers.push(...setups.map((s) => s.server));
    let id = 0;
    let key = 1_000_000;
    const calls = {
      create_media_buy: () => {
        const n = ++id;
        return { id: n, body: toolsCall(n, 'create_media_buy', { ...CREATE_MEDIA_BUY_REQUEST, idempotency_key: idempotencyKey(key++) }) };
      },
      get_products: () => {
        const n = ++id;
        return { id: n, body: toolsCall(n, 'get_products', GET_PRODUCTS_REQUEST) };
      },
    };
    for (const s of setups) for (const next of Object.values(calls)) await load(s.server.url, 16, WARM_MS / 2, next);
    const lines = [`a call's added cost for authentication (apiKeyAuth) plus idempotency, with ÷ without, ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s, medians:`];
    for (const [tool, next] of Object.entries(calls)) {
      for (const concurrency of [1, 16]) {
        const rps = setups.map(() => [] as number[]);
        for (let r = 0; r < ROUNDS; r++) {
          const order = r % 2 === 0 ? setups.map((_, i) => i) : setups.map((_, i) => setups.length - 1 - i);
          for (const i of order) {
            const result = await load(setups[i]!.server.url, concurrency, ROUND_MS, next);
            rps[i]!.push(result.requests / result.seconds);
          }
        }
        const m = rps.map(median);
        lines.push(
          `  ${tool} c=${concurrency}${tool === 'get_products' ? ' (a read: authentication only)' : ''}: without ${Math.round(m[0]!)} req/s; ` +
            `embedded ${Math.round(m[1]!)} req/s (${(m[1]! / m[0]!).toFixed(2)}x); PostgreSQL ${Math.round(m[2]!)} req/s (${(m[2]! / m[0]!).toFixed(2)}x)`,
        );
      }
    }
    return lines;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await pg.stop();
    rmSync(bare, { recursive: true, force: true });
  }
}

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMediaBuyRequest } from '../test/helpers/payloads.js';
import { repoRoot } from '../test/helpers/releases.js';
import { median } from './stats.js';

/**
 * Issue 6: end to end, `agent.call` on the generated set against @adcp/sdk's `createAdcpServer(...).invoke`, both
 * in development mode (requests and responses validated) on the same create_media_buy, in one run: cold (a new
 * process, first call, net of node's own start) and warm (calls per second).
 */
const ARGS = createMediaBuyRequest();
const RESULT = { media_buy_id: 'mb_1', packages: [{ package_id: 'p1' }], confirmed_at: '2026-12-02T10:00:00Z', revision: 1 };
const WARM_CALLS = 3000;

const generated = pathToFileURL(join(repoRoot, 'generated/index.js')).href;

/** Each script prints `{ first, warm }`: ms from the script's first line (node's own start left out) to the first answer, and warm calls per second. */
const ours = `
const t0 = performance.now();
const { loadProfile } = await import(${JSON.stringify(generated)});
const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
const args = ${JSON.stringify(ARGS)};
const handler = () => (${JSON.stringify(RESULT)});
const r = await agent.call('create_media_buy', args, handler);
if (r.isError) throw new Error(r.content[0].text);
const first = performance.now() - t0;
const t = performance.now();
for (let i = 0; i < ${WARM_CALLS}; i++) await agent.call('create_media_buy', { ...args, idempotency_key: 'c0ffee00-0000-4000-8000-' + String(i).padStart(12, '0') }, handler);
console.log(JSON.stringify({ first, warm: ${WARM_CALLS} / ((performance.now() - t) / 1000) }));
`;

const sdk = `
const t0 = performance.now();
const { createAdcpServer } = await import('@adcp/sdk/server/legacy/v5');
const server = createAdcpServer({
  name: 'bench', version: '1.0.0',
  validation: { requests: 'strict', responses: 'strict' },
  mediaBuy: { createMediaBuy: async () => (${JSON.stringify(RESULT)}) },
});
const args = ${JSON.stringify(ARGS)};
const r = await server.invoke({ toolName: 'create_media_buy', args });
if (r.isError) throw new Error(JSON.stringify(r));
const first = performance.now() - t0;
const t = performance.now();
for (let i = 0; i < ${WARM_CALLS}; i++) await server.invoke({ toolName: 'create_media_buy', args: { ...args, idempotency_key: 'c0ffee00-0000-4000-8000-' + String(i).padStart(12, '0') } });
console.log(JSON.stringify({ first, warm: ${WARM_CALLS} / ((performance.now() - t) / 1000) }));
`;

function measure(script: string): { first: number; warm: number } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'development' },
  });
  if (r.status !== 0) throw new Error(`bench/call: child failed: ${r.stderr}`);
  const line = r.stdout.trim().split('\n').pop()!;
  return JSON.parse(line) as { first: number; warm: number };
}

export async function run(): Promise<string[]> {
  const runs = 3;
  // Prime the generated set's V8 code cache once, as any deployed agent's first start would.
  measure(ours);
  // Interleaved, so both sides see the same machine load; each child times itself from its first line (node's own
  // start, and its noise, left out).
  const a: { first: number; warm: number }[] = [];
  const b: { first: number; warm: number }[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(measure(ours));
    b.push(measure(sdk));
  }
  const coldOurs = median(a.map((x) => x.first));
  const coldSdk = median(b.map((x) => x.first));
  const warmOurs = median(a.map((x) => x.warm));
  const warmSdk = median(b.map((x) => x.warm));
  return [
    `cold, new process from the script's first line to the first validated create_media_buy (development): agent.call ${coldOurs.toFixed(1)} ms; @adcp/sdk createAdcpServer().invoke ${coldSdk.toFixed(1)} ms → ${(coldSdk / coldOurs).toFixed(1)}× faster`,
    `warm, create_media_buy calls/second (development, ${WARM_CALLS} calls): agent.call ${warmOurs.toFixed(0)}/s; @adcp/sdk ${warmSdk.toFixed(0)}/s → ${(warmOurs / warmSdk).toFixed(2)}×`,
  ];
}

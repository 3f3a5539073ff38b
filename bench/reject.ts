import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMediaBuyRequest } from '../test/helpers/payloads.js';
import { repoRoot } from '../test/helpers/releases.js';

/**
 * Issue 20, point 5: what a request with 1e5 and 1e6 unknown fields in a closed object (create_media_buy's `brand`,
 * core/brand-ref.json in 3.0.6) costs the agent, in each mode. Development rejects it (before the bound: a 76 MB
 * reply for 1e5, 367 MB and 945 MB of RSS for 1e6), production strips the fields and serves it. Each case runs in
 * a fresh process so its peak RSS is its own; the baselines are the request itself (its JSON size for the reply,
 * the process's peak with the request built for memory).
 */
const generated = pathToFileURL(join(repoRoot, 'generated/index.js')).href;
const BASE = createMediaBuyRequest({ context: { correlation_id: 'flood' } });

const script = (mode: string, n: number): string => `
const { loadProfile } = await import(${JSON.stringify(generated)});
const agent = await loadProfile('guaranteed-publisher', { mode: ${JSON.stringify(mode)} });
const handler = () => ({ media_buy_id: 'mb_1', packages: [], confirmed_at: '2026-12-02T10:00:00Z', revision: 1 });
const base = ${JSON.stringify(BASE)};
// Warm: the tool's artifacts loaded, so the measured call is the flood alone.
await agent.call('create_media_buy', base, handler);
const brand = { domain: 'acme.example' };
for (let i = 0; i < ${n}; i++) brand['unknown_' + i] = i;
const args = { ...base, brand };
const request = Buffer.byteLength(JSON.stringify(args));
globalThis.gc?.();
const before = process.resourceUsage().maxRSS * 1024;
const t = performance.now();
const result = await agent.call('create_media_buy', args, handler);
const ms = performance.now() - t;
const reply = Buffer.byteLength(JSON.stringify(result));
const peak = process.resourceUsage().maxRSS * 1024;
const error = result.structuredContent?.adcp_error;
console.log(JSON.stringify({ request, reply, before, peak, ms, rejected: result.isError === true, issues: error?.issues?.length ?? 0, omitted: error?.details?.issues_omitted ?? 0 }));
`;

interface Figures {
  request: number;
  reply: number;
  before: number;
  peak: number;
  ms: number;
  rejected: boolean;
  issues: number;
  omitted: number;
}

function measure(mode: string, n: number): Figures {
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script(mode, n)], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`bench/reject: child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Figures;
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

export async function run(): Promise<string[]> {
  const lines: string[] = [];
  for (const n of [100_000, 1_000_000]) {
    for (const mode of ['development', 'production']) {
      const f = measure(mode, n);
      const answer = f.rejected ? `rejected with ${f.issues} issues + ${f.omitted} counted` : 'served (fields stripped)';
      lines.push(
        `${n.toExponential(0)} unknown fields, ${mode}: ${answer}; reply ${kb(f.reply)} for a ${mb(f.request)} request (${(f.reply / f.request).toFixed(4)}× the request); ` +
          `peak RSS ${mb(f.peak)}, ${(f.peak / f.before).toFixed(2)}× the process's peak with the request built (+${mb(Math.max(0, f.peak - f.before))}); ${f.ms.toFixed(0)} ms`,
      );
    }
  }
  return lines;
}

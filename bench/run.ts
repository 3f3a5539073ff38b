import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm run bench`: every figure as a ratio against a baseline measured in this same run (these machines are noisy;
 * absolute times mean little, ratios travel). Each bench/<area>.ts exports `run(): Promise<string[]>`.
 */
const AREAS = ['validators', 'issues', 'strip', 'normalize', 'convert', 'project', 'advertise', 'generate', 'call', 'reject', 'cold-start', 'http', 'observe', 'outbox', 'signing'] as const;

// Agents the benches load keep their protocol state (idempotency keys, tasks) in a directory of this run's own, never
// in the user's default state directory or a database the environment names.
process.env.ADCP_STATE_DIR = mkdtempSync(join(tmpdir(), 'adcp-bench-state-'));
delete process.env.DATABASE_URL;
// Agents log nothing in the benches (their figures stay comparable with earlier runs and with the peer's silent
// default logger); bench/observe measures what the log and the traces cost, each set-up setting its own level.
process.env.ADCP_LOG_LEVEL = 'silent';
process.on('exit', () => rmSync(process.env.ADCP_STATE_DIR!, { recursive: true, force: true }));

const only = process.argv.slice(2);
for (const area of AREAS) {
  if (only.length > 0 && !only.includes(area)) continue;
  let mod: { run: () => Promise<string[]> };
  try {
    mod = (await import(`./${area}.js`)) as { run: () => Promise<string[]> };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') continue;
    throw e;
  }
  console.log(`\n## ${area}`);
  const started = Date.now();
  for (const line of await mod.run()) console.log(line);
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

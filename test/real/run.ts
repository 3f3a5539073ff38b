import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../helpers/releases.js';
import { userCacheDir } from '../helpers/temp.js';

/**
 * `npm run test:real`: the real-release suite as uvu runs side by side over the one build — AdCP's grader
 * (grader.test.js, five to six minutes on two cores, most of it the grader's own processes and their waits on the sellers) beside
 * every other real test file, each file a run of its own in a pool as wide as the machine's cores. One process for
 * all the other files left a core idle once the grader ended (a third of the suite's wall time on two cores); most
 * of their cost is each file's own generation, which no file shares. Every run's output is held and printed when it
 * ends, so none interleaves with another. Exits non-zero when any run fails.
 */
const dir = dirname(fileURLToPath(import.meta.url));
// uvu's package exports neither its bin nor its package.json: its bin by path, from the repository's node_modules.
const uvu = join(repoRoot, 'node_modules/uvu/bin.js');

interface Run {
  readonly code: number;
  readonly output: string;
}

function runUvu(args: string[], held: boolean): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [uvu, dir, ...args], { stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    let output = '';
    if (held) {
      child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    }
    child.on('close', (code, signal) => resolve({ code: code ?? (signal !== null ? 1 : 0), output }));
  });
}

/** One uvu run per file, at most `width` at a time, each printed as it ends. */
async function pool(files: readonly string[], width: number): Promise<Run[]> {
  const queue = [...files];
  const runs: Run[] = [];
  const slot = async (): Promise<void> => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const run = await runUvu([`^${file.replace(/\./g, '\\.')}$`], true);
      process.stdout.write(run.output);
      runs.push(run);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, files.length)) }, slot));
  return runs;
}

// Every run shares this run's private cache, as the files did when one process ran them all.
process.env.ADCP_TEST_USER_CACHE = userCacheDir;

const only = process.argv.slice(2);
if (only.length > 0) {
  // `npm run test:real -- <pattern>`: one run of the files matching the pattern, as uvu takes it.
  process.exitCode = (await runUvu(only, false)).code;
} else {
  const GRADER = 'grader.test.js';
  const rest = readdirSync(dir).filter((f) => f.endsWith('.test.js') && f !== GRADER).sort();
  const [grader, others] = await Promise.all([runUvu([`^${GRADER.replace(/\./g, '\\.')}$`], true), pool(rest, availableParallelism())]);
  process.stdout.write(grader.output);
  process.exitCode = [grader, ...others].some((r) => r.code !== 0) ? 1 : 0;
}

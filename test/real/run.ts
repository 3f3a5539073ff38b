import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../helpers/releases.js';

/**
 * `npm run test:real`: the real-release suite as two uvu runs side by side — AdCP's grader (grader.test.js, about
 * three minutes, most of it the grader's own processes and their waits on the sellers) and every other real test —
 * over the one build. One after the other they took twice as long on a two-core machine. The other tests print as
 * they run; the grader's output is held and printed when it ends, so neither interleaves with the other. Exits
 * non-zero when either run fails.
 */
const dir = dirname(fileURLToPath(import.meta.url));
// uvu's package exports neither its bin nor its package.json: its bin by path, from the repository's node_modules.
const uvu = join(repoRoot, 'node_modules/uvu/bin.js');

function runUvu(args: string[], held: boolean): Promise<{ code: number; output: string }> {
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

const only = process.argv.slice(2);
if (only.length > 0) {
  // `npm run test:real -- <pattern>`: one run of the files matching the pattern, as uvu takes it.
  process.exitCode = (await runUvu(only, false)).code;
} else {
  const [grader, rest] = await Promise.all([runUvu(['^grader\\.test\\.js$'], true), runUvu(['\\.test\\.js$', '--ignore', 'grader'], false)]);
  process.stdout.write(grader.output);
  process.exitCode = grader.code !== 0 || rest.code !== 0 ? 1 : 0;
}

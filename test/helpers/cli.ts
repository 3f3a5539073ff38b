import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../../generator/cli.js';
import { sha256 } from '../../generator/shared/index.js';
import { listFiles } from '../../generator/write/index.js';

export interface CliRun {
  code: number;
  stderr: string;
  stdout: string;
}

/**
 * Runs the CLI in-process with captured, non-TTY streams. By default on the main thread (ADCP_CODEGEN_HEAP_MB=0):
 * the suite runs some fifty generations in one process, and a worker per run would load and warm the generator
 * fifty times over (~2.5 s each). `heapMb` runs it as users do, in the budgeted worker (test/generate-worker.test.ts).
 */
export async function runCli(args: string[], cwd?: string, heapMb = '0'): Promise<CliRun> {
  let stderr = '';
  let stdout = '';
  const err = new Writable({ write: (c, _e, cb) => ((stderr += String(c)), cb()) });
  const out = new Writable({ write: (c, _e, cb) => ((stdout += String(c)), cb()) });
  const previous = process.cwd();
  const previousHeap = process.env.ADCP_CODEGEN_HEAP_MB;
  if (cwd !== undefined) process.chdir(cwd);
  process.env.ADCP_CODEGEN_HEAP_MB = heapMb;
  try {
    const code = await main(args, err, out);
    return { code, stderr, stdout };
  } finally {
    process.chdir(previous);
    if (previousHeap === undefined) delete process.env.ADCP_CODEGEN_HEAP_MB;
    else process.env.ADCP_CODEGEN_HEAP_MB = previousHeap;
  }
}

/** Path → sha256 of every file under `dir` (the runtime's .cache excluded): equal snapshots mean untouched output. */
export function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((p) => [p, sha256(readFileSync(join(dir, p)))]));
}

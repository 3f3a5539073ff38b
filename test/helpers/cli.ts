import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../../generator/cli.js';
import { listFiles } from '../../generator/write/index.js';

export interface CliRun {
  code: number;
  stderr: string;
  stdout: string;
}

/** Runs the CLI in-process with captured, non-TTY streams. */
export async function runCli(args: string[], cwd?: string): Promise<CliRun> {
  let stderr = '';
  let stdout = '';
  const err = new Writable({ write: (c, _e, cb) => ((stderr += String(c)), cb()) });
  const out = new Writable({ write: (c, _e, cb) => ((stdout += String(c)), cb()) });
  const previous = process.cwd();
  if (cwd !== undefined) process.chdir(cwd);
  try {
    const code = await main(args, err, out);
    return { code, stderr, stdout };
  } finally {
    process.chdir(previous);
  }
}

/** Path → sha256 of every file under `dir` (the runtime's .cache excluded): equal snapshots mean untouched output. */
export function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((p) => [p, createHash('sha256').update(readFileSync(join(dir, p))).digest('hex')]));
}

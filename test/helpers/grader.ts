import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { tempDir } from './temp.js';

/**
 * AdCP's own grader (`@adcp/sdk` 14.0.0-beta.7 with the 3.2.0-beta.5 storyboards, ../shared/adcp-grader) installed
 * once per test run into a temporary directory by its own install.sh, and run as a CLI. Every run gets a TMPDIR of
 * its own inside the run's scratch directory, so whatever the grader leaves in temp is removed with it.
 */

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time. */
  ms: number;
  /** CPU time of the command and its children (user + system), as bash's `time` reports it; NaN if it did not. */
  cpuMs: number;
}

const CPU_MARK = '@@adcp-codegen-cpu';

/**
 * Runs a command to its end (or kills it after `timeoutMs`), capturing its output and measuring its wall and CPU
 * time (through bash's `time`, which the grader's installer needs anyway): on a shared machine the CPU time is the
 * figure that says what a run costs.
 */
export function run(command: string, args: readonly string[], options: { cwd?: string; timeoutMs: number; env?: Record<string, string> }): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const env = { ...process.env, TMPDIR: tempDir('adcp-grader-tmp-'), NO_COLOR: '1', FORCE_COLOR: '0', TIMEFORMAT: `\n${CPU_MARK} %U %S`, ...options.env };
    const child = spawn('bash', ['-c', 'time "$@"', 'bash', command, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const mark = stderr.lastIndexOf(`\n${CPU_MARK} `);
      const [user, system] = mark < 0 ? [NaN, NaN] : stderr.slice(mark + CPU_MARK.length + 2).trim().split(/\s+/).map(Number);
      resolve({ code, stdout, stderr: mark < 0 ? stderr : stderr.slice(0, mark), ms: performance.now() - started, cpuMs: ((user ?? NaN) + (system ?? NaN)) * 1000 });
    });
  });
}

let installed: Promise<string> | undefined;

/** The grader's `adcp` binary, installed on first use (about 20 s, dependencies from the npm registry). */
export function grader(graderDir: string): Promise<string> {
  installed ??= (async () => {
    const dir = tempDir('adcp-grader-');
    const r = await run('bash', [join(graderDir, 'install.sh'), dir], { timeoutMs: 5 * 60_000 });
    if (r.code !== 0) throw new Error(`installing AdCP's grader failed (${r.code}):\n${r.stderr.slice(-4000)}`);
    return join(dir, 'node_modules/.bin/adcp');
  })();
  return installed;
}

/** The JSON a `--json` / `--format json` run prints on stdout, or an error carrying what the grader said. */
export function json<T>(r: Run, what: string): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`${what}: no JSON on stdout (exit ${r.code}, ${Math.round(r.ms)} ms)\nstdout: ${r.stdout.slice(-2000)}\nstderr: ${r.stderr.slice(-4000)}`);
  }
}

/** A `storyboard run --json` result, the parts the tests read. */
export interface StoryboardResult {
  overall_status: string;
  /** `complete`, or `timed_out` when the runner's time budget (`--timeout`) ended the run before every storyboard started. */
  completeness?: string;
  controller_detected: boolean;
  storyboards_executed: string[];
  summary: { steps_passed: number; steps_failed: number; steps_skipped: number; skipped_by_reason: Record<string, number> };
  /** Absent when no step failed. */
  failures?: { storyboard_id: string; step_id: string; task?: string; error?: string; validation?: { description?: string; json_pointer?: string; check?: string } }[];
  tracks: { scenarios: { scenario: string; steps: { step: string; passed: boolean; skipped?: boolean; skip_reason?: string }[] }[] }[];
}

/** A step failure as the grader words it (its STORYBOARD-FAIL summary line). */
export function graderMessage(f: NonNullable<StoryboardResult['failures']>[number]): string {
  if (f.error !== undefined) return f.error;
  const v = f.validation;
  return `${v?.description ?? v?.check ?? 'failed'}${v?.json_pointer ? ` at ${v.json_pointer}` : ''}`;
}

/** A `fuzz --format json` result. */
export interface FuzzResult {
  schemaVersion: string;
  totalRuns: number;
  totalFailures: number;
  failures: unknown[];
  durationMs: number;
}

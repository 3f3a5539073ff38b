import { spawn, spawnSync, type ChildProcess, type Serializable } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * bench/http's server processes: each server in a child of its own (dist/bench/http-server.js), started, timed and
 * stopped from here, and its CPU read from /proc (Linux) so a figure can say what each request costs the server.
 */
export type Side = 'ours' | 'peer';
/** Which server a child runs: a side, or one of ours' other set-ups (http-ours.ts). */
export type Setup = Side | 'ours-pg' | 'ours-bare';

export interface ServerChild {
  side: Side;
  url: URL;
  child: ChildProcess;
  /** ms from spawn() to the child's "listening" line. */
  readyMs: number;
  /** spawn()'s performance.now(), for timing the first answer from the same origin. */
  spawnedAt: number;
  /** What the child has written to stderr so far. */
  stderr(): string;
  /** A question on the child's IPC channel (http-server.ts), and its answer; one at a time. */
  ask<T>(message: Serializable): Promise<T>;
  /** The child's own account: its CPU so far (µs, every thread) and the spans it exported. */
  usage(): Promise<{ cpuUs: number; spans: number }>;
  stop(): Promise<void>;
}

const entry = join(dirname(fileURLToPath(import.meta.url)), 'http-server.js');
const repoRoot = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
})();

/**
 * `nodeArgs`: extra node flags (`--cpu-prof …`). The child's environment is this one's without NODE_ENV, so the
 * peer runs with its default (non-production) validation whatever the bench's own environment says.
 */
export function startServer(side: Side, nodeArgs: readonly string[] = [], setup: Setup = side, extraEnv: Record<string, string> = {}, stderrFd?: number): Promise<ServerChild> {
  const env = { ...process.env, ...extraEnv };
  delete env.NODE_ENV;
  const spawnedAt = performance.now();
  // `stderrFd`: the child's stderr goes to that file (its log, as a deployment's goes to a file or a pipe drained
  // elsewhere), not through this process.
  const child = spawn(process.execPath, [...nodeArgs, entry, setup], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', stderrFd ?? 'pipe', 'ipc'] });
  child.channel?.unref();
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const onExit = (code: number | null): void => reject(new Error(`bench/http: ${side} server exited (${code}) before listening: ${stderr.slice(0, 2000)}`));
    child.once('exit', onExit);
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const nl = stdout.indexOf('\n');
      if (nl < 0) return;
      const readyMs = performance.now() - spawnedAt;
      child.off('exit', onExit);
      child.stdout!.removeAllListeners('data');
      const { url } = JSON.parse(stdout.slice(0, nl)) as { url: string };
      const stop = (): Promise<void> =>
        new Promise((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        });
      const ask = <T>(message: Serializable): Promise<T> =>
        new Promise((answered) => {
          // The channel keeps this process alive only while an answer is awaited.
          child.channel?.ref();
          child.once('message', (m) => {
            child.channel?.unref();
            answered(m as T);
          });
          child.send(message);
        });
      const usage = () => ask<{ cpuUs: number; spans: number }>('usage');
      resolve({ side, url: new URL(url), child, readyMs, spawnedAt, stderr: () => stderr, stop, ask, usage });
    });
  });
}

const TICK_MS = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const hz = Number(r.stdout?.trim());
  return Number.isFinite(hz) && hz > 0 ? 1000 / hz : 10;
})();

/** A process's CPU so far (user + system, ms, clock-tick resolution), or undefined where /proc is not there. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return undefined;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
}

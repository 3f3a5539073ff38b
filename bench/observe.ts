import { closeSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CREATE_MEDIA_BUY_REQUEST, GET_PRODUCTS_REQUEST, idempotencyKey } from './http-bodies.js';
import { load, toolsCall } from './http-load.js';
import { processCpuMs, startServer, type ServerChild } from './http-spawn.js';
import { median } from './stats.js';

/**
 * Issue 40 point 4: what the log and the traces cost a call, over the HTTP entry at concurrency 16, in one run. The
 * same agent (bench/http's `ours`: agent.serve, apiKeyAuth, idempotency on the embedded store) in four server
 * children: everything off (ADCP_LOG_LEVEL=silent, no OTel provider); logging on (pino's JSON line per call, at
 * info, to a file, as a deployment's stderr goes to a file or a pipe); tracing and metrics on (the OTel SDK
 * registered, its batching span processor and periodic metric reader with exporters that drop: otel-setup.ts); both.
 * Interleaved rounds, the order rotating; figures are the server's CPU per call (from /proc) and throughput, each
 * on ÷ off paired within a round, medians [min–max]. Goal: at most 1.05 (5%).
 */
const ROUNDS = 7;
const ROUND_MS = 600;
const WARM_MS = 2_000;
const CONCURRENCY = 16;

interface Setup {
  readonly name: string;
  readonly env: Record<string, string>;
}

const SETUPS: readonly Setup[] = [
  { name: 'off', env: { ADCP_LOG_LEVEL: 'silent' } },
  { name: 'logging', env: { ADCP_LOG_LEVEL: 'info' } },
  { name: 'tracing + metrics', env: { ADCP_LOG_LEVEL: 'silent', ADCP_BENCH_OTEL: '1' } },
  { name: 'logging + tracing + metrics', env: { ADCP_LOG_LEVEL: 'info', ADCP_BENCH_OTEL: '1' } },
];

export async function run(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'adcp-bench-observe-'));
  const logs = SETUPS.map((_, i) => join(dir, `server-${i}.log`));
  const fds = logs.map((f) => openSync(f, 'a'));
  const servers: ServerChild[] = [];
  try {
    for (let i = 0; i < SETUPS.length; i++) servers.push(await startServer('ours', [], 'ours', SETUPS[i]!.env, fds[i]));
    let id = 0;
    let key = 2_000_000;
    const tools = {
      get_products: () => {
        const n = ++id;
        return { id: n, body: toolsCall(n, 'get_products', GET_PRODUCTS_REQUEST) };
      },
      create_media_buy: () => {
        const n = ++id;
        return { id: n, body: toolsCall(n, 'create_media_buy', { ...CREATE_MEDIA_BUY_REQUEST, idempotency_key: idempotencyKey(key++) }) };
      },
    };
    for (const s of servers) for (const next of Object.values(tools)) await load(s.url, CONCURRENCY, WARM_MS / 2, next);
    const lines = [
      `what logging and tracing cost a call over the HTTP entry, c=${CONCURRENCY}, on ÷ off: server CPU per call (/proc) and throughput, ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s, ` +
        `paired within each round, median [min–max] (goal ≤ 1.05); logging: pino's line per call to a file; tracing: the OTel SDK, spans per call and per stage, call metrics, exporters dropping:`,
    ];
    for (const [tool, next] of Object.entries(tools)) {
      const cpu = SETUPS.map(() => [] as number[]);
      const rps = SETUPS.map(() => [] as number[]);
      for (let r = 0; r < ROUNDS; r++) {
        for (let k = 0; k < SETUPS.length; k++) {
          const i = (k + r) % SETUPS.length;
          const server = servers[i]!;
          const before = processCpuMs(server.child.pid);
          const result = await load(server.url, CONCURRENCY, ROUND_MS, next);
          const after = processCpuMs(server.child.pid);
          cpu[i]!.push(before === undefined || after === undefined ? NaN : (after - before) / result.requests);
          rps[i]!.push(result.requests / result.seconds);
        }
      }
      lines.push(`  ${tool}: off ${Math.round(median(rps[0]!))} req/s, ${(median(cpu[0]!) * 1000).toFixed(0)} µs server CPU per call`);
      for (let i = 1; i < SETUPS.length; i++) {
        const cpuRatio = cpu[i]!.map((c, r) => c / cpu[0]![r]!);
        const rpsRatio = rps[0]!.map((o, r) => o / rps[i]![r]!);
        lines.push(`    ${SETUPS[i]!.name}: CPU per call ${stats(cpuRatio)}, throughput off ÷ on ${stats(rpsRatio)}`);
      }
    }
    const written = statSync(logs[1]!).size;
    lines.push(`  (the logging server wrote ${(written / 1e6).toFixed(1)} MB of JSON lines; the silent one ${statSync(logs[0]!).size} bytes)`);
    return lines;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    for (const fd of fds) closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}

function stats(xs: readonly number[]): string {
  return `${median(xs).toFixed(3)} [${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}]`;
}

/**
 * bench/http's server child: `node dist/bench/http-server.js ours|ours-pg|ours-bare|peer` starts that server in this process (so the
 * load generator's CPU is never in the server's process), writes one line `{"url":…}` to stdout once it listens, and
 * serves until killed. Each side imports only its own stack. On its IPC channel it answers `usage` with its own CPU
 * so far (process.cpuUsage: every thread, to the microsecond) and the spans it exported; with ADCP_BENCH_OBSERVE=1
 * (bench/observe) it also takes `{ observe }` (what logs and what traces, otel-setup.ts) and `settle`.
 */
import type { Observer, Observing } from './otel-setup.js';

const side = process.argv[2];
const observer: Observer | undefined = process.env.ADCP_BENCH_OBSERVE === '1' ? (await import('./otel-setup.js')).observer('guaranteed-publisher') : undefined;
process.on('message', (m: 'usage' | 'settle' | { observe: Observing }) => {
  const answer = (a: Record<string, unknown>): void => void process.send?.(a);
  if (m === 'usage') {
    const cpu = process.cpuUsage();
    answer({ cpuUs: cpu.user + cpu.system, spans: observer?.spans() ?? 0 });
  } else if (m === 'settle') void observer?.settle().then(() => answer({ settled: true }));
  else {
    observer?.set(m.observe);
    answer({ observing: true });
  }
});
// The IPC channel alone never keeps this process alive: the server does.
process.channel?.unref();
const ours = ['ours', 'ours-pg', 'ours-bare'];
const started =
  side !== undefined && ours.includes(side)
    ? await (await import('./http-ours.js')).startOurs(side as 'ours' | 'ours-pg' | 'ours-bare', observer === undefined ? {} : { logger: observer.logger })
    : side === 'peer'
      ? await (await import('./http-peer.js')).startPeer()
      : undefined;
if (started === undefined) throw new Error(`bench/http-server: ours or peer, not ${String(side)}`);
process.stdout.write(`${JSON.stringify({ url: started.url })}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void started.close().then(() => process.exit(0)));

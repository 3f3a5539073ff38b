/**
 * bench/http's server child: `node dist/bench/http-server.js ours|ours-pg|ours-bare|peer` starts that server in this process (so the
 * load generator's CPU is never in the server's process), writes one line `{"url":…}` to stdout once it listens, and
 * serves until killed. Each side imports only its own stack.
 */
export {};

const side = process.argv[2];
// bench/observe: the OTel SDK registered before the agent starts, as an agent's instrumentation is.
if (process.env.ADCP_BENCH_OTEL === '1') (await import('./otel-setup.js')).registerOtel();
const ours = ['ours', 'ours-pg', 'ours-bare'];
const started =
  side !== undefined && ours.includes(side)
    ? await (await import('./http-ours.js')).startOurs(side as 'ours' | 'ours-pg' | 'ours-bare')
    : side === 'peer'
      ? await (await import('./http-peer.js')).startPeer()
      : undefined;
if (started === undefined) throw new Error(`bench/http-server: ours or peer, not ${String(side)}`);
process.stdout.write(`${JSON.stringify({ url: started.url })}\n`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void started.close().then(() => process.exit(0)));

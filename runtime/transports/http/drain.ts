import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { RuntimeLog } from '../../ops/log.js';
import { beforeDeadline, LATE } from '../../wire/deadline.js';

/**
 * How agent.serve stops (docs/operating.md): a drain, on `close()` and — unless the agent owns its signals
 * (`handleSignals: false`) — on SIGTERM and SIGINT, after which the process exits 0.
 *
 * 1. Readiness turns `draining` (the caller's, serve.ts), so load balancers and Kubernetes stop routing here; for
 *    `drainDelayMs` the server goes on serving as before, for those that need a probe or two to notice.
 * 2. No new connections: the listener closes; idle keep-alive sockets close now, busy ones with their answer
 *    (`Connection: close`).
 * 3. Calls in flight finish, up to `drainTimeoutMs`: each ends as a call ends, its idempotency claim completed by its
 *    answer or released. Past the deadline the remaining connections are cut (each call's `ctx.signal` aborts) and
 *    their pipelines get `CUT_GRACE_MS` to release what they hold; a claim still held then lapses at its deadline.
 * 4. The caller then closes the agent: the webhook worker finishes its attempts and gives back its leases, the store
 *    is released.
 */

/** After the deadline, how long the cut calls' pipelines may take to answer and release their claims. */
const CUT_GRACE_MS = 2_000;

export interface DrainSettings {
  readonly delayMs: number;
  readonly timeoutMs: number;
}

/** Drains `server`; resolves once it is closed, with how many calls were cut at the deadline. */
export async function drainServer(server: Server, inFlight: ReadonlyMap<ServerResponse, Promise<void>>, settings: DrainSettings): Promise<number> {
  if (settings.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, settings.delayMs));
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  // server.close() closes only the sockets idle at that moment: a busy keep-alive one closes with its answer.
  for (const res of inFlight.keys()) {
    if (!res.headersSent) res.setHeader('connection', 'close');
    else res.once('finish', () => (res.socket as Socket | null)?.end());
  }
  if (await settles(closed, settings.timeoutMs)) return 0;
  const cut = [...inFlight.values()];
  server.closeAllConnections();
  await settles(Promise.allSettled(cut), CUT_GRACE_MS);
  await closed;
  return cut.length;
}

/** Whether `p` settles within `ms`. */
function settles(p: Promise<unknown>, ms: number): Promise<boolean> {
  return beforeDeadline(p, ms).then((settled) => settled !== LATE);
}

/** A server that drains on a signal: its close (the drain), and what to say. */
interface Drainable {
  readonly close: () => Promise<void>;
  readonly name: string;
  readonly log: RuntimeLog;
  /** The longest its drain may take (delay and deadline), before the process gives up on it. */
  readonly budgetMs: number;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
const registered = new Set<Drainable>();

/**
 * Drains `server` on SIGTERM or SIGINT. One listener per signal for the whole process, however many servers: on the
 * signal every registered server drains, then the process exits (0, or 1 when a drain failed). Each server leaves the
 * registry as its drain begins, so once all have, a second signal meets Node's default and ends the process at once.
 * Returns the server's way out of the registry (its own close() calls it).
 */
export function drainOnSignals(server: Drainable): () => void {
  if (registered.size === 0) for (const signal of SIGNALS) process.on(signal, onSignal);
  registered.add(server);
  return () => {
    if (!registered.delete(server) || registered.size > 0) return;
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}

function onSignal(signal: NodeJS.Signals): void {
  const servers = [...registered];
  const budget = Math.max(...servers.map((s) => s.budgetMs));
  for (const s of servers) s.log.info('signal', `adcp-codegen: ${s.name}: ${signal}: draining, then exiting`, { signal });
  // A drain that hangs (a store that never closes) must not keep the process from exiting.
  setTimeout(() => process.exit(1), budget + 10_000).unref();
  void Promise.allSettled(servers.map((s) => s.close())).then((results) => process.exit(results.every((r) => r.status === 'fulfilled') ? 0 : 1));
}

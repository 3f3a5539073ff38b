import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Agent } from '../../api/agent-types.js';
import type { HttpHandler, RunningServer, ServeOptions } from '../../api/http-types.js';
import { positiveOption } from '../../wire/options.js';
import { MCP_PATH } from '../../wire/paths.js';
import { firstLine } from '../../wire/report.js';
import type { RuntimeLog } from '../../ops/log.js';
import type { AgentServices } from '../../services/agent-services.js';
import { drainOnSignals, drainServer } from './drain.js';
import { announceStart } from './start-line.js';

/**
 * agent.serve: the entry on a node:http server of its own, with what a deployment needs of one:
 * - the store opened and probed first (agent.ready()), so a bad DATABASE_URL fails the start in one line;
 * - deadlines: headers within `headersTimeoutMs` (10 s), the whole request within `requestTimeoutMs` (30 s), checked
 *   every second (Node's own check runs every 30 s, which would let a slow client hold a socket that much longer);
 * - keep-alive of 65 s, longer than the 60 s idle timeout of common proxies and load balancers, so they close an idle
 *   connection first (Node's 5 s default closed it under MCP clients reusing it seconds later: "other side closed");
 * - at most `maxConnections` (1,024) open connections; more are refused at accept;
 * - close(), and SIGTERM or SIGINT unless `handleSignals: false`: the drain (drain.ts) — readiness off, no new
 *   connections, calls in flight finished up to `drainTimeoutMs` (10 s), then the store released (and, on a signal,
 *   the process exits 0);
 * - `/healthz` and `/readyz` (health.ts), and a start line saying what runs (start-line.ts);
 * - HTTPS when given a certificate (`tls`, or ADCP_TLS_CERT_FILE and ADCP_TLS_KEY_FILE), with the same limits.
 * A server without an authenticator serves every call to anyone: it warns, once per agent.
 */

export const DEFAULTS = { port: 3000, host: '127.0.0.1', keepAliveTimeoutMs: 65_000, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 1_024, drainTimeoutMs: 10_000 } as const;
const warned = new WeakSet<object>();
/** Servers open per agent: the store is released when the last one closes, not under another still serving. */
const open = new WeakMap<object, number>();

/**
 * `listening` learns the server's public base URL once it listens (`options.publicUrl`, else `http://host:port`): the
 * agent's brand.json names its MCP URL from it when nothing else does.
 */
export async function serveHttp(
  agent: Pick<Agent, 'name' | 'mode' | 'releases' | 'tools' | 'ready' | 'close'>,
  makeHandler: () => HttpHandler,
  services: Pick<AgentServices, 'listening' | 'log' | 'health' | 'store'>,
  options: ServeOptions = {},
): Promise<RunningServer> {
  const port = options.port ?? envPort() ?? DEFAULTS.port;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`adcp-codegen: serve: port must be an integer from 0 to 65535, not ${String(port)}`);
  const host = options.host ?? (process.env.HOST || DEFAULTS.host);
  const keepAliveTimeout = positiveOption(options.keepAliveTimeoutMs, DEFAULTS.keepAliveTimeoutMs, 'serve: keepAliveTimeoutMs', 'integer');
  const headersTimeout = positiveOption(options.headersTimeoutMs, DEFAULTS.headersTimeoutMs, 'serve: headersTimeoutMs', 'integer');
  const requestTimeout = positiveOption(options.requestTimeoutMs, DEFAULTS.requestTimeoutMs, 'serve: requestTimeoutMs', 'integer');
  if (headersTimeout > requestTimeout) throw new Error('adcp-codegen: serve: headersTimeoutMs must not exceed requestTimeoutMs');
  const maxConnections = positiveOption(options.maxConnections, DEFAULTS.maxConnections, 'serve: maxConnections', 'integer');
  const drain = { timeoutMs: positiveOption(options.drainTimeoutMs, DEFAULTS.drainTimeoutMs, 'serve: drainTimeoutMs'), delayMs: options.drainDelayMs === 0 ? 0 : positiveOption(options.drainDelayMs, 0, 'serve: drainDelayMs') };
  const tls = options.tls ?? tlsFromEnv();
  const scheme = tls === undefined ? 'http' : 'https';
  const handler = makeHandler();
  const log = services.log;
  // The logger is loaded now, not by the first call.
  log.prepare();
  try {
    await agent.ready();
  } catch (e) {
    throw new Error(`adcp-codegen: serve: the agent's store is not ready: ${firstLine(e)}`);
  }
  if (options.authenticate === undefined && !warned.has(agent)) {
    warned.add(agent);
    log.warn('no_authentication', `adcp-codegen: ${agent.name} is served without authentication (no \`authenticate\`): every call is answered for anyone. AdCP requires credentials on protected operations.`);
  }
  const inFlight = new Map<ServerResponse, Promise<void>>();
  let closing: Promise<void> | undefined;
  const limits = { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval: Math.min(1_000, headersTimeout) };
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (closing !== undefined) res.setHeader('connection', 'close');
    // The entry answers its own failures; a rejection here would be a bug of the entry, never a crash of the process.
    inFlight.set(res, handler(req, res).catch((e: unknown) => log.error('http_entry_failed', `adcp-codegen: the HTTP entry failed: ${firstLine(e)}`)));
    res.once('close', () => inFlight.delete(res));
  };
  const server: Server = tls === undefined ? createServer(limits, serve) : createHttpsServer({ ...limits, cert: pem(tls.cert), key: pem(tls.key) }, serve);
  server.keepAliveTimeout = keepAliveTimeout;
  server.maxConnections = maxConnections;
  try {
    await listen(server, port, host, log);
  } catch (e) {
    // Nothing serves: the store opened for this server is released unless another server of the agent uses it.
    if ((open.get(agent) ?? 0) === 0) await agent.close().catch(() => undefined);
    throw e;
  }
  open.set(agent, (open.get(agent) ?? 0) + 1);
  const address = server.address() as AddressInfo;
  const base = (options.publicUrl ?? `${scheme}://${urlHost(host)}:${address.port}`).replace(/\/+$/, '');
  services.listening(base, options.a2a !== false);
  announceStart(agent, handler, base, services.store.where, log);
  const release = async (): Promise<void> => {
    const left = (open.get(agent) ?? 1) - 1;
    open.set(agent, left);
    if (left === 0) await agent.close();
  };
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      leaveSignals?.();
      const draining = services.health.drain();
      log.info('draining', `adcp-codegen: ${agent.name}: draining: ${inFlight.size} call(s) in flight, up to ${drain.timeoutMs / 1000} s`, { in_flight: inFlight.size });
      const cut = await drainServer(server, inFlight, drain);
      if (cut > 0) log.warn('drain_deadline', `adcp-codegen: ${agent.name}: ${cut} call(s) still running at the drain deadline were cut`, { cut });
      draining();
      await release();
      log.info('stopped', `adcp-codegen: ${agent.name} stopped`);
    })());
  const leaveSignals = options.handleSignals === false ? undefined : drainOnSignals({ close, name: agent.name, log, budgetMs: drain.delayMs + drain.timeoutMs });
  return { url: `${scheme}://${urlHost(host)}:${address.port}${MCP_PATH}`, port: address.port, close };
}

function listen(server: Server, port: number, host: string, log: RuntimeLog): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (e: Error): void => reject(new Error(`adcp-codegen: serve: cannot listen on ${host}:${port}: ${e.message}`));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      // An error after listening (EMFILE at accept …) is logged, never an uncaught exception.
      server.on('error', (e) => log.error('http_server_error', `adcp-codegen: the HTTP server: ${e.message}`));
      resolve();
    });
  });
}

/** The certificate and key ADCP_TLS_CERT_FILE and ADCP_TLS_KEY_FILE name (both, or neither). */
function tlsFromEnv(): ServeOptions['tls'] {
  const certFile = process.env.ADCP_TLS_CERT_FILE;
  const keyFile = process.env.ADCP_TLS_KEY_FILE;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new Error('adcp-codegen: serve: set both ADCP_TLS_CERT_FILE and ADCP_TLS_KEY_FILE, or neither');
  const read = (file: string, what: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (e) {
      throw new Error(`adcp-codegen: serve: cannot read the TLS ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? firstLine(e)}`);
    }
  };
  return { cert: read(certFile, 'certificate'), key: read(keyFile, 'key') };
}

function pem(v: string | Uint8Array): string | Buffer {
  return typeof v === 'string' ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

function envPort(): number | undefined {
  const raw = process.env.PORT;
  return raw === undefined || raw === '' ? undefined : Number(raw);
}


/** The host as a URL names it: an IPv6 literal in brackets, a wildcard as the loopback address that reaches it. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}


import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Agent } from '../../api/agent-types.js';
import type { HttpHandler, RunningServer, ServeOptions } from '../../api/http-types.js';
import { positiveOption } from '../../wire/options.js';
import { capPerClient } from './client-caps.js';
import { MCP_PATH } from '../../wire/paths.js';
import { firstLine } from '../../wire/report.js';

/**
 * agent.serve: the entry on a node:http server of its own, with what a deployment needs of one:
 * - the store opened and probed first (agent.ready()), so a bad DATABASE_URL fails the start in one line;
 * - deadlines: headers within `headersTimeoutMs` (10 s), the whole request within `requestTimeoutMs` (30 s), checked
 *   every second (Node's own check runs every 30 s, which would let a slow client hold a socket that much longer);
 * - keep-alive of 65 s, longer than the 60 s idle timeout of common proxies and load balancers, so they close an idle
 *   connection first (Node's 5 s default closed it under MCP clients reusing it seconds later: "other side closed");
 * - at most `maxConnections` (1,024) open connections, and `maxConnectionsPerClient` (64) held by one client address
 *   (client-caps.ts: an idle keep-alive one makes room for its client's next); more are refused at accept;
 * - close(): no new connections, idle keep-alive sockets closed at once, busy ones when their answer is sent (and
 *   after `CLOSE_GRACE_MS` regardless), then the store released;
 * - HTTPS when given a certificate (`tls`, or ADCP_TLS_CERT_FILE and ADCP_TLS_KEY_FILE), with the same limits.
 * A server without an authenticator serves every call to anyone: it warns, once per agent.
 */

export const DEFAULTS = { port: 3000, host: '127.0.0.1', keepAliveTimeoutMs: 65_000, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 1_024, maxConnectionsPerClient: 64 } as const;
const CLOSE_GRACE_MS = 10_000;
const warned = new WeakSet<object>();
/** Servers open per agent: the store is released when the last one closes, not under another still serving. */
const open = new WeakMap<object, number>();

/**
 * `listening` learns the server's public base URL once it listens (`options.publicUrl`, else `http://host:port`): the
 * agent's brand.json names its MCP URL from it when nothing else does.
 */
export async function serveHttp(
  agent: Pick<Agent, 'name' | 'ready' | 'close'>,
  makeHandler: () => HttpHandler,
  options: ServeOptions = {},
  listening: (base: string, a2a: boolean) => void = () => undefined,
): Promise<RunningServer> {
  const port = options.port ?? envPort() ?? DEFAULTS.port;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`adcp-codegen: serve: port must be an integer from 0 to 65535, not ${String(port)}`);
  const host = options.host ?? (process.env.HOST || DEFAULTS.host);
  const keepAliveTimeout = positiveOption(options.keepAliveTimeoutMs, DEFAULTS.keepAliveTimeoutMs, 'serve: keepAliveTimeoutMs', 'integer');
  const headersTimeout = positiveOption(options.headersTimeoutMs, DEFAULTS.headersTimeoutMs, 'serve: headersTimeoutMs', 'integer');
  const requestTimeout = positiveOption(options.requestTimeoutMs, DEFAULTS.requestTimeoutMs, 'serve: requestTimeoutMs', 'integer');
  if (headersTimeout > requestTimeout) throw new Error('adcp-codegen: serve: headersTimeoutMs must not exceed requestTimeoutMs');
  const maxConnections = positiveOption(options.maxConnections, DEFAULTS.maxConnections, 'serve: maxConnections', 'integer');
  const perClient = positiveOption(options.maxConnectionsPerClient, DEFAULTS.maxConnectionsPerClient, 'serve: maxConnectionsPerClient', 'integer');
  const tls = options.tls ?? tlsFromEnv();
  const scheme = tls === undefined ? 'http' : 'https';
  const handler = makeHandler();
  try {
    await agent.ready();
  } catch (e) {
    throw new Error(`adcp-codegen: serve: the agent's store is not ready: ${firstLine(e)}`);
  }
  if (options.authenticate === undefined && !warned.has(agent)) {
    warned.add(agent);
    process.emitWarning(`adcp-codegen: ${agent.name} is served without authentication (no \`authenticate\`): every call is answered for anyone. AdCP requires credentials on protected operations.`);
  }
  const inFlight = new Set<ServerResponse>();
  let closing: Promise<void> | undefined;
  const limits = { headersTimeout, requestTimeout, keepAliveTimeout, connectionsCheckingInterval: Math.min(1_000, headersTimeout) };
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    if (closing !== undefined) res.setHeader('connection', 'close');
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    // The entry answers its own failures; a rejection here would be a bug of the entry, never a crash of the process.
    handler(req, res).catch((e: unknown) => process.emitWarning(`adcp-codegen: the HTTP entry failed: ${firstLine(e)}`));
  };
  const server: Server = tls === undefined ? createServer(limits, serve) : createHttpsServer({ ...limits, cert: pem(tls.cert), key: pem(tls.key) }, serve);
  server.keepAliveTimeout = keepAliveTimeout;
  server.maxConnections = maxConnections;
  capPerClient(server, perClient);
  try {
    await listen(server, port, host);
  } catch (e) {
    // Nothing serves: the store opened for this server is released unless another server of the agent uses it.
    if ((open.get(agent) ?? 0) === 0) await agent.close().catch(() => undefined);
    throw e;
  }
  open.set(agent, (open.get(agent) ?? 0) + 1);
  const address = server.address() as AddressInfo;
  listening((options.publicUrl ?? `${scheme}://${urlHost(host)}:${address.port}`).replace(/\/+$/, ''), options.a2a !== false);
  const release = async (): Promise<void> => {
    const left = (open.get(agent) ?? 1) - 1;
    open.set(agent, left);
    if (left === 0) await agent.close();
  };
  return {
    url: `${scheme}://${urlHost(host)}:${address.port}${MCP_PATH}`,
    port: address.port,
    close: () => (closing ??= shutDown(server, inFlight).then(release)),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (e: Error): void => reject(new Error(`adcp-codegen: serve: cannot listen on ${host}:${port}: ${e.message}`));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      // An error after listening (EMFILE at accept …) is logged, never an uncaught exception.
      server.on('error', (e) => process.emitWarning(`adcp-codegen: the HTTP server: ${e.message}`));
      resolve();
    });
  });
}

function shutDown(server: Server, inFlight: ReadonlySet<ServerResponse>): Promise<void> {
  return new Promise((resolve) => {
    const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    grace.unref();
    server.close(() => {
      clearTimeout(grace);
      resolve();
    });
    server.closeIdleConnections();
    // A busy keep-alive socket would otherwise stay open for keepAliveTimeout once its answer is sent (server.close
    // closes only the sockets idle at that moment): it closes with its answer.
    for (const res of inFlight) {
      if (!res.headersSent) res.setHeader('connection', 'close');
      else res.once('finish', () => (res.socket as Socket | null)?.end());
    }
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


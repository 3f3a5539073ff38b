import { Agent, request } from 'node:http';
import { API_KEY } from './http-bodies.js';

/**
 * bench/http's load generator: MCP Streamable HTTP spoken directly (stateless JSON-RPC, no client SDK in the way), so
 * both servers get byte-identical requests and the client's cost is the same small loop for both. Every answer is
 * checked: HTTP 200, a JSON-RPC result for the request's id (a JSON body or an SSE stream of `data:` lines), and for
 * tools/call no `isError`. Anything else throws, and the bench fails loudly.
 */
export interface Answer {
  /** The JSON-RPC `result`. */
  result: Record<string, unknown>;
  /** Bytes of the HTTP response body as sent (SSE framing included). */
  wireBytes: number;
  /** The response's content-type. */
  contentType: string;
}

const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${API_KEY}`,
};

export function rpcBody(id: number, method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

export function toolsCall(id: number, name: string, args: Record<string, unknown>): string {
  return rpcBody(id, 'tools/call', { name, arguments: args });
}

/**
 * One POST; resolves to the checked JSON-RPC result of request `id`. `agent` undefined: a connection of its own.
 * `toolErrors`: a tool error result (isError) is returned, not thrown (the validation probes).
 */
export function post(url: URL, body: string, id: number, agent?: Agent, toolErrors = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent: agent ?? false,
        headers: { ...HEADERS, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          const contentType = String(res.headers['content-type'] ?? '');
          try {
            if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${raw.toString('utf8').slice(0, 500)}`);
            resolve({ result: resultOf(raw.toString('utf8'), contentType, id, toolErrors), wireBytes: raw.length, contentType });
          } catch (e) {
            reject(new Error(`bench/http: ${url.href} request ${body.slice(0, 120)}…: ${(e as Error).message}`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC result for `id` from a JSON or SSE body; throws on a JSON-RPC error or a tool error result. */
export function resultOf(text: string, contentType: string, id: number, toolErrors = false): Record<string, unknown> {
  const messages: unknown[] = [];
  if (contentType.startsWith('text/event-stream')) {
    // Events are separated by a blank line; an event's data is its `data:` lines joined by newlines.
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(l.charAt(5) === ' ' ? 6 : 5));
      if (data.length > 0) messages.push(JSON.parse(data.join('\n')));
    }
  } else if (contentType.startsWith('application/json')) {
    const parsed = JSON.parse(text) as unknown;
    messages.push(...(Array.isArray(parsed) ? parsed : [parsed]));
  } else {
    throw new Error(`unexpected content-type ${JSON.stringify(contentType)}: ${text.slice(0, 200)}`);
  }
  const message = messages.find((m) => (m as { id?: unknown }).id === id) as { result?: Record<string, unknown>; error?: unknown } | undefined;
  if (message === undefined) throw new Error(`no JSON-RPC answer for id ${id}: ${text.slice(0, 300)}`);
  if (message.error !== undefined) throw new Error(`JSON-RPC error: ${JSON.stringify(message.error)}`);
  const result = message.result;
  if (result === undefined || typeof result !== 'object') throw new Error(`no result: ${text.slice(0, 300)}`);
  if (result.isError === true && !toolErrors) throw new Error(`tool error result: ${JSON.stringify(result).slice(0, 600)}`);
  return result;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  /** This process's CPU (user + system) over the round, ms. */
  clientCpuMs: number;
}

/**
 * `concurrency` workers, each sending its next request as soon as its previous answer is checked, on a keep-alive
 * pool of `concurrency` sockets (a fresh pool per round: between rounds a server's own keep-alive timeout may close
 * idle sockets, and a reused closed socket would be a spurious failure), for `ms` milliseconds. `next()` gives each
 * request's id and body; `check` looks at each result beyond the generic checks.
 */
export async function load(
  url: URL,
  concurrency: number,
  ms: number,
  next: () => { id: number; body: string },
  check?: (result: Record<string, unknown>) => void,
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + ms;
  let requests = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const { id, body } = next();
      const answer = await post(url, body, id, agent);
      check?.(answer.result);
      requests++;
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { requests, seconds, clientCpuMs: (cpu.user + cpu.system) / 1000 };
}

import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A buyer's webhook receiver for tests: a real node:http server on 127.0.0.1 that records every POST (raw body and
 * headers, as a verifier needs them) and answers each path from a script (`503, 503, 200` …; then its default).
 */
export interface Received {
  readonly path: string;
  /** The absolute URL the sender signed (`@target-uri`). */
  readonly url: string;
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: Record<string, unknown>;
  /** What the receiver answered. */
  readonly status: number;
  readonly at: number;
}

export interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** The answer's body (an endpoint-proof response: `{"challenge": …}`). */
  readonly body?: string;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly received: Received[];
  /** Answers for `path`, in order; after them, `fallback` (default 200). */
  script(path: string, answers: readonly (number | Answer)[], fallback?: number): void;
  /** Answers every request to `path` with what `answer` makes of it (before any script). */
  handle(path: string, answer: (request: { json: Record<string, unknown>; body: string }) => Answer): void;
  /** Resolves when `done(received)` holds, polling; rejects after `timeoutMs` naming what arrived. */
  until(done: (received: readonly Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const scripts = new Map<string, { answers: Answer[]; fallback: number }>();
  const handlers = new Map<string, (request: { json: Record<string, unknown>; body: string }) => Answer>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // recorded as it came
      }
      const script = scripts.get(path);
      const answer = handlers.get(path)?.({ json, body }) ?? script?.answers.shift() ?? { status: script?.fallback ?? 200 };
      received.push({ path, url: `${base}${path}`, method: req.method ?? '', headers: req.headers, body, json, status: answer.status, at: Date.now() });
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    handle(path, answer) {
      handlers.set(path, answer);
    },
    script(path, answers, fallback = 200) {
      scripts.set(path, { answers: answers.map((a) => (typeof a === 'number' ? { status: a } : a)), fallback });
    },
    async until(done, timeoutMs = 20_000) {
      const end = Date.now() + timeoutMs;
      while (!done(received)) {
        if (Date.now() > end) throw new Error(`the receiver waited ${timeoutMs} ms; it got ${received.length}: ${received.map((r) => `${r.path} ${r.status}`).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

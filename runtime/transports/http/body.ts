import type { IncomingMessage } from 'node:http';

/**
 * A request body, read before anything else happens to the request (a signature's digest covers its bytes; the SDK
 * is handed it parsed once), within bounds: at most `maxBytes` (a larger declared Content-Length is refused before a
 * byte is read) and within `timeoutMs` of the handler's start, so a client sending a byte every few seconds cannot
 * hold a request open (the server's requestTimeout covers the same on serve(); this covers an entry mounted on
 * another's server).
 */

export type Body =
  | { ok: true; text: string }
  /** Parsed already by middleware in front of the entry (Express's `express.json()`). */
  | { ok: true; parsed: unknown }
  | { ok: false; status: 408 | 413; message: string }
  /** The client went away: nothing to answer. */
  | { ok: false; status: 0 };

export const DEFAULT_BODY_BYTES = 4 * 1024 * 1024;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Body> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined && req.readableEnded) return Promise.resolve({ ok: true, parsed });
  const tooLarge = { ok: false, status: 413, message: `Request body larger than ${maxBytes} bytes` } as const;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(tooLarge);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (body: Body): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onClose);
      // Stop reading what is left of a body refused midway; the answer closes the connection.
      if (!body.ok) req.pause();
      resolve(body);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) finish(tooLarge);
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish({ ok: true, text: Buffer.concat(chunks, size).toString('utf8') });
    const onGone = (): void => finish({ ok: false, status: 0 });
    const onClose = (): void => {
      if (!req.complete) onGone();
    };
    const timer = setTimeout(() => finish({ ok: false, status: 408, message: `Request body not received within ${timeoutMs} ms` }), timeoutMs);
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('close', onClose);
  });
}

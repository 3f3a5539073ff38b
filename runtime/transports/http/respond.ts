import type { ServerResponse } from 'node:http';
import { WARNINGS, type RuntimeLog } from '../../ops/log.js';
import { faultText } from '../../wire/report.js';

/**
 * The entry's own answers (the SDKs answer the rest): short JSON bodies, never a stack trace or a path. A response
 * that cuts the request short (413, 408) closes the connection, since the rest of the body was never read.
 */

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** A JSON-RPC error the transport answers itself (no request reached a protocol handler). */
export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

export function notFound(res: ServerResponse): void {
  sendJson(res, 404, { error: 'not_found' });
}

/** Stateless MCP has no GET stream and no session to DELETE: only POST is served (MCP Streamable HTTP allows 405). */
export function methodNotAllowed(res: ServerResponse, allow: string): void {
  sendJsonRpcError(res, 405, -32000, `Method not allowed: use ${allow}`, { allow });
}

/** A request ended early: the answer, then the connection closed (its unread body would be read as the next request). */
export function cutShort(res: ServerResponse, status: 408 | 413, message: string): void {
  sendJsonRpcError(res, status, -32000, message, { connection: 'close' });
}

/**
 * A failure of the entry or of an SDK beneath it: the agent's log gets the detail, the client a short 500 (or,
 * once an answer has begun, a closed connection).
 */
export function internalError(res: ServerResponse, error: unknown, where: string, log: RuntimeLog = WARNINGS): void {
  log.error('http_entry_failed', `adcp-codegen: the HTTP entry failed (${where}): ${faultText(error)}`, { where });
  if (res.headersSent) res.destroy();
  else sendJson(res, 500, { error: 'internal_error', error_description: 'The agent failed to answer (details are in its log).' });
}

import type { IncomingMessage } from 'node:http';
import { isObject } from '../../wire/json-copy.js';

/**
 * tools/list from bytes prepared once. The profile's list carries real input schemas (161 KB for the example
 * seller): through the SDK each request would build a Server, register it, and serialize the whole array again. A
 * single JSON-RPC `tools/list` request is answered here instead, with exactly the bytes the SDK's JSON-response mode
 * would send (`{"result":{"tools":…},"jsonrpc":"2.0","id":…}`), and only after the checks the SDK's
 * WebStandardStreamableHTTPServerTransport.handlePostRequest applies to it, with the SDK's own functions:
 * - POST (the entry routes only POST here);
 * - `Accept` listing both application/json and text/event-stream (a substring check, as the SDK's);
 * - a JSON `Content-Type` (the SDK's isJsonContentType: the parsed media type, parameters allowed);
 * - a valid JSON-RPC request of tools/list (its JSONRPCRequestSchema and ListToolsRequestSchema), not a batch;
 * - an `mcp-protocol-version` header, when present, among the SDK's SUPPORTED_PROTOCOL_VERSIONS.
 * Anything else goes through the SDK, which answers it (406, 415, 400 …) as it always has. Stateless and without
 * DNS-rebinding protection, the SDK checks nothing more before answering. Having read the message as the SDK would,
 * this path is the one that runs it: the request's admission of tools/list is asked here (`admitted`).
 */

interface FastPathSdk {
  isJsonContentType(header: string | undefined): boolean;
  SUPPORTED_PROTOCOL_VERSIONS: readonly string[];
  JSONRPCRequestSchema: { safeParse(v: unknown): { success: boolean } };
  ListToolsRequestSchema: { safeParse(v: unknown): { success: boolean } };
}

/**
 * The answer's bytes (in chunks: the list's own, shared, and the frame's end) for a tools/list it can answer exactly as the SDK would, `refused` when the request may not list
 * tools, or undefined: the request is the SDK's.
 */
export type ToolsListFastPath = (req: IncomingMessage, message: unknown, admitted: () => boolean) => readonly Buffer[] | 'refused' | undefined;

export function toolsListFastPath(require: (id: string) => unknown, toolsJson: () => string): ToolsListFastPath {
  let sdk: FastPathSdk | null | undefined;
  let prefix: Buffer | undefined;
  return (req, message, admitted) => {
    if (!isObject(message) || message.method !== 'tools/list' || req.method !== 'POST') return undefined;
    sdk ??= load(require);
    if (sdk === null) return undefined;
    const accept = req.headers.accept;
    if (typeof accept !== 'string' || !accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    if (!sdk.isJsonContentType(req.headers['content-type'])) return undefined;
    if (!sdk.JSONRPCRequestSchema.safeParse(message).success || !sdk.ListToolsRequestSchema.safeParse(message).success) return undefined;
    const version = req.headers['mcp-protocol-version'];
    if (version !== undefined && !(typeof version === 'string' && sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(version))) return undefined;
    if (!admitted()) return 'refused';
    // The tools array's JSON is made once (ToolsLists.endpointToolsJson), the frame around it here, once.
    prefix ??= Buffer.from(`{"result":{"tools":${toolsJson()}},"jsonrpc":"2.0","id":`, 'utf8');
    return [prefix, Buffer.from(`${JSON.stringify(message.id)}}`, 'utf8')];
  };
}

/** The SDK's own checks; an SDK without them (older than its mediaType module) has no fast path. */
function load(require: (id: string) => unknown): FastPathSdk | null {
  try {
    const types = require('@modelcontextprotocol/sdk/types.js') as Partial<FastPathSdk>;
    const media = require('@modelcontextprotocol/sdk/shared/mediaType.js') as Partial<FastPathSdk>;
    const { SUPPORTED_PROTOCOL_VERSIONS, JSONRPCRequestSchema, ListToolsRequestSchema } = types;
    const { isJsonContentType } = media;
    if (typeof isJsonContentType !== 'function' || !Array.isArray(SUPPORTED_PROTOCOL_VERSIONS) || JSONRPCRequestSchema === undefined || ListToolsRequestSchema === undefined) return null;
    return { isJsonContentType, SUPPORTED_PROTOCOL_VERSIONS, JSONRPCRequestSchema, ListToolsRequestSchema };
  } catch {
    return null;
  }
}

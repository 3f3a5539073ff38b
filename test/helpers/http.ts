import { Agent, request, type IncomingHttpHeaders } from 'node:http';

/** One HTTP exchange as the wire carried it: status, headers, the body's bytes as text. */
export interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** The headers an MCP Streamable HTTP client sends with every POST. */
export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as const;

/**
 * A raw node:http request (no client library in between: the status, headers and bytes are the server's own), on a
 * fresh connection unless an agent is given.
 */
export function http(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: Agent } = {}): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers, agent: options.agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A JSON-RPC POST to an MCP or A2A endpoint. */
export function rpc(url: string, message: unknown, headers: Record<string, string> = {}, agent?: Agent): Promise<Exchange> {
  return http(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(message), agent });
}

/** tools/call as a JSON-RPC message. */
export const toolsCall = (name: string, args: Record<string, unknown> = {}, id: number = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

/** An A2A message/send of one skill, A2A 0.3's wire form. */
export const a2aSend = (skill: string, input: Record<string, unknown> = {}, id: number = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'message/send',
  params: { message: { kind: 'message', messageId: `m-${id}-${skill}`, role: 'user', parts: [{ kind: 'data', data: { skill, input } }] } },
});

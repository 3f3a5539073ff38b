// @ts-check
/**
 * Serves a loaded adcp-codegen agent over MCP Streamable HTTP (stateless: each POST gets a fresh McpServer wired to
 * the same loaded profile; registration is a few map entries, nothing compiles). agent.mcpServerFactory checks the
 * handler set against the profile once, before the server listens: a missing or unserved tool stops the start, not a
 * buyer's first call.
 *
 * Keep-alive: MCP clients send the next request on the same socket, sometimes seconds later (a client validating a
 * large tools/list compiles schemas before its first call). Node's 5 s default keep-alive closes that socket under
 * the client ("other side closed"), so the server keeps idle sockets for 65 s (longer than the usual 60 s idle
 * timeout of proxies and clients in front of it, so they, not the server, close first) and waits a little longer
 * for headers, as Node requires.
 */
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export const KEEP_ALIVE_MS = 65_000;

/**
 * @param {{ mcpServerFactory<S>(handlers: any, create: () => S): () => S }} agent a loaded profile (`loadProfile(...)`)
 * @param {Record<string, (args: any, ctx: any) => unknown>} handlers
 * @param {{ port?: number, host?: string, name?: string }} [options]
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function serveMcp(agent, handlers, options = {}) {
  const host = options.host ?? '127.0.0.1';
  const name = options.name ?? 'adcp-agent';
  const newServer = agent.mcpServerFactory(handlers, () => new McpServer({ name, version: '1.0.0' }));
  const http = createServer(async (req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (e) {
      if (!res.headersSent) res.writeHead(500).end();
      process.emitWarning(String(e));
    }
  });
  http.keepAliveTimeout = KEEP_ALIVE_MS;
  http.headersTimeout = KEEP_ALIVE_MS + 1_000;
  await new Promise((resolve) => http.listen(options.port ?? 0, host, () => resolve(undefined)));
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    url: `http://${host}:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        http.close(() => resolve(undefined));
        // Idle keep-alive sockets would hold close() for KEEP_ALIVE_MS.
        http.closeIdleConnections();
      }),
  };
}

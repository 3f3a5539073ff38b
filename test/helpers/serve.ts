/**
 * An agent of any generated set on the product's HTTP entry (agent.serve), on 127.0.0.1 and a free port, with the
 * authenticator given or none: what the tests that exercise the pipeline over real MCP Streamable HTTP need
 * (examples/serve-mcp.js was this before the entry owned it). test/http-entry*.test.ts test the entry itself.
 */
export interface ServedAgent {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export function serveAgent(agent: unknown, handlers: unknown, authenticate?: unknown): Promise<ServedAgent> {
  return (agent as { serve(handlers: unknown, options: Record<string, unknown>): Promise<ServedAgent> }).serve(handlers, { port: 0, host: '127.0.0.1', authenticate });
}

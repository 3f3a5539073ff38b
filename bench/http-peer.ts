import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_KEY, createMediaBuyHandler, getProductsHandler, PRINCIPAL } from './http-bodies.js';

/**
 * bench/http's peer: @adcp/sdk 6.11's `createAdcpServer` (the v5 handler-bag constructor, `legacy/v5`) behind the
 * SDK's own `serve()` — one fresh AdcpServer per POST (serve()'s default, stateless Streamable HTTP), API-key
 * authentication (`verifyApiKey`, one static key), and the SDK's idempotency store (`createIdempotencyStore` over
 * `memoryBackend()`), scoped by the authenticated principal. Validation is left at the SDK's default, which the
 * child's environment decides: NODE_ENV is not `production` there (http-spawn.ts removes it), and 6.11 then validates
 * requests and responses `strict` (create-adcp-server.js; its .d.ts still documents `requests: 'warn'`). http.ts
 * probes it once before measuring: an invalid request and an invalid handler body both come back VALIDATION_ERROR.
 *
 * It serves handlers for the same tools as ours (the guaranteed-publisher profile), so both tools/list name the
 * same surface; only get_products and create_media_buy are called. The idempotency store, the state store and the
 * authenticator are made once; the AdcpServer per request, as serve() expects.
 */
export async function startPeer(): Promise<{ url: string; close(): Promise<void> }> {
  const { createAdcpServer, createIdempotencyStore, memoryBackend } = await import('@adcp/sdk/server/legacy/v5');
  const { InMemoryStateStore, serve, verifyApiKey } = await import('@adcp/sdk/server');
  const idempotency = createIdempotencyStore({ backend: memoryBackend() });
  // Outside NODE_ENV=test/development createAdcpServer refuses its default in-memory state store unless it is passed
  // explicitly (the handlers never touch it).
  const stateStore = new InMemoryStateStore();
  const empty = async () => ({}) as never;
  const create = () =>
    createAdcpServer({
      name: 'bench-peer',
      version: '1.0.0',
      idempotency,
      stateStore,
      // Its default logger is silent; warnings and errors to stderr, so that a request validated in `warn` mode (logged,
      // then dispatched) shows in the probe, and any trouble during the rounds in the child's output. Nothing is
      // logged for the valid requests measured.
      logger: { debug() {}, info() {}, warn: (m, d) => console.error('[peer warn]', m, JSON.stringify(d)), error: (m, d) => console.error('[peer error]', m, JSON.stringify(d)) },
      // The idempotency principal is the authenticated caller (serve() puts verifyApiKey's principal on authInfo).
      resolveIdempotencyPrincipal: (ctx) => (ctx.authInfo as { clientId?: string } | undefined)?.clientId,
      mediaBuy: {
        getProducts: async (args) => getProductsHandler(args) as never,
        createMediaBuy: async () => createMediaBuyHandler() as never,
        listCreativeFormats: empty,
        updateMediaBuy: empty,
        getMediaBuys: empty,
        getMediaBuyDelivery: empty,
        providePerformanceFeedback: empty,
        syncCreatives: empty,
        listCreatives: empty,
      },
      accounts: { listAccounts: empty, syncAccounts: empty },
    });
  const server: Server = await new Promise((resolve) => {
    const s = serve(create, {
      port: 0,
      authenticate: verifyApiKey({ keys: { [API_KEY]: { principal: PRINCIPAL } } }),
      onListening: () => resolve(s),
    });
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

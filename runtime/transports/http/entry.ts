import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent, AnyToolHandler } from '../../api/agent-types.js';
import type { HttpHandler, HttpOptions } from '../../api/http-types.js';
import type { AgentServices } from '../../services/agent-services.js';
import { a2aEndpoint } from './a2a-endpoint.js';
import { admission, type ReadMessage } from './admit.js';
import { challengeSchemes, mcpAuthInfo, type Challenge } from './authenticate.js';
import { DEFAULT_BODY_BYTES, DEFAULT_BODY_TIMEOUT_MS, readBody } from './body.js';
import { a2aIsPublic, mcpIsPublic } from './classify.js';
import { mcpEndpoint } from './mcp-endpoint.js';
import { cutShort, internalError, methodNotAllowed, notFound, sendJsonRpcError } from './respond.js';
import { protectedResourceMetadata } from './well-known.js';
import { healthProbes } from './health.js';
import { noteEntry } from './start-line.js';
import { positiveOption } from '../../wire/options.js';
import { A2A_PATH, CARD_PATH, MCP_PATH } from '../../wire/paths.js';

/**
 * The HTTP entry (agent.httpHandler): one request handler for MCP at `/mcp`, A2A at `/a2a` (and a POST to `/`) with
 * its agent card, the protected-resource metadata when configured, and the probes `/healthz` and `/readyz`
 * (health.ts); any other path is the host's (`next()` under
 * Express, 404 on a bare node:http server). For a JSON-RPC POST, in this order and before any pipeline work: the
 * body, read within its limits; the message, parsed; its classification, public or protected (classify.ts);
 * authentication and the request's signature (admit.ts). Only then does an SDK see the request, with the principal
 * attached. Everything is resolved and checked when the handler is made (the handler set, the SDKs, the options), so
 * a bad start fails there.
 */
export function httpEntry(agent: Agent, services: Pick<AgentServices, 'a2aTaskStore' | 'health' | 'log'>, toolsJson: () => string, handlers: Readonly<Record<string, AnyToolHandler>>, options: HttpOptions = {}): HttpHandler {
  if (options.authenticate !== undefined && typeof options.authenticate !== 'function') throw new Error('adcp-codegen: authenticate must be a function (an Authenticator)');
  const maxBytes = positiveOption(options.limits?.bodyBytes, DEFAULT_BODY_BYTES, 'limits.bodyBytes');
  const timeoutMs = positiveOption(options.limits?.bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS, 'limits.bodyTimeoutMs');
  const publicTools = new Set(options.publicTools ?? ['get_adcp_capabilities']);
  const schemes = challengeSchemes(options.authenticate, options.challenges);
  const prm = protectedResourceMetadata(options.protectedResource);
  const challenge: Challenge = { schemes, realm: options.realm ?? 'adcp', ...(prm !== undefined ? { resourceMetadata: prm.url } : {}) };
  const mcp = mcpEndpoint(agent, toolsJson, handlers, options);
  const a2a = a2aEndpoint(agent, services, handlers, options, options.authenticate === undefined ? [] : schemes);
  const admit = admission(options.authenticate, challenge, agent.requestSignatures, options.publicUrl, services.log);
  const probes = healthProbes(() => services.health);
  const authentication = [options.authenticate === undefined ? 'none' : schemes.join(', '), ...(agent.requestSignatures !== undefined ? ['RFC 9421 signatures'] : [])].join(', ');

  /** The body, parsed; or the answer already sent (413, 408, a parse error), or a client gone. */
  const message = async (req: IncomingMessage, res: ServerResponse): Promise<ReadMessage | undefined> => {
    const body = await readBody(req, maxBytes, timeoutMs);
    if (!body.ok) {
      if (body.status !== 0) cutShort(res, body.status, body.message);
      return undefined;
    }
    if ('parsed' in body) return { value: body.parsed };
    try {
      return { text: body.text, value: JSON.parse(body.text) as unknown };
    } catch {
      sendJsonRpcError(res, 400, -32700, 'Parse error: Invalid JSON');
      return undefined;
    }
  };

  return noteEntry(async (request, response, next) => {
    // node:http's objects (Express's extend them): the public type is only their structural view (api/http-types.ts).
    const req = request as IncomingMessage;
    const res = response as ServerResponse;
    const path = pathOf(req.url);
    try {
      if (probes(req, res, path)) return;
      if (path === MCP_PATH || path === `${MCP_PATH}/`) {
        if (req.method !== 'POST') return methodNotAllowed(res, 'POST');
        const got = await message(req, res);
        if (got === undefined) return;
        const caller = await admit(req, res, got, mcpIsPublic(got.value, publicTools));
        if (caller === undefined) return;
        // With an authenticator or a signature verifier the entry owns `req.auth` (what the MCP SDK hands handlers as authInfo): a value left
        // there by middleware in front of it is not a principal this entry vouches for.
        if (options.authenticate !== undefined || agent.requestSignatures !== undefined) (req as IncomingMessage & { auth?: unknown }).auth = caller.principal === undefined ? undefined : mcpAuthInfo(caller.principal);
        return await mcp.handle(req, res, got.value);
      }
      // A2A at its card's URL, and at the base URL A2A clients are given (where @a2a-js/sdk's own layout answers
      // JSON-RPC, and where AdCP's grader probes it), for a POST.
      if (a2a !== undefined && (path === A2A_PATH || path === `${A2A_PATH}/` || (path === '/' && req.method === 'POST'))) {
        if (req.method !== 'POST') return methodNotAllowed(res, 'POST');
        const got = await message(req, res);
        if (got === undefined) return;
        const caller = await admit(req, res, got, a2aIsPublic(got.value, publicTools));
        if (caller === undefined) return;
        return await a2a.handle(req, res, got.value, caller.principal);
      }
      if (a2a !== undefined && path === CARD_PATH) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(res, 'GET');
        return a2a.card(req, res);
      }
      if (prm !== undefined && prm.paths.has(path)) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(res, 'GET');
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(prm.body)) }).end(prm.body);
        return;
      }
      // The agent's brand.json and JWKS (its signing keys' publication), public as the spec's key discovery needs.
      if ((req.method === 'GET' || req.method === 'HEAD') && path.startsWith('/.well-known/')) {
        const doc = await agent.wellKnown(path).catch((e: unknown) => (services.log.error('well_known_failed', `adcp-codegen: ${path}: ${String(e)}`, { path }), null));
        if (doc === null) return void res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"unavailable"}');
        if (doc !== undefined) return void res.writeHead(doc.status, doc.headers).end(req.method === 'HEAD' ? undefined : doc.body);
      }
      if (next !== undefined) return next();
      notFound(res);
    } catch (e) {
      internalError(res, e, `${req.method ?? '?'} ${path}`, services.log);
    }
  }, { a2a: a2a !== undefined, authentication });
}

/** The request's path without its query; `/mcp?x=1` is `/mcp`. */
function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}


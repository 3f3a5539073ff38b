import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthPrincipal, AuthScheme, Authenticator } from '../../api/http-types.js';
import { AUTH_SCHEMES, type MarkedAuthenticator } from '../../services/auth/basic.js';
import { isObject } from '../../wire/json-copy.js';
import { internalError, sendJson } from './respond.js';
import type { RuntimeLog } from '../../ops/log.js';

/**
 * Authentication at the entry, before any pipeline work, as @adcp/sdk/server's serve() does it on the wire
 * (respondUnauthorized): the authenticator reads the request's headers and says who is calling.
 * - a principal: the call goes on, carrying it;
 * - null on a call that needs credentials: 401 with the challenges (RFC 6750 §3.1: no error code when the request
 *   carried no credentials);
 * - null although the request carries credentials (`Authorization`, or the `x-adcp-auth` header AdCP's older
 *   clients send): those were not recognized, which is 401 `invalid_token` on any call, public ones included: a
 *   buyer with a revoked key learns it on its first call, discovery too;
 * - a throw: credentials presented and refused, 401 `invalid_token`, on any call. The client gets the
 *   authenticator's `publicMessage` (@adcp/sdk's AuthError) or a generic text, never the error's own message.
 * The credential is never echoed or logged.
 */

export interface Challenge {
  readonly schemes: readonly AuthScheme[];
  readonly realm: string;
  /** RFC 9728: where the protected-resource metadata is, only when an OAuth authorization server is configured. */
  readonly resourceMetadata?: string;
}

/** The schemes a 401 offers: as configured, else Bearer (AdCP's API keys), and Basic when the authenticator says it takes Basic. */
export function challengeSchemes(authenticate: Authenticator | undefined, configured: readonly AuthScheme[] | undefined): readonly AuthScheme[] {
  if (configured !== undefined) {
    if (configured.length === 0 || configured.some((s) => s !== 'Bearer' && s !== 'Basic')) throw new Error('adcp-codegen: challenges must name "Bearer" and/or "Basic"');
    return [...configured];
  }
  const marked = (authenticate as MarkedAuthenticator | undefined)?.[AUTH_SCHEMES] ?? [];
  return marked.includes('Basic') ? ['Bearer', 'Basic'] : ['Bearer'];
}

/** What the authenticator made of a request's credentials, before anything is answered. */
export type Identified =
  | { readonly kind: 'principal'; readonly principal: AuthPrincipal }
  /** No authenticator configured: every caller is let in (a development server). */
  | { readonly kind: 'open' }
  /** No credentials presented. */
  | { readonly kind: 'anonymous' }
  /** Credentials presented that no authenticator recognized, or that one refused (it threw). */
  | { readonly kind: 'refused'; readonly message: string }
  /** The authenticator answered something that is not a principal: the agent's bug. */
  | { readonly kind: 'broken'; readonly error: Error };

export async function identify(req: IncomingMessage, authenticate: Authenticator | undefined): Promise<Identified> {
  if (authenticate === undefined) return { kind: 'open' };
  let found: unknown;
  try {
    found = await authenticate(req);
  } catch (e) {
    return { kind: 'refused', message: publicMessage(e) };
  }
  if (found === null || found === undefined) {
    return presentsCredentials(req) ? { kind: 'refused', message: 'Missing or unrecognized credentials.' } : { kind: 'anonymous' };
  }
  if (!isObject(found) || typeof found.principal !== 'string' || found.principal === '') {
    return { kind: 'broken', error: new Error('the authenticator returned neither null nor { principal: string }') };
  }
  return { kind: 'principal', principal: found as AuthPrincipal };
}

/**
 * The entry's answer to who is calling: the principal (or none, on a public call), or undefined with the 401 (or the
 * 500 of a broken authenticator) sent.
 */
export function admitIdentified(res: ServerResponse, who: Identified, isPublic: boolean, challenge: Challenge, log?: RuntimeLog): { principal?: AuthPrincipal } | undefined {
  switch (who.kind) {
    case 'principal':
      return { principal: who.principal };
    case 'open':
      return {};
    case 'anonymous':
      if (isPublic) return {};
      log?.info('unauthorized', `adcp-codegen: ${res.req.method ?? '?'} ${res.req.url ?? ''}: 401, no credentials`, { status: 401 });
      unauthorized(res, challenge, undefined, 'Authentication required.');
      return undefined;
    case 'refused':
      // What the authenticator said of them, never the credentials.
      log?.info('unauthorized', `adcp-codegen: ${res.req.method ?? '?'} ${res.req.url ?? ''}: 401 invalid_token`, { status: 401 });
      unauthorized(res, challenge, 'invalid_token', who.message);
      return undefined;
    case 'broken':
      internalError(res, who.error, 'authenticate', log);
      return undefined;
  }
}

/** The principal as the MCP SDK's AuthInfo (`req.auth`), which its transport hands to every handler. */
export function mcpAuthInfo(principal: AuthPrincipal): Record<string, unknown> {
  return {
    token: typeof principal.token === 'string' ? principal.token : '',
    clientId: principal.principal,
    scopes: Array.isArray(principal.scopes) ? principal.scopes : [],
    ...(typeof principal.expiresAt === 'number' ? { expiresAt: principal.expiresAt } : {}),
    extra: { principal: withoutToken(principal) },
  };
}

/** What the authenticator said, the credential left out: what a handler may see of it (`ctx.auth`). */
export function withoutToken(principal: AuthPrincipal): Omit<AuthPrincipal, 'token'> {
  const { token: _token, ...rest } = principal;
  return rest;
}

function presentsCredentials(req: IncomingMessage): boolean {
  const { authorization } = req.headers;
  const legacy = req.headers['x-adcp-auth'];
  return (typeof authorization === 'string' && authorization.trim() !== '') || (typeof legacy === 'string' && legacy !== '');
}

function publicMessage(e: unknown): string {
  const text = isObject(e) || e instanceof Error ? (e as { publicMessage?: unknown }).publicMessage : undefined;
  // One short line of the authenticator's own choosing, or the generic words.
  return typeof text === 'string' && text !== '' && text.length <= 200 && !/[\r\n"\\]/.test(text) ? text : 'Credentials rejected.';
}

function unauthorized(res: ServerResponse, challenge: Challenge, error: 'invalid_token' | undefined, description: string): void {
  const params = [
    `realm="${quoted(challenge.realm)}"`,
    ...(error !== undefined ? [`error="${error}"`, `error_description="${quoted(description)}"`] : []),
    ...(challenge.resourceMetadata !== undefined ? [`resource_metadata="${quoted(challenge.resourceMetadata)}"`] : []),
  ];
  const headers = challenge.schemes.map((s) => (s === 'Bearer' ? `Bearer ${params.join(', ')}` : `Basic realm="${quoted(challenge.realm)}", charset="UTF-8"`));
  sendJson(res, 401, { error: error ?? 'unauthorized', error_description: description }, { 'www-authenticate': headers, 'cache-control': 'no-store' });
}

function quoted(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

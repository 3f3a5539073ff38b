import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AuthPrincipal, Authenticator } from '../../api/http-types.js';
import type { RequestSignatureVerifier, SignatureVerdict } from '../../api/signing-types.js';
import { admitIdentified, identify, type Challenge } from './authenticate.js';
import { internalError, sendJson } from './respond.js';
import { WARNINGS, type RuntimeLog } from '../../ops/log.js';

/**
 * Who may go on, for a JSON-RPC POST whose body is read: the authenticator's verdict on the headers composed with the
 * RFC 9421 signature's, when the profile advertises request signing (docs/signing.md, "What the HTTP entry calls";
 * security.mdx, "Composition with fallback authenticators"):
 * - a signature the verifier refuses is 401 `WWW-Authenticate: Signature error="<code>"`, whatever other credentials
 *   came with it (a signed request is judged on its signature; an unsigned `required_for` call without other
 *   credentials is refused here too);
 * - a valid signature authenticates on its own: the principal is the authenticator's when it also named one (the
 *   operator's mapping of credentials to accounts), else the signer's; the signer rides along as `verified_signer`;
 * - otherwise, exactly as without signing (authenticate.ts).
 */

export interface ReadMessage {
  /** The body as received, decoded once: what a Content-Digest covers. Absent when middleware parsed it first. */
  readonly text?: string;
  readonly value: unknown;
}

export type Admit = (req: IncomingMessage, res: ServerResponse, message: ReadMessage, isPublic: boolean) => Promise<{ principal?: AuthPrincipal } | undefined>;

export function admission(authenticate: Authenticator | undefined, challenge: Challenge, verifier: RequestSignatureVerifier | undefined, publicUrl: string | undefined, log: RuntimeLog = WARNINGS): Admit {
  const scheme = publicUrl !== undefined ? new URL(publicUrl).protocol.slice(0, -1) : undefined;
  return async (req, res, message, isPublic) => {
    const who = await identify(req, authenticate);
    if (verifier === undefined) return admitIdentified(res, who, isPublic, challenge, log);
    let verdict: SignatureVerdict;
    try {
      verdict = await verifier.verify({
        method: req.method ?? 'POST',
        url: targetUri(req, scheme),
        headers: req.headers,
        body: message.text ?? rawBodyOf(req),
        json: message.value,
        authenticated: who.kind === 'principal',
      });
    } catch (e) {
      // The replay store is out of reach: a signature cannot be judged, so it is not accepted.
      if ((e as Error | undefined)?.name === 'StoreUnavailable') {
        log.error('store_unavailable', `adcp-codegen: request signatures: ${(e as Error).message}`);
        sendJson(res, 503, { error: 'temporarily_unavailable' }, { 'retry-after': '5' });
      } else internalError(res, e, 'verify request signature', log);
      return undefined;
    }
    if (!verdict.ok) {
      log.info('signature_refused', `adcp-codegen: ${req.method ?? '?'} ${req.url ?? ''}: ${verdict.code}: ${verdict.detail}`, { code: verdict.code });
      sendJson(res, verdict.status, { error: verdict.code }, { 'www-authenticate': verdict.wwwAuthenticate, 'cache-control': 'no-store' });
      return undefined;
    }
    if (verdict.authenticatedBy === 'signature') {
      const { keyid, agent_url, verified_at } = verdict.signer;
      const verified_signer = { keyid, ...(agent_url !== undefined ? { agent_url } : {}), verified_at };
      const principal = who.kind === 'principal' ? who.principal : { principal: verdict.signer.principal };
      return { principal: { ...principal, verified_signer } };
    }
    if (verdict.authenticatedBy === 'fallback' && verdict.warning !== undefined) {
      log.warn('signature_shadowed', `adcp-codegen: ${req.method ?? '?'} ${req.url ?? ''}: a shadowed request signature failed (${verdict.warning})`);
    }
    return admitIdentified(res, who, isPublic, challenge, log);
  };
}

/**
 * The URL the buyer signed: the public scheme (the configured public URL's, else the socket's), the Host as received
 * and the request target unchanged. Never the configured host: a Host naming another authority must fail the
 * verifier's cross-vhost check, not be papered over here.
 */
function targetUri(req: IncomingMessage, scheme: string | undefined): string {
  const proto = scheme ?? ((req.socket as TLSSocket).encrypted === true ? 'https' : 'http');
  const authority = req.headers[':authority'] ?? req.headers.host ?? '';
  return `${proto}://${String(authority)}${req.url ?? '/'}`;
}

/** A body middleware parsed first: its raw bytes, when the middleware kept them (`express.json({ verify })`'s `rawBody`). */
function rawBodyOf(req: IncomingMessage): string {
  const raw: unknown = (req as unknown as { rawBody?: unknown }).rawBody;
  if (typeof raw === 'string') return raw;
  return raw instanceof Uint8Array ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8') : '';
}

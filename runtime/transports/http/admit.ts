import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AuthPrincipal, Authenticator } from '../../api/http-types.js';
import type { RequestSignatureVerifier, SignatureVerdict } from '../../api/signing-types.js';
import { Admission, type AdmissionRules, type Refusal } from '../../call/admission.js';
import { identify, unauthorized, type Challenge, type Identified } from './authenticate.js';
import { internalError, sendJson } from './respond.js';
import { WARNINGS, type RuntimeLog } from '../../ops/log.js';

/**
 * Who is calling, for a JSON-RPC POST whose body is read, from what the request carries outside its JSON: the
 * authenticator's verdict on the headers, composed with the RFC 9421 signature's when the profile advertises request
 * signing (its cryptography needs the raw bytes and headers; docs/signing.md, "What the HTTP entry calls"). Nothing
 * here reads what the body invokes: that is decided where the message is read (call/admission.ts).
 * - credentials presented and refused: 401 `invalid_token`, whatever the call (authenticate.ts) — now, or, where request
 *   signing is verified, once the signing policy has judged the call (its refusal comes first);
 * - a signature the verifier refuses whatever the request invokes (malformed, or failed with no other credential to
 *   fall back on): 401 `WWW-Authenticate: Signature error="<code>"` now;
 * - a valid signature authenticates on its own: the principal is the authenticator's when it also named one (the
 *   operator's mapping of credentials to accounts), else the signer's; the signer rides along as `verified_signer`;
 * - otherwise the request goes on with its principal (or none) and the Admission the transports decide on.
 */

export type Admit = (req: IncomingMessage, res: ServerResponse, text: string | undefined) => Promise<{ principal?: AuthPrincipal; admission: Admission } | undefined>;

export function admission(authenticate: Authenticator | undefined, challenge: Challenge, rules: AdmissionRules, verifier: RequestSignatureVerifier | undefined, publicUrl: string | undefined, log: RuntimeLog = WARNINGS): Admit {
  const scheme = publicUrl !== undefined ? new URL(publicUrl).protocol.slice(0, -1) : undefined;
  return async (req, res, text) => {
    const label = `${req.method ?? '?'} ${req.url ?? ''}`;
    const who = await identify(req, authenticate);
    if (who.kind === 'broken') return void internalError(res, who.error, 'authenticate', log);
    if (verifier === undefined) {
      if (who.kind === 'refused') return void refuse(res, challenge, { kind: 'credentials', invalid: who.message }, label, log);
      return { ...principalOf(who), admission: new Admission(rules, callerOf(who), undefined, label) };
    }
    let verdict: SignatureVerdict;
    try {
      verdict = await verifier.verify({ method: req.method ?? 'POST', url: targetUri(req, scheme), headers: req.headers, body: text ?? rawBodyOf(req), authenticated: who.kind === 'principal' });
    } catch (e) {
      // The replay store is out of reach: a signature cannot be judged, so it is not accepted.
      if ((e as Error | undefined)?.name === 'StoreUnavailable') {
        log.error('store_unavailable', `adcp-codegen: request signatures: ${(e as Error).message}`);
        sendJson(res, 503, { error: 'temporarily_unavailable' }, { 'retry-after': '5' });
      } else internalError(res, e, 'verify request signature', log);
      return undefined;
    }
    if (!verdict.ok) return void refuse(res, challenge, { kind: 'signature', ...verdict }, label, log);
    if (verdict.authenticatedBy === 'signature') {
      const { keyid, agent_url, verified_at } = verdict.signer;
      const verified_signer = { keyid, ...(agent_url !== undefined ? { agent_url } : {}), verified_at };
      const principal = who.kind === 'principal' ? who.principal : { principal: verdict.signer.principal };
      return { principal: { ...principal, verified_signer }, admission: new Admission(rules, 'principal', verdict, label) };
    }
    // Refused credentials are refused whatever the call, but the signing policy speaks first (call/admission.ts).
    return { ...principalOf(who), admission: new Admission(rules, callerOf(who), verdict, label, who.kind === 'refused' ? who.message : undefined) };
  };
}

/**
 * The 401 a refusal is answered with: the entry's challenges, or the signature's (its detail in the log only). Logged
 * at info, as every rejection is: the method and path, never the credentials.
 */
export function refuse(res: ServerResponse, challenge: Challenge, refusal: Refusal, label: string, log: RuntimeLog = WARNINGS): void {
  if (refusal.kind === 'credentials') {
    log.info('unauthorized', `adcp-codegen: ${label}: 401${refusal.invalid !== undefined ? ' invalid_token' : ', no credentials'}`, { status: 401 });
    return refusal.invalid !== undefined ? unauthorized(res, challenge, 'invalid_token', refusal.invalid) : unauthorized(res, challenge, undefined, 'Authentication required.');
  }
  log.info('signature_refused', `adcp-codegen: ${label}: ${refusal.code}: ${refusal.detail}`, { code: refusal.code });
  sendJson(res, refusal.status, { error: refusal.code }, { 'www-authenticate': refusal.wwwAuthenticate, 'cache-control': 'no-store' });
}

function principalOf(who: Identified): { principal?: AuthPrincipal } {
  return who.kind === 'principal' ? { principal: who.principal } : {};
}

function callerOf(who: Identified): 'principal' | 'anonymous' | 'open' | 'refused' {
  return who.kind === 'principal' || who.kind === 'open' || who.kind === 'refused' ? who.kind : 'anonymous';
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

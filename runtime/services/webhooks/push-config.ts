import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AdcpError } from '../../wire/errors.js';
import { refusedAddress } from './address-policy.js';
import { sdkSubstitution, ssrfPolicy } from './sdk.js';

/**
 * A buyer's push notification registration, checked when the call carrying it arrives (security.mdx, Webhook URL
 * validation (SSRF); Webhook callbacks, mode selection), so a URL the agent will never deliver to is refused then, as
 * INVALID_REQUEST naming the field, not discovered by a worker later. @adcp/sdk's own webhook SSRF policy decides
 * first: https only, and no private, loopback, link-local, CGNAT, multicast or cloud-metadata address, as a literal or
 * as the name resolves now; in a sandbox, http and loopback are allowed (conformance receivers listen on 127.0.0.1).
 * Beneath it, no address of any IANA special-purpose block, embedded IPv4 forms decoded (address-policy.ts); a sandbox
 * reaches loopback and nothing else. Delivery checks both again, pinned to the address it connects to (a name may be
 * rebound since).
 */

export interface PushCheck {
  readonly sandbox: boolean;
  /** Whether the buyer's `authentication` (legacy HMAC-SHA256 / Bearer) is offered (`webhook_signing.legacy_hmac_fallback`). */
  readonly legacyAuth: boolean;
  /** Resolve a host name and check its addresses (default true); a name that does not exist is refused. */
  readonly resolve?: boolean;
}

/**
 * What a push registration is to this agent: `refused`, a URL it must never register (not a URL, credentials in it,
 * a scheme or an address — literal, or as the name resolves now — its SSRF policy denies) or a malformed legacy
 * `authentication`; or `unusable`, a channel it could not honour (a host that does not resolve now, a legacy scheme
 * the profile does not offer). A call answered at once needs no channel: only a task that would deliver through it
 * must refuse an unusable one (L3/async-operations.mdx: a server that cannot honour the webhook channel rejects the
 * request it would otherwise accept as submitted).
 */
export interface PushVerdict {
  readonly refused?: AdcpError;
  readonly unusable?: AdcpError;
}

export async function checkPushUrl(url: unknown, field: string, check: PushCheck): Promise<AdcpError | undefined> {
  const v = await vetPushUrl(url, field, check);
  return v.refused ?? v.unusable;
}

export async function vetPushUrl(url: unknown, field: string, check: PushCheck): Promise<PushVerdict> {
  const refuse = (problem: string): AdcpError =>
    new AdcpError('INVALID_REQUEST', `${field} ${problem}`, { recovery: 'correctable', field, suggestion: 'register a public https URL the seller can deliver webhooks to' });
  if (typeof url !== 'string' || url === '') return { refused: refuse('must be a URL') };
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { refused: refuse('is not a URL') };
  }
  if (u.username !== '' || u.password !== '') return { refused: refuse('must not carry credentials') };
  if (u.hash !== '') return { refused: refuse('must not carry a fragment') };
  const policy = ssrfPolicy(check.sandbox);
  const { enforceSsrfPolicy, enforceSsrfPolicyResolved } = sdkSubstitution();
  const literal = enforceSsrfPolicy(u, policy);
  if (!literal.allowed) return { refused: refuse(problemOf(literal.rule, check.sandbox)) };
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return refusedAddress(host, check.sandbox) === undefined ? {} : { refused: refuse(problemOf(undefined, check.sandbox)) };
  if (check.resolve === false) return {};
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // A name that does not exist cannot receive; a resolver that failed now is delivery's to find out.
    return code === 'ENOTFOUND' ? { unusable: refuse('names a host that does not resolve') } : {};
  }
  const resolved = enforceSsrfPolicyResolved(u, addresses, policy);
  if (!resolved.allowed) return { refused: refuse(problemOf(resolved.rule, check.sandbox)) };
  return addresses.every((a) => refusedAddress(a, check.sandbox) === undefined) ? {} : { refused: refuse(problemOf(undefined, check.sandbox)) };
}

/**
 * `authentication` on a push registration selects the legacy scheme (HMAC-SHA256, or Bearer) instead of RFC 9421
 * signing, for every webhook to that URL: offered only when the profile says so; its credentials at least 32
 * characters. Refused with INVALID_REQUEST naming `<field>.authentication`, never echoing the credentials.
 */
export function checkPushAuthentication(authentication: unknown, field: string, check: PushCheck): AdcpError | undefined {
  const v = vetPushAuthentication(authentication, field, check);
  return v.refused ?? v.unusable;
}

export function vetPushAuthentication(authentication: unknown, field: string, check: PushCheck): PushVerdict {
  if (authentication === undefined || authentication === null) return {};
  const at = `${field}.authentication`;
  const refuse = (problem: string): AdcpError => new AdcpError('INVALID_REQUEST', `${at} ${problem}`, { recovery: 'correctable', field: at });
  if (!check.legacyAuth) return { unusable: refuse('(legacy HMAC-SHA256 or Bearer) is not offered by this agent: omit it, and webhooks are signed with RFC 9421 (webhook_signing)') };
  const a = authentication as { schemes?: unknown; credentials?: unknown };
  const scheme = Array.isArray(a.schemes) ? a.schemes[0] : undefined;
  if (scheme !== 'HMAC-SHA256' && scheme !== 'Bearer') return { refused: refuse('schemes must be ["HMAC-SHA256"] or ["Bearer"]') };
  if (typeof a.credentials !== 'string' || a.credentials.length < 32) return { refused: refuse('credentials must be at least 32 characters') };
  return {};
}

/** The URL's verdict, then the authentication's: the first refusal, else the first reason it is unusable. */
export async function vetPushConfig(config: unknown, field: string, check: PushCheck): Promise<PushVerdict> {
  const c = (config ?? {}) as { url?: unknown; authentication?: unknown };
  const url = await vetPushUrl(c.url, `${field}.url`, check);
  const auth = vetPushAuthentication(c.authentication, field, check);
  const refused = url.refused ?? auth.refused;
  if (refused !== undefined) return { refused };
  const unusable = url.unusable ?? auth.unusable;
  return unusable !== undefined ? { unusable } : {};
}

function problemOf(rule: string | undefined, sandbox: boolean): string {
  if (rule?.startsWith('schemes_') === true) return sandbox ? 'must be an http or https URL' : 'must be an https URL';
  if (rule?.startsWith('hosts_denied_metadata') === true) return 'must not name a cloud metadata host';
  if (rule?.startsWith('host_literal') === true) return 'must name a host, not an address';
  return sandbox
    ? 'must not point at a private, link-local, reserved or other special-purpose address (a sandbox reaches loopback only)'
    : 'must not point at a private, loopback, link-local, reserved or other special-purpose address';
}

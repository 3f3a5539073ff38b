import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { sdkServer, sdkSubstitution, ssrfPolicy, type FetchLike } from '../webhooks/sdk.js';
import { hostOf } from '../../wire/report.js';
import { GovernanceRefusal } from './checklist.js';

/**
 * The fetches governance makes to counterparty-supplied URLs — a buyer's brand.json, a governance agent's JWKS and
 * revocation list, its check_governance endpoint — under security.mdx's SSRF discipline (Webhook URL validation):
 * https only; no private, loopback, link-local, CGNAT, multicast or cloud-metadata address, as written or as the name
 * resolves; the connection pinned to the checked address (@adcp/sdk's pin-and-bind fetch, AdCP's webhook policy); no
 * redirects; a deadline and a body cap. In a sandbox (a sandbox profile, or mode development) http and loopback are
 * allowed and every other range still refused (LOOPBACK_OK_WEBHOOK_SSRF_POLICY): conformance agents listen on 127.0.0.1.
 */

/** What the SSRF rule decides for a URL, before any connection: undefined when it may be fetched, else why not. */
export async function refusalOf(url: string, sandbox: boolean, resolve = true): Promise<string | undefined> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (u.username !== '' || u.password !== '') return 'credentials in the URL';
  const policy = ssrfPolicy(sandbox);
  const { enforceSsrfPolicy, enforceSsrfPolicyResolved } = sdkSubstitution();
  const literal = enforceSsrfPolicy(u, policy);
  if (!literal.allowed) return literal.rule ?? 'refused';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!resolve || isIP(host) !== 0) return undefined;
  let addresses: string[];
  try {
    addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  } catch {
    // A name that does not resolve now is not a refusal of the rule: the fetch fails, transiently.
    return undefined;
  }
  const resolved = enforceSsrfPolicyResolved(u, addresses, policy);
  return resolved.allowed ? undefined : (resolved.rule ?? 'refused');
}

export interface Fetched {
  readonly status: number;
  readonly body: unknown;
  readonly etag?: string;
}

/** The fetch through which governance's outbound requests go (pinned, policy-checked); made once per agent. */
export function pinnedFetch(sandbox: boolean): FetchLike {
  const sdk = sdkServer();
  return sdk.createPinAndBindFetch({ policy: sandbox ? sdk.LOOPBACK_OK_WEBHOOK_SSRF_POLICY : sdk.WEBHOOK_SSRF_POLICY });
}

/**
 * GETs a JSON document: refused by the SSRF rule → `governance_jwks_untrusted`; unreachable, a 5xx or a timeout →
 * `governance_jwks_unavailable` (transient); a redirect, a body over `maxBytes` or not JSON → untrusted (a
 * misconfiguration, not a retry). A 404 is returned as a status with no body: the caller decides what absence means.
 */
export async function fetchJson(fetch: FetchLike, url: string, sandbox: boolean, maxBytes: number, timeoutMs = 10_000): Promise<Fetched> {
  const refused = await refusalOf(url, sandbox);
  const where = hostOf(url);
  if (refused !== undefined) throw new GovernanceRefusal('governance_jwks_untrusted', `${where}: refused by the SSRF rule (${refused})`);
  let res: Response;
  try {
    res = (await fetch(url, { method: 'GET', headers: { accept: 'application/json' }, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })) as unknown as Response;
  } catch (e) {
    throw new GovernanceRefusal('governance_jwks_unavailable', `${where}: ${(e as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable'}`);
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel();
    throw new GovernanceRefusal('governance_jwks_untrusted', `${where}: answered a redirect (${res.status}); redirects are not followed`);
  }
  if (res.status === 404 || res.status === 410) {
    await res.body?.cancel();
    return { status: res.status, body: undefined };
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new GovernanceRefusal('governance_jwks_unavailable', `${where}: answered ${res.status}`);
  }
  const text = await capped(res, maxBytes, where);
  try {
    return { status: 200, body: JSON.parse(text), ...(res.headers.get('etag') !== null ? { etag: res.headers.get('etag')! } : {}) };
  } catch {
    throw new GovernanceRefusal('governance_jwks_untrusted', `${where}: not JSON`);
  }
}

async function capped(res: Response, maxBytes: number, where: string): Promise<string> {
  const length = Number(res.headers.get('content-length'));
  if (Number.isFinite(length) && length > maxBytes) {
    await res.body?.cancel();
    throw new GovernanceRefusal('governance_jwks_untrusted', `${where}: ${length} bytes, over the ${maxBytes}-byte cap`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw new GovernanceRefusal('governance_jwks_unavailable', `${where}: the body was cut off`);
    });
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new GovernanceRefusal('governance_jwks_untrusted', `${where}: over the ${maxBytes}-byte cap`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

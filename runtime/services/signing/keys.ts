import { readFileSync } from 'node:fs';
import type { RequestSigningOptions, SignerTrust, SigningJwk, SigningJwks } from '../../api/signing-types.js';
import { SignatureFailure, signingSdk, type JwksResolver, type RevocationStore } from './sdk.js';
import { firstLine } from '../../wire/report.js';

/**
 * Whose signatures verify (checklist steps 7–9): each configured counterparty's public keys — a static JWKS, its
 * `jwks_uri`, or the `jwks_uri` its operator's brand.json names (@adcp/sdk's resolvers: cached, refetched on an unknown
 * `kid` within a 30 s cooldown, SSRF-safe) — its revocations, and, per key once resolved, its replay cap and principal.
 * A key source that cannot be reached fails closed (`request_signature_jwks_unavailable`, retryable) and is not asked
 * again for 30 s; a source refused by the SSRF guard is `request_signature_jwks_untrusted`.
 */

export interface TrustedKeys {
  readonly jwks: JwksResolver;
  readonly revocation: RevocationStore;
  /** The replay cap of a key resolved by `jwks` (its counterparty's, else the default). */
  capOf(keyid: string): number;
  /** Who a verified signature by a key resolved by `jwks` is. */
  signerOf(keyid: string): { agentUrl?: string; principal: string };
}

/** security.mdx, "Transport replay dedup": the recommended per-keyid ceiling. */
export const DEFAULT_CAP_PER_KEYID = 1_000_000;
/** How long an unreachable key source answers `jwks_unavailable` without being asked again (spec: ≤ 60 s). */
const UNAVAILABLE_FOR_S = 30;

interface Counterparty {
  readonly trust: SignerTrust;
  readonly what: string;
  /** Built on first use: the SDK's resolvers load with the SDK. */
  source?: JwksResolver & { readonly agentUrl?: string | undefined };
  revocationList?: RevocationStore;
  unavailableUntil: number;
  unavailable?: SignatureFailure;
}

/** Checks the trust configuration (and reads JWKS files) now, at start; the fetchers come on first use. */
export function trustedKeys(options: RequestSigningOptions, clock: () => number): TrustedKeys {
  const counterparties: Counterparty[] = (options.trust ?? []).map((trust, i) => ({ trust: settle(trust, i), what: describe(trust, i), unavailableUntil: 0 }));
  const revoked = new Set(options.revokedKeyids ?? []);
  const defaultCap = capOf(options.capPerKeyid, 'signing.requests.capPerKeyid') ?? DEFAULT_CAP_PER_KEYID;
  const owner = new Map<string, Counterparty>();
  const allowPrivateIp = options.allowPrivateNetwork === true;

  const sourceOf = (c: Counterparty): NonNullable<Counterparty['source']> => {
    if (c.source !== undefined) return c.source;
    const sdk = signingSdk();
    const t = c.trust;
    if (t.jwks !== undefined) c.source = new sdk.StaticJwksResolver([...(t.jwks as SigningJwks).keys]);
    else if (t.jwksUrl !== undefined) c.source = new sdk.HttpsJwksResolver(t.jwksUrl, { allowPrivateIp, now: clock });
    else c.source = new sdk.BrandJsonJwksResolver(t.brandJson!.url, { ...t.brandJson!, allowPrivateIp, now: clock });
    return c.source;
  };

  const resolveIn = async (c: Counterparty, keyid: string): Promise<SigningJwk | null> => {
    if (c.unavailable !== undefined && clock() < c.unavailableUntil) throw c.unavailable;
    try {
      const key = await sourceOf(c).resolve(keyid);
      c.unavailable = undefined;
      return key;
    } catch (e) {
      c.unavailable = sourceFailure(e, c.what);
      c.unavailableUntil = clock() + UNAVAILABLE_FOR_S;
      throw c.unavailable;
    }
  };

  const jwks: JwksResolver = {
    async resolve(keyid) {
      let failure: SignatureFailure | undefined;
      for (const c of counterparties) {
        try {
          const key = await resolveIn(c, keyid);
          if (key === null) continue;
          owner.set(keyid, c);
          return key;
        } catch (e) {
          failure ??= e as SignatureFailure;
        }
      }
      // Unknown to every source that answered; if one could not answer, it may hold the key: fail closed, retryable.
      if (failure !== undefined) throw failure;
      return null;
    },
  };

  const revocation: RevocationStore = {
    async isRevoked(keyid) {
      const c = owner.get(keyid);
      if (revoked.has(keyid) || c?.trust.revokedKeyids?.includes(keyid) === true) return true;
      if (c?.trust.revocationUrl === undefined) return false;
      c.revocationList ??= new (signingSdk().HttpsRevocationStore)(c.trust.revocationUrl, { expectedIssuer: c.trust.revocationIssuer, allowPrivateIp, now: clock });
      try {
        return await c.revocationList.isRevoked(keyid);
      } catch (e) {
        if (e instanceof signingSdk().RequestSignatureError) throw e;
        // No list fetched yet: freshness cannot be shown, so the key's signatures fail closed.
        throw new SignatureFailure('request_signature_revocation_stale', `${c.what}: its revocation list could not be fetched (${reason(e)})`);
      }
    },
  };

  return {
    jwks,
    revocation,
    capOf: (keyid) => owner.get(keyid)?.trust.capPerKeyid ?? defaultCap,
    signerOf(keyid) {
      const c = owner.get(keyid);
      const agentUrl = c?.trust.agentUrl ?? c?.source?.agentUrl;
      return { agentUrl, principal: c?.trust.principal ?? agentUrl ?? `keyid:${keyid}` };
    },
  };
}

/** The spec's code for a key source that failed: SSRF refusals are untrusted, brand.json errors by kind, the rest transient. */
function sourceFailure(e: unknown, what: string): SignatureFailure {
  const err = e as { name?: unknown; code?: unknown };
  if (err?.name === 'SsrfRefusedError' && err.code !== 'dns_lookup_failed' && err.code !== 'dns_empty') {
    return new SignatureFailure('request_signature_jwks_untrusted', `${what}: the fetch was refused (${String(err.code)})`);
  }
  if (err?.name === 'BrandJsonResolverError') {
    const code = BRAND_JSON_CODES[String(err.code)] ?? 'request_signature_brand_json_malformed';
    return new SignatureFailure(code, `${what}: ${reason(e)}`);
  }
  return new SignatureFailure('request_signature_jwks_unavailable', `${what}: its keys could not be fetched (${reason(e)})`);
}

const BRAND_JSON_CODES: Readonly<Record<string, string>> = {
  fetch_failed: 'request_signature_brand_json_unreachable',
  agent_not_found: 'request_signature_agent_not_in_brand_json',
  agent_ambiguous: 'request_signature_brand_json_ambiguous',
  jwks_origin_mismatch: 'request_signature_key_origin_mismatch',
};

/** One trust entry, checked: exactly one key source, https URLs, a JWKS file read now. */
function settle(trust: SignerTrust, i: number): SignerTrust {
  const where = `signing.requests.trust[${i}]`;
  const sources = (['jwks', 'jwksUrl', 'brandJson'] as const).filter((k) => trust[k] !== undefined);
  if (sources.length !== 1) throw new Error(`adcp-codegen: ${where} needs exactly one key source (jwks, jwksUrl or brandJson), not ${sources.length === 0 ? 'none' : sources.join(' and ')}`);
  for (const url of [trust.jwksUrl, trust.brandJson?.url, trust.revocationUrl]) if (url !== undefined) absoluteUrl(url, where);
  capOf(trust.capPerKeyid, `${where}.capPerKeyid`);
  if (typeof trust.jwks !== 'string') return trust.jwks === undefined ? trust : { ...trust, jwks: checkedJwks(trust.jwks, where) };
  let text: string;
  try {
    text = readFileSync(trust.jwks, 'utf8');
  } catch (e) {
    throw new Error(`adcp-codegen: ${where}.jwks: ${trust.jwks} cannot be read (${(e as NodeJS.ErrnoException).code ?? reason(e)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`adcp-codegen: ${where}.jwks: ${trust.jwks} is not JSON`);
  }
  return { ...trust, jwks: checkedJwks(parsed, `${where}.jwks (${trust.jwks})`) };
}

/** A JWKS of public keys: a `keys` array of objects with a `kid`; private members (`d`) are refused, never kept. */
function checkedJwks(value: unknown, where: string): SigningJwks {
  const keys = (value as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || !keys.every((k) => k !== null && typeof k === 'object' && typeof (k as SigningJwk).kid === 'string')) {
    throw new Error(`adcp-codegen: ${where} is not a JWKS: an object whose "keys" is an array of JWKs, each with a "kid"`);
  }
  const secret = (keys as SigningJwk[]).find((k) => 'd' in k);
  if (secret !== undefined) throw new Error(`adcp-codegen: ${where}: key ${JSON.stringify(secret.kid)} holds a private member ("d"); trust public keys only`);
  return { keys: keys as SigningJwk[] };
}

function absoluteUrl(url: string, where: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`adcp-codegen: ${where}: ${JSON.stringify(url)} is not an absolute URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`adcp-codegen: ${where}: ${u.protocol} URLs cannot publish keys; use https`);
}

function capOf(cap: number | undefined, option: string): number | undefined {
  if (cap !== undefined && !(Number.isInteger(cap) && cap > 0)) throw new Error(`adcp-codegen: ${option} must be a positive integer, not ${JSON.stringify(cap)}`);
  return cap;
}

/** A counterparty named for messages: its agent or principal, and where its keys come from (host only: no query). */
function describe(trust: SignerTrust, i: number): string {
  const host = (url: string): string => {
    try {
      return new URL(url).host;
    } catch {
      return '?';
    }
  };
  const source = trust.jwksUrl !== undefined ? `JWKS at ${host(trust.jwksUrl)}` : trust.brandJson !== undefined ? `brand.json at ${host(trust.brandJson.url)}` : 'static JWKS';
  return `signer ${trust.principal ?? trust.agentUrl ?? `#${i}`} (${source})`;
}

/** An error's first line, URLs cut to their origin (a query or path may hold a token), for the server's log. */
function reason(e: unknown): string {
  const line = firstLine(e);
  return line.replace(/https?:\/\/[^\s"'`)]+/g, (url) => {
    try {
      return new URL(url).origin;
    } catch {
      return 'a URL';
    }
  }).slice(0, 200);
}

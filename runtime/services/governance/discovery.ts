import type { FetchLike } from '../webhooks/sdk.js';
import { GovernanceRefusal, type IssuerKeys } from './checklist.js';
import { hostOf } from '../../wire/report.js';
import { fetchJson } from './fetch.js';

/**
 * Where a governance token's keys come from (security.mdx, "Key discovery (JWKS)" and "Buyer identity resolution"):
 * the buyer — established by the service's own records of the authenticated caller, never by the token — publishes a
 * brand.json; the `agents[]` entry of type `governance` whose `url` is byte for byte the token's `iss` names the
 * `jwks_uri` (default `{origin of iss}/.well-known/jwks.json`); that JWKS holds the key. brand.json follows one
 * redirect (`authoritative_location`, or a `house` domain) and is cached an hour, a failure 60 s, and refetched (once
 * in 30 s) when a token names an issuer it does not list; a JWKS is cached 5 minutes (under the revocation list's
 * polling interval) within 64 KiB, and refetched once, within a 30-second cooldown, for an unknown `kid`.
 */
export interface Discovery {
  /** Step 5: the issuer's keys, or undefined when the buyer's brand.json names no such governance agent. */
  issuer(brandJson: string, iss: string): Promise<IssuerKeys | undefined>;
  /** Step 13: whether the buyer's current brand.json lists `iss`. */
  listed(brandJson: string, iss: string): Promise<boolean>;
}

export const MAX_JWKS_BYTES = 64 * 1024;
/** brand.json's body cap (the spec's recommended budget for the brand.json bootstrap). */
export const MAX_BRAND_JSON_BYTES = 256 * 1024;
const BRAND_TTL_MS = 3_600_000;
const NEGATIVE_TTL_MS = 60_000;
const JWKS_TTL_MS = 300_000;
const COOLDOWN_MS = 30_000;

interface Snapshot {
  at: number;
  /** iss → jwks_uri, for every governance entry; undefined for a failed fetch (negative cache). */
  governance?: Map<string, string>;
  failure?: GovernanceRefusal;
}

interface KeySet {
  at: number;
  keys: Map<string, Readonly<Record<string, unknown>>>;
}

export function discovery(fetch: FetchLike, sandbox: boolean, clock: () => number = Date.now): Discovery {
  const brands = new Map<string, Promise<Snapshot>>();
  const jwks = new Map<string, Promise<KeySet>>();

  const brand = async (url: string, force: boolean): Promise<Snapshot> => {
    const cached = brands.get(url);
    if (cached !== undefined) {
      const s = await cached;
      const age = clock() - s.at;
      if (age < (s.failure !== undefined ? NEGATIVE_TTL_MS : force ? COOLDOWN_MS : BRAND_TTL_MS)) return s;
    }
    const next = readBrand(fetch, url, sandbox).then(
      (governance) => ({ at: clock(), governance }),
      (e: unknown) => ({ at: clock(), failure: e instanceof GovernanceRefusal ? e : new GovernanceRefusal('governance_jwks_unavailable', String(e)) }),
    );
    brands.set(url, next);
    if (brands.size > 10_000) brands.delete(brands.keys().next().value!);
    return next;
  };
  const entry = async (brandJson: string, iss: string): Promise<string | undefined> => {
    let s = await brand(brandJson, false);
    if (s.failure === undefined && !s.governance!.has(iss)) s = await brand(brandJson, true);
    if (s.failure !== undefined) throw s.failure;
    return s.governance!.get(iss);
  };
  const keySet = async (uri: string, force: boolean): Promise<KeySet> => {
    const cached = jwks.get(uri);
    if (cached !== undefined) {
      const k = await cached.catch(() => undefined);
      if (k !== undefined && clock() - k.at < (force ? COOLDOWN_MS : JWKS_TTL_MS)) return k;
    }
    const next = fetchJson(fetch, uri, sandbox, MAX_JWKS_BYTES).then((r) => ({ at: clock(), keys: keysOf(r.body, uri) }));
    jwks.set(uri, next);
    next.catch(() => jwks.delete(uri));
    if (jwks.size > 10_000) jwks.delete(jwks.keys().next().value!);
    return next;
  };
  const keys = async (brandJson: string, iss: string): Promise<IssuerKeys | undefined> => {
    const uri = await entry(brandJson, iss);
    if (uri === undefined) return undefined;
    return {
      async key(kid) {
        const found = (await keySet(uri, false)).keys.get(kid);
        return found ?? (await keySet(uri, true)).keys.get(kid) ?? null;
      },
    };
  };
  return {
    issuer: keys,
    async listed(brandJson, iss) {
      return (await entry(brandJson, iss)) !== undefined;
    },
  };
}

/** brand.json's governance agents (iss → jwks_uri), one redirect followed. */
async function readBrand(fetch: FetchLike, url: string, sandbox: boolean): Promise<Map<string, string>> {
  let doc = await document(fetch, url, sandbox);
  const redirect = typeof doc.authoritative_location === 'string' ? doc.authoritative_location : typeof doc.house === 'string' ? `https://${doc.house}/.well-known/brand.json` : undefined;
  if (redirect !== undefined) {
    doc = await document(fetch, redirect, sandbox);
    if (typeof doc.authoritative_location === 'string' || typeof doc.house === 'string') throw new GovernanceRefusal('governance_jwks_untrusted', `${hostOf(url)}: brand.json redirects twice`);
  }
  const governance = new Map<string, string>();
  const ambiguous = new Set<string>();
  const house = doc.house !== null && typeof doc.house === 'object' ? (doc.house as Record<string, unknown>) : undefined;
  const brands = Array.isArray(doc.brands) ? doc.brands : [];
  for (const list of [doc.agents, house?.agents, ...brands.map((b) => (b as Record<string, unknown> | null)?.agents)]) {
    if (!Array.isArray(list)) continue;
    for (const a of list as Record<string, unknown>[]) {
      if (a === null || typeof a !== 'object' || a.type !== 'governance' || typeof a.url !== 'string') continue;
      const uri = typeof a.jwks_uri === 'string' ? a.jwks_uri : URL.canParse(a.url) ? new URL('/.well-known/jwks.json', a.url).href : undefined;
      if (uri === undefined) continue;
      if (governance.has(a.url) && governance.get(a.url) !== uri) ambiguous.add(a.url);
      governance.set(a.url, uri);
    }
  }
  // Two entries for one issuer naming different keys: neither is trusted.
  for (const iss of ambiguous) governance.delete(iss);
  return governance;
}

async function document(fetch: FetchLike, url: string, sandbox: boolean): Promise<Record<string, unknown>> {
  const r = await fetchJson(fetch, url, sandbox, MAX_BRAND_JSON_BYTES);
  if (r.status !== 200) throw new GovernanceRefusal('governance_jwks_unavailable', `${hostOf(url)}: no brand.json (${r.status})`);
  if (r.body === null || typeof r.body !== 'object' || Array.isArray(r.body)) throw new GovernanceRefusal('governance_jwks_untrusted', `${hostOf(url)}: brand.json is not an object`);
  return r.body as Record<string, unknown>;
}

/** A JWKS's keys by kid; a document that is not a JWKS is untrusted, a kid published twice is neither key. */
function keysOf(body: unknown, uri: string): Map<string, Readonly<Record<string, unknown>>> {
  const list = (body as { keys?: unknown } | undefined)?.keys;
  if (!Array.isArray(list)) throw new GovernanceRefusal('governance_jwks_untrusted', `${hostOf(uri)}: not a JWKS`);
  const keys = new Map<string, Readonly<Record<string, unknown>>>();
  const twice = new Set<string>();
  for (const k of list as Record<string, unknown>[]) {
    if (k === null || typeof k !== 'object' || typeof k.kid !== 'string') continue;
    if (keys.has(k.kid)) twice.add(k.kid);
    keys.set(k.kid, k);
  }
  for (const kid of twice) keys.delete(kid);
  return keys;
}

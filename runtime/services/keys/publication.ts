import type { PublicationOptions, WellKnownDocument } from '../../api/webhook-types.js';
import type { ProfileRelease } from '../../artifacts/profile.js';
import type { CapabilityPart } from '../capabilities.js';
import type { SigningKeys } from './keys.js';
import { A2A_PATH, BRAND_JSON_PATH, JWKS_PATH, MCP_PATH } from '../../wire/paths.js';

/**
 * Where buyers find the agent's signing keys (security.mdx, "Discovering an agent's signing keys via brand_json_url"):
 * `identity.brand_json_url` in get_adcp_capabilities → brand.json → the `agents[]` entry whose `url` is the agent's
 * URL byte for byte → its `jwks_uri` → the JWKS. A verifier looks the agent up by the URL it talks to, so brand.json
 * names every URL the HTTP entry answers AdCP at: MCP, and A2A both at its card's URL and at the base URL A2A clients
 * are given (brand.json allows one type several entries with distinct URLs). The agent serves both documents under its
 * public URL (`/.well-known/brand.json`, `/.well-known/jwks.json`; the HTTP entry mounts them) and fills in the
 * capability.
 */

/**
 * What another service adds to the agent's publication: its own brand.json `agents[]` entries and documents (a
 * governance agent's issuer entry, governance JWKS and revocation list), given the public base URL.
 */
export interface PublicationPart {
  agents(base: string): Record<string, unknown>[];
  wellKnown(path: string, base: string | undefined): Promise<WellKnownDocument | undefined> | undefined;
}

export interface Publication {
  /** The public base URL (`https://seller.example`, no trailing slash), when configured or told by the entry. */
  baseUrl(): string | undefined;
  /**
   * The HTTP entry's own public URL (from its options or listening address), used when none is configured, and
   * whether it serves A2A there (brand.json then names the A2A URLs too).
   */
  useListeningUrl(url: string, a2a?: boolean): void;
  /** The agent's MCP URL (`<public URL>/mcp`), as brand.json names it: what buyers know the agent by. */
  agentUrl(): string | undefined;
  /** What `identity.brand_json_url` advertises: the configured one, else `<public URL>/.well-known/brand.json`; https only. */
  brandJsonUrl(): string | undefined;
  brandJson(): Record<string, unknown> | undefined;
  /** The document the entry serves at `path` (a pathname: `/.well-known/jwks.json`), or undefined for none. */
  wellKnown(path: string): Promise<WellKnownDocument | undefined>;
  /** The capability part filling in `identity.brand_json_url` where a release declares it and the profile does not. */
  readonly capabilityPart: CapabilityPart;
  /** Adds another service's entries and documents. */
  contribute(part: PublicationPart): void;
}

export interface PublicationSettings {
  readonly profile: string;
  /** The profile's highest release's `supported_protocols`: the brand.json agent type by default. */
  readonly protocols: readonly string[];
  readonly publicUrl?: string;
  readonly options?: PublicationOptions;
  readonly env?: NodeJS.ProcessEnv;
}

const AGENT_TYPES: Readonly<Record<string, string>> = { media_buy: 'sales', signals: 'signals', creative: 'creative', governance: 'governance', brand: 'brand' };
/** Verifiers cache a JWKS at most 30 min and refetch on an unknown kid: five minutes keeps a rotation visible soon. */
const CACHE = 'public, max-age=300';

/** `keys`: the agent's request-signing keys, or undefined for an agent that signs no requests or webhooks. */
export function publication(keys: SigningKeys | undefined, settings: PublicationSettings): Publication {
  const env = settings.env ?? process.env;
  const configured = settings.publicUrl ?? nonEmpty(env.ADCP_PUBLIC_URL);
  const configuredBase = configured === undefined ? undefined : baseOf(configured, settings.publicUrl !== undefined ? 'AgentOptions.publicUrl' : 'ADCP_PUBLIC_URL');
  const brandOverride = settings.options?.brandJsonUrl ?? nonEmpty(env.ADCP_BRAND_JSON_URL);
  if (brandOverride !== undefined) baseOf(brandOverride, 'the brand.json URL (publication.brandJsonUrl / ADCP_BRAND_JSON_URL)');
  const agentId = settings.options?.agentId ?? settings.profile.replace(/[^a-z0-9_]/g, '_').slice(0, 100);
  if (!/^[a-z0-9_]{1,100}$/.test(agentId)) throw new Error(`adcp-codegen: publication.agentId ${JSON.stringify(agentId)} must match ^[a-z0-9_]+$ (brand.json agents[].id)`);
  const agentType = settings.options?.agentType ?? settings.protocols.map((p) => AGENT_TYPES[p]).find((t) => t !== undefined) ?? 'sales';
  let listening: string | undefined;
  let a2a = true;
  const parts: PublicationPart[] = [];
  const baseUrl = (): string | undefined => configuredBase ?? listening;
  const brandJsonUrl = (): string | undefined => {
    const url = brandOverride ?? (baseUrl() === undefined ? undefined : `${baseUrl()}${BRAND_JSON_PATH}`);
    // The capability's schema requires https: a local http agent publishes its documents but advertises no pointer.
    return url?.startsWith('https://') === true ? url : undefined;
  };
  const brandJson = (): Record<string, unknown> | undefined => {
    const base = baseUrl();
    if (base === undefined) return undefined;
    const jwks_uri = `${base}${JWKS_PATH}`;
    const mcp = { type: agentType, id: agentId, url: `${base}${MCP_PATH}`, jwks_uri };
    const own = keys === undefined ? [] : !a2a ? [mcp] : [mcp, { type: agentType, id: `${agentId}_a2a`, url: `${base}${A2A_PATH}`, jwks_uri }, { type: agentType, id: `${agentId}_a2a_base`, url: base, jwks_uri }];
    const agents = [...own, ...parts.flatMap((p) => p.agents(base))];
    return agents.length === 0 ? undefined : { agents };
  };
  return {
    baseUrl,
    useListeningUrl(url, servesA2A = true) {
      a2a = servesA2A;
      if (configuredBase === undefined) listening = baseOf(url, 'the HTTP entry\'s public URL');
    },
    agentUrl: () => (baseUrl() === undefined ? undefined : `${baseUrl()}${MCP_PATH}`),
    brandJsonUrl,
    brandJson,
    async wellKnown(path) {
      for (const part of parts) {
        const served = await part.wellKnown(path, baseUrl());
        if (served !== undefined) return served;
      }
      const doc = path === BRAND_JSON_PATH ? brandJson() : path === JWKS_PATH ? await keys?.jwks() : undefined;
      return doc === undefined ? undefined : jsonDocument(doc);
    },
    contribute: (part) => void parts.push(part),
    capabilityPart(body: Record<string, unknown>, release: ProfileRelease) {
      if (release.fillable?.includes('identity.brand_json_url') !== true) return;
      const url = brandJsonUrl();
      const identity = body.identity;
      if (url === undefined || (identity !== undefined && (identity === null || typeof identity !== 'object'))) return;
      // What the profile states stays: a part fills in, never contradicts.
      if ((identity as Record<string, unknown> | undefined)?.brand_json_url !== undefined) return;
      body.identity = { ...(identity as Record<string, unknown> | undefined), brand_json_url: url };
    },
  };
}

/**
 * A public JSON document as the entry serves it. application/json, not application/jwk-set+json: AdCP's grader parses
 * a body only under that content type.
 */
export function jsonDocument(doc: unknown): WellKnownDocument {
  return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': CACHE }, body: JSON.stringify(doc) };
}

/** A public base URL as given (buyers compare the agent's URL byte for byte), checked and without a trailing slash. */
export function baseOf(url: string, what: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`adcp-codegen: ${what} is not a URL`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`adcp-codegen: ${what} must be an https (or, locally, http) URL`);
  if (u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '' || url.includes('?') || url.includes('#')) {
    throw new Error(`adcp-codegen: ${what} must be a plain base URL: no credentials, query or fragment`);
  }
  return url.replace(/\/+$/, '');
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

import { createRequire } from 'node:module';
import { agentPackage, agentPackagePath } from '../../artifacts/packages.js';
import type { SigningJwk } from '../../api/signing-types.js';

/**
 * What the verifier uses of the agent's own @adcp/sdk (`@adcp/sdk/signing/server`, 6.11), typed structurally: the RFC
 * 9421 checklist (parsing, canonicalization, cryptography, digest), the JWKS and revocation fetchers, and the
 * `structured-headers` library the SDK itself parses with (for the 3.2 profile's strict sf-binary). Nothing here parses
 * a header or verifies a signature by hand.
 *
 * Requiring the SDK's signing module takes about a second, so it is required on first need — the first signed request,
 * or the background load `agent.ready()` starts — never by an unsigned request.
 */

export type Headers = { readonly [name: string]: string | string[] | undefined };

export interface SdkRequest {
  method: string;
  url: string;
  headers: Headers;
  body?: string;
}

export interface JwksResolver {
  resolve(keyid: string): Promise<SigningJwk | null>;
}

export interface RevocationStore {
  isRevoked(keyid: string): Promise<boolean>;
}

export type ReplayInsertResult = 'ok' | 'replayed' | 'rate_abuse';

/** The SDK's replay-store contract: `now` in Unix seconds, `scope` the canonical @target-uri. */
export interface ReplayStore {
  has(keyid: string, scope: string, nonce: string, now: number): Promise<boolean>;
  isCapHit(keyid: string, scope: string, now: number): Promise<boolean>;
  insert(keyid: string, scope: string, nonce: string, ttlSeconds: number, now: number): Promise<ReplayInsertResult>;
}

export interface SdkCapability {
  supported: boolean;
  covers_content_digest: 'required' | 'forbidden' | 'either';
  required_for: string[];
}

export type SdkVerifyResult = { status: 'verified'; keyid: string; agent_url?: string; verified_at: number } | { status: 'unsigned'; verified_at: number };

export interface SigningSdk {
  verifyRequestSignature(
    request: SdkRequest,
    options: {
      capability: SdkCapability;
      jwks: JwksResolver;
      replayStore: ReplayStore;
      revocationStore: RevocationStore;
      now?: () => number;
      operation?: string;
      agentUrlForKeyid?: (keyid: string) => string | undefined;
    },
  ): Promise<SdkVerifyResult>;
  RequestSignatureError: new (code: string, failedStep: number, message: string) => Error & { readonly code: string; readonly failedStep: number };
  StaticJwksResolver: new (keys: SigningJwk[]) => JwksResolver;
  HttpsJwksResolver: new (url: string, options?: { allowPrivateIp?: boolean; now?: () => number }) => JwksResolver;
  BrandJsonJwksResolver: new (
    url: string,
    options: { agentType: string; agentId?: string; brandId?: string; allowPrivateIp?: boolean; now?: () => number },
  ) => JwksResolver & { readonly agentUrl: string | undefined };
  HttpsRevocationStore: new (url: string, options?: { expectedIssuer?: string; allowPrivateIp?: boolean; now?: () => number }) => RevocationStore;
  canonicalTargetUri(url: string): string;
  canonicalAuthority(url: string): string;
}

interface StructuredHeaders {
  parseDictionary(text: string): unknown;
}

const PURPOSE = 'request signing (RFC 9421 verification, request_signing in the profile)';
const MODULE = '@adcp/sdk/signing/server';

let sdk: SigningSdk | undefined;
let sf: StructuredHeaders | undefined;

export function signingSdk(): SigningSdk {
  return (sdk ??= agentPackage<SigningSdk>(MODULE, PURPOSE));
}

/** The `structured-headers` the SDK depends on, resolved from the SDK's own directory (the agent need not list it). */
export function structuredHeaders(): StructuredHeaders {
  return (sf ??= createRequire(agentPackagePath(MODULE))('structured-headers') as StructuredHeaders);
}

/** Fails now, naming the package, when the agent lacks @adcp/sdk; the module itself is left to load later. */
export function checkSigningSdk(): void {
  if (sdk !== undefined) return;
  try {
    agentPackagePath(MODULE);
  } catch {
    agentPackage(MODULE, PURPOSE); // throws the message naming what to install
  }
}

/** Loads the SDK's signing module soon, off the current call: the first signed request then finds it loaded. */
export function preloadSigningSdk(): void {
  if (sdk !== undefined) return;
  setImmediate(() => {
    try {
      signingSdk();
    } catch {
      // A missing package is reported by checkSigningSdk at start, and again by the request that needs it.
    }
  }).unref();
}

/** A signature failure of the verifier's own (pre-checks, key sources), carried out of the SDK's pipeline like its own. */
export class SignatureFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SignatureFailure';
  }
}

/** The spec's code of a verifier failure, or undefined for any other error (a store down: not a signature matter). */
export function signatureCode(e: unknown): string | undefined {
  if (e instanceof SignatureFailure) return e.code;
  if (sdk !== undefined && e instanceof sdk.RequestSignatureError) return e.code;
  return undefined;
}

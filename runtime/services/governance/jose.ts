import { agentPackage } from '../../artifacts/packages.js';

/**
 * What governance uses of the agent's own `jose` (panva/jose, 5.x or 6.x), typed structurally: JWK import, compact
 * JWS signing and verification (the `governance_context` token), flattened JWS (the signed revocation list). Every
 * signature is made and checked there; nothing here computes one. Loaded on first need: an agent that neither issues
 * nor enforces governance never requires it.
 */

export type JoseKey = unknown;

export interface JoseHeader {
  readonly [name: string]: unknown;
}

export interface FlattenedJws {
  readonly payload: string;
  readonly protected?: string;
  readonly signature: string;
}

interface Signer<Out> {
  setProtectedHeader(header: JoseHeader): Signer<Out>;
  sign(key: JoseKey, options?: { crit?: Record<string, boolean> }): Promise<Out>;
}

export interface Jose {
  importJWK(jwk: Readonly<Record<string, unknown>>, alg: string): Promise<JoseKey>;
  compactVerify(
    jws: string,
    key: JoseKey,
    options: { algorithms: string[]; crit?: Record<string, boolean> },
  ): Promise<{ readonly payload: Uint8Array; readonly protectedHeader: JoseHeader }>;
  flattenedVerify(jws: FlattenedJws, key: JoseKey, options: { algorithms: string[] }): Promise<{ readonly payload: Uint8Array; readonly protectedHeader?: JoseHeader }>;
  CompactSign: new (payload: Uint8Array) => Signer<string>;
  FlattenedSign: new (payload: Uint8Array) => Signer<FlattenedJws>;
}

let loaded: Jose | undefined;

export function jose(): Jose {
  if (loaded !== undefined) return loaded;
  try {
    loaded = agentPackage<Jose>('jose', 'signed governance (governance_context, a compact JWS)');
  } catch (e) {
    // jose 6 is an ES module only: `require` of one needs Node.js 20.19 or later (jose 5 has a CommonJS build).
    if ((e as NodeJS.ErrnoException).code === 'ERR_REQUIRE_ESM') {
      throw new Error('adcp-codegen: signed governance needs jose: with jose 6 (an ES module) Node.js 20.19 or later, or install jose@5 on an older Node.js 20');
    }
    throw e;
  }
  return loaded;
}

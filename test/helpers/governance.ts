import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import type { ChecklistDeps, IssuerKeys, ReplayEntry } from '../../runtime/services/governance/checklist.js';

/**
 * Governance tokens for tests, made as AdCP's vectors are (header and claims serialized in their insertion order,
 * unpadded base64url, signed with node:crypto's Ed25519 or P-256), with keys of the tests' own: whatever header the
 * test writes — a malformed `crit` included, which a JOSE library would refuse to sign — so the verifier decides.
 */

export type Jwk = Record<string, unknown> & { kid: string };

/** A fresh key pair: the private JWK, and the public one published for governance signing. */
export function governanceKey(kid: string, curve: 'Ed25519' | 'P-256' = 'Ed25519', purpose = 'governance-signing'): { privateJwk: Jwk; publicJwk: Jwk; alg: 'EdDSA' | 'ES256' } {
  const pair = curve === 'Ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateJwk: Jwk = { ...(pair.privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid };
  const { d: _d, ...pub } = privateJwk as Record<string, unknown>;
  const alg = curve === 'Ed25519' ? 'EdDSA' : 'ES256';
  return { privateJwk, publicJwk: { ...pub, kid, alg, use: 'sig', key_ops: ['verify'], adcp_use: purpose }, alg };
}

/** The compact JWS of `claims` under `header`, signed with `privateJwk` (Ed25519, or P-256 when `header.alg` is ES256). */
export async function signToken(header: Record<string, unknown>, claims: Record<string, unknown>, privateJwk: Jwk): Promise<string> {
  const { kid: _kid, ...material } = privateJwk;
  const key = createPrivateKey({ key: material as never, format: 'jwk' });
  const input = `${b64(header)}.${b64(claims)}`;
  const signature = header.alg === 'ES256' ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }) : sign(null, Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

export const AUTHORIZATION_HEADER = {
  typ: 'adcp-gov+jws',
  crit: ['authorized_commitment', 'authorized_task', 'authorized_payload_hash'],
  authorized_commitment: true,
  authorized_task: true,
  authorized_payload_hash: true,
};

/**
 * In-memory checklist dependencies: the issuers the buyer's brand.json lists with their JWKS, revoked jtis and kids,
 * whether the revocation list is fresh, and a replay set; each call recorded.
 */
export function memoryDeps(options: {
  now: number;
  issuers: Record<string, readonly Jwk[]>;
  revokedJtis?: readonly string[];
  revokedKids?: readonly string[];
  revocationFresh?: boolean;
  consumed?: ReplayEntry[];
}): ChecklistDeps & { freshAsked: boolean[]; consumed: ReplayEntry[] } {
  const consumed = options.consumed ?? [];
  const freshAsked: boolean[] = [];
  return {
    now: () => options.now,
    skewSeconds: 60,
    async issuer(iss) {
      const keys = options.issuers[iss];
      if (keys === undefined) return undefined;
      const source: IssuerKeys = { key: async (kid) => keys.find((k) => k.kid === kid) ?? null };
      return source;
    },
    listed: async (iss) => options.issuers[iss] !== undefined,
    async revocation(_iss, kid, jti, fresh) {
      freshAsked.push(fresh);
      if (options.revokedJtis?.includes(jti) === true || options.revokedKids?.includes(kid) === true) return 'revoked';
      return fresh && options.revocationFresh === false ? 'stale' : 'ok';
    },
    async consume(entry) {
      const prior = consumed.find((e) => e.iss === entry.iss && e.aud === entry.aud && e.jti === entry.jti);
      if (prior !== undefined) return prior.payloadHash !== undefined && prior.payloadHash === entry.payloadHash && prior.caller === entry.caller ? 'ok' : 'replayed';
      consumed.push(entry);
      return 'ok';
    },
    freshAsked,
    consumed,
  };
}


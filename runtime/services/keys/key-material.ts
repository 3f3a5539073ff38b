import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';

/**
 * A signing key's material, checked with node:crypto (which parses the JWK and derives its public half; nothing here
 * computes a signature): what the agent signs with, and the public JWK it publishes. A message about a key names its
 * `kid` and what is wrong, never its private member.
 */

/** @adcp/sdk/signing's `SignerKey`, structurally: the private JWK and the identity its signatures name. */
export interface SignerKey {
  readonly keyid: string;
  readonly alg: 'ed25519' | 'ecdsa-p256-sha256';
  readonly privateKey: Readonly<Record<string, unknown>>;
}

/** A JWK as published in the agent's JWKS: public members only. */
export type PublicJwk = Readonly<Record<string, unknown>> & { readonly kid: string };

export interface KeyPair {
  readonly kid: string;
  readonly signer: SignerKey;
  readonly publicJwk: PublicJwk;
}

/** AdCP 3.2 signs webhooks with the agent's request-signing key (security.mdx, Webhook callbacks: Key publication). */
export const ADCP_USE = 'request-signing';

const CURVES = {
  Ed25519: { kty: 'OKP', alg: 'EdDSA', sign: 'ed25519', members: ['x'] },
  'P-256': { kty: 'EC', alg: 'ES256', sign: 'ecdsa-p256-sha256', members: ['x', 'y'] },
} as const;

/** RFC 7517 `kid`: any string; kept printable and bounded, as it is sent in every Signature-Input. */
const KID = /^[\x21-\x7e]{1,128}$/;

/**
 * The key a deployment configured, checked: a private Ed25519 or P-256 JWK with a `kid`, whose public members (when
 * given) are those of its private one, and whose stated `alg`, `use`, `key_ops` and `adcp_use` do not contradict the
 * use it is put to. Throws an Error naming `source` and the problem.
 */
export function configuredKey(jwk: unknown, source: string): KeyPair {
  const fail = (problem: string): never => {
    throw new Error(`adcp-codegen: the signing key in ${source} ${problem}`);
  };
  if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) return fail('is not a JWK (a JSON object)');
  const k = jwk as Record<string, unknown>;
  const curve = typeof k.crv === 'string' && Object.prototype.hasOwnProperty.call(CURVES, k.crv) ? CURVES[k.crv as keyof typeof CURVES] : undefined;
  if (curve === undefined || k.kty !== curve.kty) return fail('must be an Ed25519 (kty OKP) or P-256 (kty EC) key');
  if (typeof k.kid !== 'string' || !KID.test(k.kid)) return fail('needs a kid: 1 to 128 printable characters, unique in the JWKS it is published in');
  const kid = k.kid;
  if (typeof k.d !== 'string' || k.d === '') return fail(`(kid ${kid}) has no private member d: the agent signs with it`);
  if (k.alg !== undefined && k.alg !== curve.alg) return fail(`(kid ${kid}) states alg ${JSON.stringify(k.alg)}; a ${k.crv} key signs ${curve.alg}`);
  if (k.use !== undefined && k.use !== 'sig') return fail(`(kid ${kid}) states use ${JSON.stringify(k.use)}, not "sig"`);
  if (k.key_ops !== undefined && !(Array.isArray(k.key_ops) && k.key_ops.includes('sign'))) return fail(`(kid ${kid}) states key_ops without "sign"`);
  if (k.adcp_use !== undefined && k.adcp_use !== ADCP_USE) return fail(`(kid ${kid}) states adcp_use ${JSON.stringify(k.adcp_use)}; webhooks are signed with the agent's "${ADCP_USE}" key`);
  for (const m of curve.members) if (typeof k[m] !== 'string') return fail(`(kid ${kid}) has no public member ${m} (a ${k.crv} JWK states it)`);
  let derived: Record<string, unknown>;
  try {
    const material = Object.fromEntries(['kty', 'crv', 'd', ...curve.members].map((m) => [m, k[m]]));
    derived = createPublicKey(createPrivateKey({ key: material as never, format: 'jwk' })).export({ format: 'jwk' }) as Record<string, unknown>;
  } catch {
    return fail(`(kid ${kid}) is not a valid ${k.crv} private key`);
  }
  // node:crypto derives the public half from d: one stated otherwise would publish a key that verifies nothing.
  for (const m of curve.members) if (k[m] !== derived[m]) return fail(`(kid ${kid}) has a public ${m} that is not its private key's`);
  return pairOf(kid, curve, { ...Object.fromEntries(curve.members.map((m) => [m, derived[m]])), d: k.d });
}

/** A fresh Ed25519 key pair (node:crypto), under a kid of its own: a sandbox agent's development key. */
export function developmentKey(): { kid: string; privateJwk: Record<string, unknown> } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const kid = `adcp-dev-${randomBytes(6).toString('hex')}`;
  return { kid, privateJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d, kid, alg: 'EdDSA', use: 'sig', key_ops: ['sign'], adcp_use: ADCP_USE } };
}

/** A key the agent itself stored (its development key), read back. */
export function storedKey(privateJwk: string, where: string): KeyPair {
  let jwk: unknown;
  try {
    jwk = JSON.parse(privateJwk);
  } catch {
    throw new Error(`adcp-codegen: the development signing key in ${where} is not JSON; delete its row in adcp_signing_keys and restart`);
  }
  return configuredKey(jwk, where);
}

function pairOf(kid: string, curve: (typeof CURVES)[keyof typeof CURVES], material: Record<string, unknown>): KeyPair {
  const { d, ...pub } = material;
  const head = { kty: curve.kty, crv: curve === CURVES.Ed25519 ? 'Ed25519' : 'P-256' };
  return {
    kid,
    signer: { keyid: kid, alg: curve.sign, privateKey: { ...head, ...pub, d, kid, alg: curve.alg, use: 'sig', key_ops: ['sign'], adcp_use: ADCP_USE } },
    publicJwk: { ...head, ...pub, kid, alg: curve.alg, use: 'sig', key_ops: ['verify'], adcp_use: ADCP_USE },
  };
}

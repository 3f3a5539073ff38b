import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, verify, type KeyObject } from 'node:crypto';

/**
 * A signing key's material, checked with node:crypto (which parses the JWK; that the stated public half is the private
 * one's is proved by signing a probe with one and verifying it with the other, node:crypto's `sign` and `verify`):
 * what the agent signs with, and the public JWK it publishes. A message about a key names its
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

/**
 * A key's purpose (`adcp_use`): AdCP forbids cross-purpose reuse, so every key is made, checked and published for one —
 * the request-signing key webhooks are signed with, or a governance agent's `governance_context` key.
 */
export type AdcpUse = 'request-signing' | 'governance-signing';

const CURVES = {
  Ed25519: { kty: 'OKP', alg: 'EdDSA', sign: 'ed25519', members: ['x'], digest: null },
  'P-256': { kty: 'EC', alg: 'ES256', sign: 'ecdsa-p256-sha256', members: ['x', 'y'], digest: 'sha256' },
} as const;

/** RFC 7517 `kid`: any string; kept printable and bounded, as it is sent in every Signature-Input. */
const KID = /^[\x21-\x7e]{1,128}$/;

/**
 * The key a deployment configured, checked: a private Ed25519 or P-256 JWK with a `kid`, whose public members (when
 * given) are those of its private one, and whose stated `alg`, `use`, `key_ops` and `adcp_use` do not contradict the
 * use it is put to. Throws an Error naming `source` and the problem.
 */
export function configuredKey(jwk: unknown, source: string, purpose: AdcpUse = ADCP_USE): KeyPair {
  const fail = (problem: string): never => {
    throw new Error(`adcp-codegen: the ${purpose === ADCP_USE ? 'signing' : 'governance signing'} key in ${source} ${problem}`);
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
  if (k.adcp_use !== undefined && k.adcp_use !== purpose) return fail(`(kid ${kid}) states adcp_use ${JSON.stringify(k.adcp_use)}; it is used as the agent's "${purpose}" key, and AdCP forbids one key for two purposes`);
  for (const m of curve.members) if (typeof k[m] !== 'string') return fail(`(kid ${kid}) has no public member ${m} (a ${k.crv} JWK states it)`);
  const stated = (members: readonly string[]): Record<string, unknown> => Object.fromEntries(['kty', 'crv', ...members].map((m) => [m, k[m]]));
  const publicHalf = `(kid ${kid}) has a public ${curve.members.join(' and ')} that ${curve.members.length > 1 ? 'are' : 'is'} not`;
  const mismatch = `${publicHalf} its private key's`;
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: stated(curve.members) as never, format: 'jwk' });
  } catch {
    return fail(`${publicHalf} a valid ${k.crv} public key`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: stated(['d', ...curve.members]) as never, format: 'jwk' });
  } catch {
    // Node 24 refuses a JWK whose halves differ; a d of the curve's length is a private key, so that is what is wrong.
    return fail(Buffer.from(k.d, 'base64url').length === 32 ? mismatch : `(kid ${kid}) is not a valid ${k.crv} private key`);
  }
  // Node 20 does not compare the halves (for P-256 it keeps the stated x and y): a key whose public half is not its
  // private one's would publish a key that verifies nothing. A probe signed with one must verify with the other.
  const probe = randomBytes(32);
  let matches: boolean;
  try {
    matches = verify(curve.digest, probe, publicKey, sign(curve.digest, probe, privateKey));
  } catch {
    return fail(`(kid ${kid}) is not a valid ${k.crv} private key`);
  }
  if (!matches) return fail(mismatch);
  const derived = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  return pairOf(kid, curve, { ...Object.fromEntries(curve.members.map((m) => [m, derived[m]])), d: k.d }, purpose);
}

/** A fresh Ed25519 key pair (node:crypto), under a kid of its own: a sandbox agent's development key for `purpose`. */
export function developmentKey(purpose: AdcpUse = ADCP_USE): { kid: string; privateJwk: Record<string, unknown> } {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const kid = `adcp-${purpose === ADCP_USE ? 'dev' : 'gov-dev'}-${randomBytes(6).toString('hex')}`;
  return { kid, privateJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, d: jwk.d, kid, alg: 'EdDSA', use: 'sig', key_ops: ['sign'], adcp_use: purpose } };
}

/** A key the agent itself stored (its development key), read back. */
export function storedKey(privateJwk: string, where: string, purpose: AdcpUse = ADCP_USE): KeyPair {
  let jwk: unknown;
  try {
    jwk = JSON.parse(privateJwk);
  } catch {
    throw new Error(`adcp-codegen: the development signing key in ${where} is not JSON; delete its row in adcp_signing_keys and restart`);
  }
  return configuredKey(jwk, where, purpose);
}

function pairOf(kid: string, curve: (typeof CURVES)[keyof typeof CURVES], material: Record<string, unknown>, purpose: AdcpUse): KeyPair {
  const { d, ...pub } = material;
  const head = { kty: curve.kty, crv: curve === CURVES.Ed25519 ? 'Ed25519' : 'P-256' };
  return {
    kid,
    signer: { keyid: kid, alg: curve.sign, privateKey: { ...head, ...pub, d, kid, alg: curve.alg, use: 'sig', key_ops: ['sign'], adcp_use: purpose } },
    publicJwk: { ...head, ...pub, kid, alg: curve.alg, use: 'sig', key_ops: ['verify'], adcp_use: purpose },
  };
}

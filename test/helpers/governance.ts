import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import type { ChecklistDeps, IssuerKeys, ReplayEntry } from '../../runtime/services/governance/checklist.js';
import type { TokenRecord } from '../../runtime/services/governance/replay.js';

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

/** Any well-formed plan_hash: the checklist reads it for its shape only. */
export const PLAN_HASH = 'oR0jFDEtzcwgPbNf-Ofd_fZHYfAyD1TRbzGOFBVCG-c';

/**
 * The claims of an intent token authorizing `task` with `payload` (its hash computed by the caller, so this helper
 * stays free of the runtime), issued at `iat` for `ttl` seconds; `over` replaces or adds any claim.
 */
export function intentClaims(
  at: { iss: string; aud: string; caller: string; task: string; payloadHash: string; iat: number; ttl: number },
  over: Record<string, unknown> = {},
): Record<string, unknown> {
  const id = Math.random().toString(36).slice(2);
  return {
    iss: at.iss,
    sub: `gb_${id}`,
    plan_hash: PLAN_HASH,
    aud: at.aud,
    iat: at.iat,
    exp: at.iat + at.ttl,
    jti: `jti-${id}`,
    phase: 'intent',
    caller: at.caller,
    check_id: `chk_${id}`,
    authorized_commitment: { amount: 100, currency: 'USD' },
    authorized_task: at.task,
    authorized_payload_hash: at.payloadHash,
    ...over,
  };
}

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

/**
 * The accepted-token record's contract on a store (the embedded one in npm test, PostgreSQL in test:real): `a` and
 * `b` are two instances sharing it. Throws naming the first expectation that does not hold.
 */
export async function tokenRecordContract(a: TokenRecord, b: TokenRecord, now: number): Promise<void> {
  const entry = (jti: string, over: Partial<ReplayEntry> = {}): ReplayEntry => ({
    iss: 'https://gov.test/governance',
    aud: 'https://seller.test/mcp',
    jti,
    expiresAt: now + 900,
    sub: 'gb_1',
    phase: 'intent',
    caller: 'https://buyer.test',
    task: 'create_media_buy',
    payloadHash: 'hash-1',
    idempotencyKey: 'idem-1',
    token: 'h.p.s',
    ...over,
  });
  const expect = (got: string, want: string, what: string) => {
    if (got !== want) throw new Error(`${what}: ${got}, not ${want}`);
  };
  expect(await a.consume(entry('j1'), now), 'ok', 'a new tuple');
  expect(await b.consume(entry('j1', { payloadHash: 'hash-2' }), now), 'replayed', 'the same jti for another request, on the other instance');
  expect(await b.consume(entry('j1', { caller: 'https://other.test' }), now), 'replayed', 'the same jti from another caller');
  expect(await b.consume(entry('j1', { task: 'update_media_buy' }), now), 'replayed', 'the same jti for another task');
  expect(await b.consume(entry('j1'), now), 'ok', 'the same request again, its claim released (the other instance)');
  expect(await a.consume(entry('j1', { aud: 'https://other-seller.test/mcp' }), now), 'ok', 'the same jti for another audience is another tuple');
  await a.spend(entry('j1'), 'mb_1');
  expect(await b.consume(entry('j1'), now), 'replayed', 'a token whose call succeeded, presented again');
  expect(String(await b.priorSub('https://seller.test/mcp', 'mb_1')), 'gb_1', 'the media buy\'s action binding');
  expect(String(await b.priorSub('https://seller.test/mcp', 'mb_9')), 'undefined', 'no binding for an unknown media buy');
  // A tuple known without a request binding (consumed by something that records none) is always a replay.
  expect(await a.consume(entry('j2', { payloadHash: undefined }), now), 'ok', 'a bare tuple');
  expect(await b.consume(entry('j2', { payloadHash: undefined }), now), 'replayed', 'a bare tuple again');
  // Concurrent first presentations of one jti for two different requests: exactly one wins.
  const raced = await Promise.all([a.consume(entry('j3', { payloadHash: 'x' }), now), b.consume(entry('j3', { payloadHash: 'y' }), now)]);
  expect(raced.filter((r) => r === 'ok').length.toString(), '1', `one of two concurrent presentations (${raced.join(', ')})`);
}

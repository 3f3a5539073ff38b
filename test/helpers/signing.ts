import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signRequest, type SignerKey } from '@adcp/sdk/signing';
import { parseDictionary, serializeDictionary } from 'structured-headers';
import { generate } from '../../generator/generate.js';
import { silentLogger } from '../../generator/shared/index.js';
import type { RequestSignatureVerifier, SignatureVerdict, SignedCall, SignedRequestInput, SigningJwk } from '../../runtime/api/signing-types.js';
import { repoRoot, sdkReleaseDir } from './releases.js';
import { tempDir } from './temp.js';

/**
 * Signed requests for tests: fresh keys (node:crypto, exported as JWKs), requests signed by @adcp/sdk's own signer —
 * in the legacy 3.1 wire form it emits (unpadded Base64URL) or re-encoded to AdCP 3.2's RFC 8941 sf-binary by the
 * `structured-headers` library — the conformance vectors, and a generated set whose profile advertises request signing.
 */

export interface TestKey {
  readonly kid: string;
  /** The public JWK a trust configuration holds. */
  readonly jwk: SigningJwk;
  /** For @adcp/sdk's signRequest. */
  readonly signer: SignerKey;
}

/** A fresh request-signing key pair (Ed25519 or ECDSA P-256). */
export function freshKey(alg: 'ed25519' | 'ecdsa-p256-sha256' = 'ed25519', kid = `test-${alg}-${randomUUID().slice(0, 8)}`): TestKey {
  const pair = alg === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pub = pair.publicKey.export({ format: 'jwk' }) as Record<string, string>;
  const priv = pair.privateKey.export({ format: 'jwk' }) as Record<string, string>;
  const members = { kid, alg: alg === 'ed25519' ? 'EdDSA' : 'ES256', use: 'sig', key_ops: ['verify'], adcp_use: 'request-signing' };
  const jwk = { ...pub, ...members } as SigningJwk;
  return { kid, jwk, signer: { keyid: kid, alg, privateKey: { ...priv, ...members } as SignerKey['privateKey'] } };
}

export interface PlainRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An MCP tools/call POST to `url` (the JSON-RPC body as a buyer's client writes it). */
export function toolCall(url: string, tool: string, args: Record<string, unknown>): PlainRequest {
  const body = JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method: 'tools/call', params: { name: tool, arguments: args } });
  return { method: 'POST', url, headers: { 'content-type': 'application/json', host: new URL(url).host }, body };
}

/**
 * `request` signed by @adcp/sdk's signRequest, content-digest covered unless `coverDigest: false`: `profile: '3.2'`
 * re-encodes the signature as RFC 8941 sf-binary (standard Base64, padded); `'legacy-3.1'` keeps the SDK's unpadded
 * Base64URL.
 */
export function signed(request: PlainRequest, key: TestKey, options: { profile?: '3.2' | 'legacy-3.1'; coverDigest?: boolean; now?: number; nonce?: string } = {}): PlainRequest {
  const profile = options.profile ?? '3.2';
  const s = signRequest(request, key.signer, { coverContentDigest: options.coverDigest ?? true, now: options.now !== undefined ? () => options.now! : undefined, nonce: options.nonce });
  const headers = { ...request.headers, ...s.headers };
  if (profile === '3.2') headers['Signature'] = serializeDictionary(parseDictionary(headers['Signature']!.replace(/-/g, '+').replace(/_/g, '/')));
  return { ...request, headers };
}

/**
 * What the HTTP entry makes of a request under the signing policy, as one verdict: the verifier on its headers and
 * bytes (`verify`), then the policy on each call it carries (`judge`), read here as the entry's transports read them —
 * MCP tools/call: its tool and arguments; A2A message/send or message/stream: its DataPart's skill and input; any
 * other JSON-RPC method by name (a batch, member by member). A body that is not JSON-RPC (a REST-style vector) is one
 * call of `operation`, the body its arguments. The first refusal is the answer.
 */
export async function judgeRequest(verifier: RequestSignatureVerifier, request: SignedRequestInput, operation?: string): Promise<SignatureVerdict> {
  const verdict = await verifier.verify(request);
  if (!verdict.ok) return verdict;
  for (const call of callsOf(request.body, operation)) {
    const refused = verifier.judge(verdict, call);
    if (refused !== undefined) return { ok: false, ...refused };
  }
  return verdict;
}

function callsOf(body: string, operation: string | undefined): SignedCall[] {
  let json: unknown;
  try {
    json = body === '' ? undefined : JSON.parse(body);
  } catch {
    json = undefined;
  }
  const object = (v: unknown): Record<string, any> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, any>) : undefined);
  const messages = (Array.isArray(json) ? json : [json]).filter((m) => typeof object(m)?.method === 'string') as Record<string, any>[];
  if (messages.length === 0) return [{ methods: [], ...(operation !== undefined ? { operation } : {}), ...(json !== undefined ? { args: json } : {}) }];
  return messages.map((m) => {
    if (m.method === 'tools/call') return { methods: ['tools/call'], operation: m.params?.name, args: m.params?.arguments };
    if (m.method === 'message/send' || m.method === 'message/stream') {
      const data = (m.params?.message?.parts ?? []).find((p: Record<string, any>) => p?.kind === 'data')?.data;
      return { methods: [m.method], operation: data?.skill, args: data?.input };
    }
    return { methods: [m.method] };
  });
}

/** The request-signing conformance vectors of a compliance bundle, every file of every directory. */
export interface Vector {
  readonly id: string;
  readonly kind: 'positive' | 'negative';
  readonly signing_profile_version?: string;
  readonly reference_now: number;
  readonly request: PlainRequest;
  readonly verifier_capability: Record<string, unknown>;
  readonly jwks_ref?: string[];
  readonly jwks_override?: { keys: SigningJwk[] };
  readonly test_harness_state?: {
    replay_cache_entries?: { keyid: string; nonce: string; ttl_seconds?: number }[];
    replay_cache_per_keyid_cap_hit?: { keyid: string };
    revocation_list?: { revoked_kids: string[] };
  };
  readonly expected_outcome: { success: boolean; error_code?: string };
}

export function requestVectors(dir: string): Vector[] {
  const load = (sub: string, kind: Vector['kind']): Vector[] =>
    readdirSync(join(dir, sub))
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => ({ id: `${sub}/${f.replace(/\.json$/, '')}`, kind, ...(JSON.parse(readFileSync(join(dir, sub, f), 'utf8')) as Omit<Vector, 'id' | 'kind'>) }));
  return [...load('positive', 'positive'), ...load('negative', 'negative'), ...load('profile-3.2/positive', 'positive'), ...load('profile-3.2/negative', 'negative')];
}

/** keys.json's public halves (the private `_private_d_for_test_only` and comments left out). */
export function vectorKeys(dir: string): SigningJwk[] {
  const raw = (JSON.parse(readFileSync(join(dir, 'keys.json'), 'utf8')) as { keys: Record<string, unknown>[] }).keys;
  return raw.map(({ _private_d_for_test_only: _d, $comment: _c, ...k }) => k as SigningJwk);
}

/** keys.json's key pairs as @adcp/sdk signer keys. */
export function vectorSigners(dir: string): Map<string, TestKey> {
  const raw = (JSON.parse(readFileSync(join(dir, 'keys.json'), 'utf8')) as { keys: Record<string, unknown>[] }).keys;
  return new Map(
    raw.map(({ _private_d_for_test_only: d, $comment: _c, ...k }) => {
      const jwk = k as SigningJwk;
      const alg = jwk.alg === 'ES256' ? 'ecdsa-p256-sha256' : 'ed25519';
      return [jwk.kid, { kid: jwk.kid, jwk, signer: { keyid: jwk.kid, alg, privateKey: { ...jwk, d } as SignerKey['privateKey'] } }] as const;
    }),
  );
}

/**
 * The committed guaranteed-publisher profile (AdCP 3.0.6) with `request_signing` added, generated once per process
 * into a temporary agent directory: `required_for` create_media_buy, `warn_for` update_media_buy,
 * `protocol_methods_required_for` tasks/cancel, content-digest required.
 */
let signingSet: Promise<string> | undefined;
export function signingProfileSet(): Promise<string> {
  signingSet ??= (async () => {
    const work = tempDir('adcp-signing-set-');
    const profile = JSON.parse(readFileSync(join(repoRoot, 'schemas/profiles/guaranteed-publisher.json'), 'utf8')) as { name: string; capabilities: Record<string, unknown> };
    profile.name = 'signing-publisher';
    profile.capabilities.request_signing = {
      supported: true,
      covers_content_digest: 'required',
      supported_for: ['create_media_buy', 'update_media_buy', 'sync_creatives'],
      required_for: ['create_media_buy'],
      warn_for: ['update_media_buy'],
    };
    writeFileSync(join(work, 'profile.json'), JSON.stringify({ ...profile, $schema: undefined }));
    writeFileSync(
      join(work, 'adcp-codegen.config.json'),
      JSON.stringify({ releases: [sdkReleaseDir()], profiles: ['profile.json'], normalizations: [join(repoRoot, 'schemas/normalizations/*.json')], overlays: [join(repoRoot, 'schemas/overlays/*.json')], out: 'generated' }),
    );
    symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
    await generate({ config: join(work, 'adcp-codegen.config.json'), logger: silentLogger });
    return join(work, 'generated');
  })();
  return signingSet;
}

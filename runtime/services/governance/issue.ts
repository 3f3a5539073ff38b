import { randomBytes } from 'node:crypto';
import type { GovernanceTokenInput, IssuedGovernanceToken } from '../../api/governance-types.js';
import type { KeyPair } from '../keys/key-material.js';
import { CRITICAL } from './checklist.js';
import { governedPayloadHash, planHash } from './hash.js';
import { jose, type JoseKey } from './jose.js';
import { MAX_TOKEN_LENGTH } from './token.js';

/**
 * A `governance_context` as a governance agent issues it (security.mdx, AdCP JWS profile; the governance
 * specification's plan binding): a compact JWS, `typ` `adcp-gov+jws`, signed by jose with the agent's
 * governance-signing key, carrying the claims the profile lists — `iss`, an opaque `sub`, `plan_hash` over the plan
 * just evaluated, `aud` (the downstream service, byte for byte), `iat`/`exp`, a time-ordered `jti` (UUID v7), `phase`,
 * `caller`, `check_id`, the decision record (`policy_decisions` or `policy_decision_hash`) — and, when it authorizes an
 * action, `authorized_task` + `authorized_payload_hash` (and `authorized_commitment`), each with its critical
 * protected-header marker. Fresh on every call: the spec forbids re-emitting a signed token.
 */

/** Intent tokens SHOULD expire within 15 minutes; execution-phase ones MUST within 30 days. */
const INTENT_S = 15 * 60;
const EXECUTION_S = 30 * 86_400;
const CURRENCY = /^[A-Z]{3}$/;

export async function issueToken(input: GovernanceTokenInput, issuer: string, pair: KeyPair, now = Date.now()): Promise<IssuedGovernanceToken> {
  const fail = (problem: string): never => {
    throw new Error(`adcp-codegen: governance_context: ${problem}`);
  };
  const intent = input.phase === 'intent';
  const limit = intent ? INTENT_S : EXECUTION_S;
  const lifetime = input.lifetimeSeconds ?? limit;
  if (!Number.isInteger(lifetime) || lifetime <= 0 || lifetime > limit) fail(`a ${input.phase} token lives 1 to ${limit} seconds, not ${String(input.lifetimeSeconds)}`);
  for (const [name, v] of [['audience', input.audience], ['caller', input.caller], ['checkId', input.checkId]] as const) if (typeof v !== 'string' || v === '') fail(`${name} is required`);
  if ((input.authorizedTask === undefined) !== (input.authorizedPayload === undefined)) fail('authorizedTask and authorizedPayload go together (the task and the exact request it authorizes)');
  if (intent && input.authorizedTask === undefined) fail('an intent token authorizes one task and request: give authorizedTask and authorizedPayload');
  if (intent && input.mediaBuyId !== undefined) fail('an intent token must not name a media_buy_id');
  if ((input.phase === 'modification' || input.phase === 'delivery') && input.mediaBuyId === undefined) fail(`a ${input.phase} token names its media buy (mediaBuyId)`);
  if (input.policyDecisions === undefined && input.policyDecisionHash === undefined) fail('a token carries policyDecisions or policyDecisionHash (the decision record)');
  const ceiling = input.authorizedCommitment;
  if (ceiling !== undefined && !(Number.isFinite(ceiling.amount) && ceiling.amount >= 0 && CURRENCY.test(ceiling.currency))) fail('authorizedCommitment is a finite non-negative amount in an ISO 4217 currency');
  const iat = Math.floor(now / 1000);
  const claims: Record<string, unknown> = {
    iss: issuer,
    sub: input.sub ?? `gb_${uuidv7(now)}`,
    plan_hash: planHash(input.plan),
    aud: input.audience,
    iat,
    exp: iat + lifetime,
    jti: uuidv7(now),
    phase: input.phase,
    caller: input.caller,
    check_id: input.checkId,
    ...(input.mediaBuyId !== undefined ? { media_buy_id: input.mediaBuyId } : {}),
    ...(ceiling !== undefined ? { authorized_commitment: { amount: ceiling.amount, currency: ceiling.currency } } : {}),
    ...(input.authorizedTask !== undefined ? { authorized_task: input.authorizedTask, authorized_payload_hash: governedPayloadHash(input.authorizedPayload!) } : {}),
    ...(input.policyDecisions !== undefined ? { policy_decisions: input.policyDecisions } : {}),
    ...(input.policyDecisionHash !== undefined ? { policy_decision_hash: input.policyDecisionHash } : {}),
    ...(input.runtimeAttestationBindingDigest !== undefined ? { runtime_attestation_binding_digest: input.runtimeAttestationBindingDigest } : {}),
    ...(input.auditLogPointer !== undefined ? { audit_log_pointer: input.auditLogPointer } : {}),
  };
  const critical = CRITICAL.filter((name) => claims[name] !== undefined);
  const alg = String(pair.publicJwk.alg);
  const header = { alg, kid: pair.kid, typ: 'adcp-gov+jws', ...(critical.length > 0 ? { crit: critical, ...Object.fromEntries(critical.map((n) => [n, true])) } : {}) };
  const crit = Object.fromEntries(critical.map((n) => [n, true]));
  const token = await new (jose().CompactSign)(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader(header).sign(await signingKey(pair), critical.length > 0 ? { crit } : undefined);
  if (token.length > MAX_TOKEN_LENGTH) fail(`the token is ${token.length} characters, over the envelope's ${MAX_TOKEN_LENGTH}: send policyDecisionHash instead of policyDecisions, and keep evidence behind auditLogPointer`);
  return { token, claims, expiresAt: new Date((iat + lifetime) * 1000).toISOString() };
}

const imported = new WeakMap<KeyPair, Promise<JoseKey>>();

/** The key jose signs with, imported once per key pair. */
export function signingKey(pair: KeyPair): Promise<JoseKey> {
  let key = imported.get(pair);
  if (key === undefined) {
    const { kid: _kid, alg, use: _use, key_ops: _ops, adcp_use: _purpose, ...material } = pair.signer.privateKey;
    imported.set(pair, (key = jose().importJWK(material, String(alg))));
  }
  return key;
}

/** A UUID v7 (RFC 9562): 48 bits of Unix milliseconds, then random bits — time-ordered, as the spec recommends for `jti`. */
export function uuidv7(now = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

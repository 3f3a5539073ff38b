import type { GovernanceCommitment, GovernanceErrorCode, GovernancePhase } from '../../api/governance-types.js';
import { governedPayloadHash } from './hash.js';
import { jose } from './jose.js';
import { parseCompact, type ParsedToken } from './token.js';

/**
 * The seller verification checklist (security.mdx, "Seller verification checklist"): the 15 checks in the spec's
 * order, each short-circuiting with the code the verification error taxonomy gives it. It decides on the token and
 * the gate alone; where keys, brand.json, revocations and the replay set come from is its caller's (discovery.ts,
 * revocations-fetch.ts, replay.ts), so the spec's test vectors run it with their own fixtures. A missing or ill-typed
 * required claim is `governance_token_invalid` at the step that reads it; a well-formed token whose bindings do not
 * match the operation is `governance_token_not_applicable`.
 */

/** The authorization gate a token is presented at: what it must bind to. */
export interface Gate {
  readonly phase: GovernancePhase;
  /** The service's own canonical URL (`aud`). */
  readonly audience: string;
  /** The authenticated caller's URL: the buyer on an inbound intent token, the service itself on an execution token. */
  readonly caller: string;
  readonly task: string;
  /** The request as received (an intent token binds its hash). */
  readonly payload?: Readonly<Record<string, unknown>>;
  /** Other readings of the same request an intent token may bind instead (the request without its version envelope). */
  readonly payloadReadings?: readonly Readonly<Record<string, unknown>>[];
  /** The request's media buy (modification and delivery tokens must name it; a purchase token may). */
  readonly mediaBuyId?: string;
  /** The service's own computed commitment; undefined when the action commits no money. */
  readonly commitment?: GovernanceCommitment;
  /** The opaque action binding retained from the prior accepted token of the same action (a continuation). */
  readonly priorSub?: string;
  readonly idempotencyKey?: string;
}

/** A key source for one issuer: the JWK published under `kid` (refetched once on a miss), null when none. */
export interface IssuerKeys {
  key(kid: string): Promise<Readonly<Record<string, unknown>> | null>;
}

export interface ReplayEntry {
  readonly iss: string;
  readonly aud: string;
  readonly jti: string;
  /** Unix seconds after which the tuple can no longer verify (`exp` plus the skew). */
  readonly expiresAt: number;
  readonly sub: string;
  readonly phase: string;
  readonly caller: string;
  readonly task: string;
  readonly payloadHash?: string;
  readonly idempotencyKey?: string;
  /** The token as received: what the service keeps as its record of the authorization. */
  readonly token: string;
}

export interface ChecklistDeps {
  /** Unix seconds. */
  now(): number;
  readonly skewSeconds: number;
  /** Step 5: the issuer's keys, found through the buyer's brand.json; undefined when it names no such governance agent. */
  issuer(iss: string): Promise<IssuerKeys | undefined>;
  /** Step 13: whether the buyer's current brand.json lists `iss` as a governance agent. */
  listed(iss: string): Promise<boolean>;
  /** Step 14: `fresh` when the token needs a revocation list refreshed within its grace (execution, or a long intent). */
  revocation(iss: string, kid: string, jti: string, fresh: boolean): Promise<'ok' | 'revoked' | 'stale'>;
  /** Step 15: consumes the tuple; `replayed` when it was consumed before by another request. */
  consume(entry: ReplayEntry): Promise<'ok' | 'replayed'>;
}

/** A refusal a dependency raises (a key source unreachable or refused by the SSRF rule). */
export class GovernanceRefusal extends Error {
  constructor(
    readonly code: GovernanceErrorCode,
    detail: string,
  ) {
    super(detail);
    this.name = 'GovernanceRefusal';
  }
}

export type Verdict =
  | { readonly ok: true; readonly token: ParsedToken; readonly kid: string; readonly payloadHash?: string }
  | { readonly ok: false; readonly code: GovernanceErrorCode; readonly step: number; readonly detail: string };

/** The protected-header extensions this verifier understands: each needs its claim, its boolean marker and its crit entry. */
export const CRITICAL = ['authorized_commitment', 'authorized_task', 'authorized_payload_hash'] as const;
const ALGORITHMS: Readonly<Record<string, { kty: string; crv: string }>> = { EdDSA: { kty: 'OKP', crv: 'Ed25519' }, ES256: { kty: 'EC', crv: 'P-256' } };
const INTENT_UNPOLLED_S = 15 * 60;
const EXECUTION_MAX_S = 30 * 86_400;
const CURRENCY = /^[A-Z]{3}$/;

export async function verifyGovernanceContext(token: unknown, gate: Gate, deps: ChecklistDeps): Promise<Verdict> {
  let step = 0;
  const refuse = (code: GovernanceErrorCode, detail: string): Verdict => ({ ok: false, code, step, detail });
  const invalid = (detail: string) => refuse('governance_token_invalid', detail);
  const notApplicable = (detail: string) => refuse('governance_token_not_applicable', detail);
  try {
    step = 1;
    const parsed = parseCompact(token);
    if (typeof parsed === 'string') return invalid(parsed);
    const { header: h, claims: c } = parsed;
    step = 2;
    const alg = h.alg;
    if (typeof alg !== 'string' || !Object.hasOwn(ALGORITHMS, alg)) return invalid(`alg ${JSON.stringify(alg)} is not EdDSA or ES256`);
    step = 3;
    if (h.typ !== 'adcp-gov+jws') return invalid(`typ ${JSON.stringify(h.typ)} is not adcp-gov+jws`);
    step = 4;
    const crit = critProblem(h, c);
    if (crit !== undefined) return invalid(crit);
    if (typeof h.kid !== 'string' || h.kid === '') return invalid('the protected header has no kid');
    const kid = h.kid;
    step = 5;
    if (typeof c.iss !== 'string' || c.iss === '') return invalid('iss is missing');
    const iss = c.iss;
    const issuer = await deps.issuer(iss);
    if (issuer === undefined) return refuse('governance_issuer_not_authorized', `iss ${iss} is not a governance agent of the buyer's brand.json`);
    const jwk = await issuer.key(kid);
    if (jwk === null) return refuse('governance_key_unknown', `kid ${kid} is not in ${iss}'s JWKS`);
    step = 6;
    const purpose = keyProblem(jwk, alg);
    if (purpose !== undefined) return refuse('governance_key_unknown', `kid ${kid}: ${purpose}`);
    step = 7;
    try {
      await jose().compactVerify(parsed.raw, await verificationKey(jwk, alg), { algorithms: [alg], crit: UNDERSTOOD });
    } catch {
      return invalid('the signature does not verify');
    }
    step = 8;
    if (typeof c.aud !== 'string') return invalid('aud is missing');
    if (c.aud !== gate.audience) return notApplicable(`aud ${c.aud} is not this service (${gate.audience})`);
    if (typeof c.caller !== 'string' || c.caller === '') return invalid('caller is missing');
    if (c.caller !== gate.caller) return notApplicable(`caller ${c.caller} is not the authenticated caller`);
    step = 9;
    const now = deps.now();
    const skew = deps.skewSeconds;
    if (!isTime(c.iat)) return invalid('iat is missing or not a number');
    if (!isTime(c.exp)) return invalid('exp is missing or not a number');
    if (c.nbf !== undefined && !isTime(c.nbf)) return invalid('nbf is not a number');
    if (c.exp < now - skew) return refuse('governance_token_expired', 'exp has passed');
    if (c.iat > now + skew) return refuse('governance_token_not_yet_valid', 'iat is in the future');
    if (c.nbf !== undefined && c.nbf > now + skew) return refuse('governance_token_not_yet_valid', 'nbf is in the future');
    if (c.exp <= c.iat) return invalid('exp is not after iat');
    if (c.phase !== 'intent' && c.exp - c.iat > EXECUTION_MAX_S) return invalid('an execution-phase token lives longer than 30 days');
    step = 10;
    if (typeof c.sub !== 'string' || c.sub === '') return invalid('sub is missing');
    if (gate.priorSub !== undefined && c.sub !== gate.priorSub) return notApplicable('sub differs from the action binding retained from the prior accepted token');
    if (typeof c.check_id !== 'string' || c.check_id === '') return invalid('check_id is missing');
    if (typeof c.plan_hash !== 'string' || c.plan_hash === '') return invalid('plan_hash is missing');
    step = 11;
    if (typeof c.phase !== 'string') return invalid('phase is missing');
    if (c.phase !== gate.phase) return notApplicable(`phase ${c.phase} is not this gate's (${gate.phase})`);
    step = 12;
    const readings = gate.phase === 'intent' && gate.payload !== undefined ? [gate.payload, ...(gate.payloadReadings ?? [])].map(governedPayloadHash) : [];
    const payloadHash = readings.find((h) => h === c.authorized_payload_hash) ?? readings[0];
    const bound = bindingProblem(c, gate, payloadHash);
    if (bound !== undefined) return bound[0] === 'invalid' ? invalid(bound[1]) : notApplicable(bound[1]);
    step = 13;
    if (!(await deps.listed(iss))) return refuse('governance_issuer_not_authorized', `iss ${iss} is no longer in the buyer's brand.json`);
    step = 14;
    if (typeof c.jti !== 'string' || c.jti === '') return invalid('jti is missing');
    const fresh = c.phase !== 'intent' || c.exp - c.iat > INTENT_UNPOLLED_S;
    const revoked = await deps.revocation(iss, kid, c.jti, fresh);
    if (revoked === 'revoked') return refuse('governance_token_revoked', 'the jti or the kid is on the issuer\'s revocation list');
    if (revoked === 'stale') return refuse('governance_revocation_stale', 'the issuer\'s revocation list has not been refreshed within its grace');
    step = 15;
    const consumed = await deps.consume({
      iss,
      aud: c.aud,
      jti: c.jti,
      expiresAt: c.exp + skew,
      sub: c.sub,
      phase: c.phase,
      caller: c.caller,
      task: gate.task,
      token: parsed.raw,
      ...(payloadHash !== undefined ? { payloadHash } : {}),
      ...(gate.idempotencyKey !== undefined ? { idempotencyKey: gate.idempotencyKey } : {}),
    });
    if (consumed === 'replayed') return refuse('governance_token_replayed', `jti ${c.jti} was accepted before for another request`);
    return { ok: true, token: parsed, kid, ...(payloadHash !== undefined ? { payloadHash } : {}) };
  } catch (e) {
    if (e instanceof GovernanceRefusal) return refuse(e.code, e.message);
    throw e;
  }
}

/** Step 4: `crit` lists only extensions this verifier knows, each with its boolean marker and its claim; task and payload hash pair. */
function critProblem(h: Readonly<Record<string, unknown>>, c: Readonly<Record<string, unknown>>): string | undefined {
  const crit = h.crit;
  if (crit !== undefined && (!Array.isArray(crit) || crit.length === 0 || !crit.every((n) => typeof n === 'string' && n !== ''))) return 'crit is not a non-empty array of names';
  const names = (crit ?? []) as string[];
  if (new Set(names).size !== names.length) return 'crit names an extension twice';
  const unknown = names.find((n) => !(CRITICAL as readonly string[]).includes(n));
  if (unknown !== undefined) return `crit names ${JSON.stringify(unknown)}, an extension this verifier does not know`;
  for (const name of CRITICAL) {
    const claim = c[name] !== undefined;
    const marked = h[name] !== undefined || names.includes(name);
    if (!claim && !marked) continue;
    if (!claim || h[name] !== true || !names.includes(name)) return `${name}: the claim, its protected-header marker (true) and its crit entry must appear together`;
  }
  if ((c.authorized_task === undefined) !== (c.authorized_payload_hash === undefined)) return 'authorized_task and authorized_payload_hash must appear together';
  return undefined;
}

/** Step 6: a key published for governance signing only, whose kind is the one `alg` names, public members only. */
export function keyProblem(jwk: Readonly<Record<string, unknown>>, alg: string): string | undefined {
  if (jwk.use !== 'sig') return 'its use is not "sig"';
  if (!Array.isArray(jwk.key_ops) || !jwk.key_ops.includes('verify')) return 'its key_ops do not include "verify"';
  if (jwk.adcp_use !== 'governance-signing') return `its adcp_use ${JSON.stringify(jwk.adcp_use)} is not "governance-signing"`;
  if (jwk.alg !== undefined && jwk.alg !== alg) return `it is published for ${String(jwk.alg)}, not ${alg}`;
  const kind = ALGORITHMS[alg]!;
  if (jwk.kty !== kind.kty || jwk.crv !== kind.crv) return `it is not an ${kind.crv} key`;
  if ('d' in jwk) return 'it is published with a private member';
  return undefined;
}

/** Step 12: the token authorizes this task, this exact request, this media buy and at most this commitment. */
function bindingProblem(c: Readonly<Record<string, unknown>>, gate: Gate, payloadHash: string | undefined): ['invalid' | 'not_applicable', string] | undefined {
  if (gate.phase === 'intent') {
    if (typeof c.authorized_task !== 'string') return ['invalid', 'an intent token for a governed task carries no authorized_task'];
    if (typeof c.authorized_payload_hash !== 'string') return ['invalid', 'authorized_payload_hash is not a string'];
    if (c.authorized_task !== gate.task) return ['not_applicable', `authorized_task ${c.authorized_task} is not ${gate.task}`];
    if (payloadHash === undefined || c.authorized_payload_hash !== payloadHash) return ['not_applicable', 'authorized_payload_hash is not the hash of the request received'];
    if (c.media_buy_id !== undefined) return ['not_applicable', 'an intent token names a media_buy_id'];
  } else {
    if (c.authorized_task !== undefined && c.authorized_task !== gate.task) return ['not_applicable', `authorized_task ${String(c.authorized_task)} is not ${gate.task}`];
    const named = c.media_buy_id;
    if (named !== undefined && typeof named !== 'string') return ['invalid', 'media_buy_id is not a string'];
    if (gate.phase !== 'purchase' && (named === undefined || named !== gate.mediaBuyId)) return ['not_applicable', `a ${gate.phase} token must name the request's media buy`];
    if (gate.phase === 'purchase' && named !== undefined && gate.mediaBuyId !== undefined && named !== gate.mediaBuyId) return ['not_applicable', 'media_buy_id is not the prepared media buy'];
  }
  const signed = c.authorized_commitment;
  if (signed !== undefined) {
    if (signed === null || typeof signed !== 'object' || Array.isArray(signed)) return ['invalid', 'authorized_commitment is not an object'];
    const { amount, currency } = signed as Record<string, unknown>;
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) return ['invalid', 'authorized_commitment.amount is not a finite non-negative number'];
    if (typeof currency !== 'string' || !CURRENCY.test(currency)) return ['invalid', 'authorized_commitment.currency is not an ISO 4217 code'];
  }
  if (gate.commitment !== undefined) {
    if (signed === undefined) return ['not_applicable', 'the action commits money and the token authorizes no commitment'];
    const { amount, currency } = signed as GovernanceCommitment;
    if (currency !== gate.commitment.currency) return ['not_applicable', `the commitment is in ${gate.commitment.currency}, the authorization in ${currency}`];
    if (gate.commitment.amount > amount) return ['not_applicable', 'the commitment exceeds the authorized ceiling'];
  }
  return undefined;
}

const UNDERSTOOD: Record<string, boolean> = Object.fromEntries(CRITICAL.map((n) => [n, true]));
const imported = new WeakMap<object, Promise<unknown>>();

/**
 * The key jose verifies with, imported once per published JWK (a JWKS a key source keeps hands back the same object
 * while it is cached; the alg is part of the key, and step 6 checked it is the JWK's own).
 */
export function verificationKey(jwk: Readonly<Record<string, unknown>>, alg: string): Promise<unknown> {
  let key = imported.get(jwk);
  if (key === undefined) {
    key = jose().importJWK(publicMembers(jwk), alg);
    key.catch(() => imported.delete(jwk));
    imported.set(jwk, key);
  }
  return key;
}

function isTime(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** The members a public key is imported from (AdCP's own members, `adcp_use` among them, are for this policy only). */
function publicMembers(jwk: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { kty, crv, x, y } = jwk;
  return { kty, crv, x, ...(y !== undefined ? { y } : {}) };
}

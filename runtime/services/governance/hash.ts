import { createHash, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../jcs.js';

/**
 * The two hashes a signed `governance_context` carries, each `base64url_no_pad(SHA-256(JCS(…)))` over exactly the
 * spec's preimage (RFC 8785 from the `canonicalize` package, never written here):
 * - `plan_hash` (governance specification, "Plan binding and audit"): one plan as supplied on `sync_plans`, minus the
 *   closed list of a governance agent's own bookkeeping fields. Audit cargo: sellers never read it.
 * - `authorized_payload_hash` (security.mdx, AdCP JWS profile): the downstream task request minus exactly its
 *   top-level `governance_context` and `context`; `idempotency_key` and every business field stay bound.
 */

/** Governance-agent bookkeeping stripped from a stored plan before hashing. Closed: the spec forbids extending it. */
export const PLAN_BOOKKEEPING: readonly string[] = ['version', 'status', 'syncedAt', 'revisionHistory', 'committedBudget', 'committedByType'];

/** The top-level fields outside the governed payload hash. Closed, as the idempotency list is. */
export const GOVERNANCE_METADATA: readonly string[] = ['governance_context', 'context'];

/** The plan_hash preimage: the plan as supplied, its bookkeeping removed (a shallow copy; the plan is not changed). */
export function planPreimage(plan: Record<string, unknown>): Record<string, unknown> {
  return without(plan, PLAN_BOOKKEEPING);
}

/** `plan_hash` of one plan (an element of `sync_plans`' `plans[]`, or a governance agent's stored revision of it). */
export function planHash(plan: Record<string, unknown>): string {
  return digest(canonicalJson(planPreimage(plan), 'governance (plan_hash, RFC 8785)'));
}

/** `authorized_payload_hash` of a task request: what the intent check binds and the service recomputes. */
export function governedPayloadHash(payload: Record<string, unknown>): string {
  return digest(canonicalJson(without(payload, GOVERNANCE_METADATA), 'governance (authorized_payload_hash, RFC 8785)'));
}

/**
 * Whether two `plan_hash` values name the same digest, compared as the spec says verifiers compare them: each decoded
 * to its 32 raw bytes (unpadded base64url only; anything else is no digest) and compared in constant time.
 */
export function samePlanHash(a: unknown, b: unknown): boolean {
  const x = digestBytes(a);
  const y = digestBytes(b);
  return x !== undefined && y !== undefined && timingSafeEqual(x, y);
}

/** The 32 bytes an unpadded base64url SHA-256 digest encodes, or undefined for any other string. */
export function digestBytes(value: unknown): Buffer | undefined {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(value)) return undefined;
  const bytes = Buffer.from(value, 'base64url');
  // The last character's unused low bits must be zero: another spelling of the same bytes is not this digest.
  return bytes.length === 32 && bytes.toString('base64url') === value ? bytes : undefined;
}

function digest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

function without(value: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!names.includes(k)) out[k] = v;
  return out;
}

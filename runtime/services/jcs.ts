import { agentPackage } from '../artifacts/packages.js';

/**
 * RFC 8785 JSON Canonicalization Scheme, from the `canonicalize` package (by RFC 8785's authors; the spec's reference
 * implementation), never written here: the idempotency payload hash, and governance's `plan_hash` and
 * `authorized_payload_hash`, are SHA-256 over these bytes.
 */

type Canonicalize = (value: unknown) => string | undefined;
let canonicalize: Canonicalize | undefined;

/** The canonical JSON text of `value`; throws when it has none (undefined at the root, a function …). */
export function canonicalJson(value: unknown, purpose: string): string {
  canonicalize ??= agentPackage<Canonicalize>('canonicalize', purpose);
  const text = canonicalize(value);
  if (text === undefined) throw new Error('the value has no canonical JSON form');
  return text;
}

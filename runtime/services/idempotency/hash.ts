import { createHash } from 'node:crypto';
import { canonicalJson } from '../jcs.js';

/**
 * Payload equivalence (security.mdx, "Payload equivalence"): SHA-256 of the RFC 8785 (JCS) canonical form of the
 * request as the buyer sent it — before normalization and strip, so two payloads that differ only in fields the strip
 * removes conflict rather than replay — minus the spec's closed list of fields, `ext` included. JCS comes from the
 * `canonicalize` package (by RFC 8785's authors; the spec's reference implementation), never written here.
 */

/** The top-level fields outside the hash. The list is closed: the spec forbids extending it. */
const EXCLUDED = ['idempotency_key', 'governance_context'] as const;

export function payloadHash(args: Record<string, unknown>): string {
  const text = canonicalJson(hashed(args), 'idempotency (RFC 8785 payload hashing)');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The request without the excluded fields (a shallow copy: the request itself is never changed). */
function hashed(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if ((EXCLUDED as readonly string[]).includes(k)) continue;
    // The echo-back `context` object varies on retry by design. A string `context` is load-bearing in the tools
    // that take one (si_initiate_session's handoff description): it stays in the hash, as @adcp/sdk keeps it.
    if (k === 'context' && v !== null && typeof v === 'object' && !Array.isArray(v)) continue;
    out[k] = k === 'push_notification_config' ? withoutCredentials(v) : v;
  }
  return out;
}

/** `push_notification_config` without `authentication.credentials` (a rotated bearer); its URL and scheme stay. */
function withoutCredentials(config: unknown): unknown {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return config;
  const auth = (config as Record<string, unknown>).authentication;
  if (auth === null || typeof auth !== 'object' || Array.isArray(auth) || !('credentials' in auth)) return config;
  const { credentials: _credentials, ...rest } = auth as Record<string, unknown>;
  return { ...(config as Record<string, unknown>), authentication: rest };
}

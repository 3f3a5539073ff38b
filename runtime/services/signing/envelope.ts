import type { Headers } from './sdk.js';

/**
 * What the signing policy reads beside the signature: a header's value, and whether a call's arguments (as the call
 * read them) register webhook credentials. The signature headers themselves are the SDK's to parse; the body is never
 * read here (the code that runs each call reads it, once, and asks the verifier's `judge`).
 */

/** Deeper than this, arguments are not searched for webhook credentials (real AdCP payloads reach depth 5–8). */
const MAX_DEPTH = 64;

/** A header's value, the name matched case-insensitively (node lowercases; vectors and proxies may not). */
export function headerValue(headers: Headers, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name) continue;
    if (v === undefined) return undefined;
    return Array.isArray(v) ? v.map((s) => s.trim()).join(', ') : v.trim();
  }
  return undefined;
}

/**
 * Whether a call's arguments register webhook credentials anywhere (`push_notification_config.authentication`, or an
 * `authentication` in `notification_configs[]`): such a request must be signed whatever its operation (security.mdx,
 * "Webhook callbacks", downgrade resistance; negative vector 027), other credentials or not.
 */
export function carriesWebhookCredentials(value: unknown, depth = MAX_DEPTH): boolean {
  if (depth <= 0 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => carriesWebhookCredentials(v, depth - 1));
  const obj = value as Record<string, unknown>;
  if (hasAuthentication(obj.push_notification_config)) return true;
  if (Array.isArray(obj.notification_configs) && obj.notification_configs.some(hasAuthentication)) return true;
  for (const [key, v] of Object.entries(obj)) {
    if (key !== 'push_notification_config' && carriesWebhookCredentials(v, depth - 1)) return true;
  }
  return false;
}

function hasAuthentication(config: unknown): boolean {
  if (!isObject(config)) return false;
  const auth = config.authentication;
  return isObject(auth) && Object.keys(auth).length > 0;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

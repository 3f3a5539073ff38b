/**
 * Step 1 of the seller verification checklist (security.mdx, "Signed Governance Context"): the compact JWS read once,
 * strictly — three non-empty segments of unpadded base64url in its one canonical spelling, the header and the claims
 * each UTF-8 JSON objects, the whole within the envelope's 4096 characters. Every later step decides on this one
 * reading; the signature check (jose) is over the very bytes read here, so no step can see other claims than it does.
 */

export interface ParsedToken {
  /** The compact serialization as received. */
  readonly raw: string;
  readonly header: Readonly<Record<string, unknown>>;
  readonly claims: Readonly<Record<string, unknown>>;
}

/** `governance_context` is a string of at most 4096 characters (the envelope field's limit). */
export const MAX_TOKEN_LENGTH = 4096;

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The token, or what is malformed about it (for the server's log only: the counterparty is told the code). */
export function parseCompact(token: unknown): ParsedToken | string {
  if (typeof token !== 'string' || token === '') return 'governance_context is not a non-empty string';
  if (token.length > MAX_TOKEN_LENGTH) return `governance_context is longer than ${MAX_TOKEN_LENGTH} characters`;
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return 'governance_context is not a compact JWS (three base64url segments)';
  const header = jsonObject(parts[0]!);
  if (typeof header === 'string') return `the protected header: ${header}`;
  const claims = jsonObject(parts[1]!);
  if (typeof claims === 'string') return `the claims: ${claims}`;
  if (!canonical(parts[2]!)) return 'the signature is not canonical base64url';
  return { raw: token, header, claims };
}

function jsonObject(segment: string): Record<string, unknown> | string {
  if (!canonical(segment)) return 'not canonical base64url';
  let text: string;
  try {
    text = utf8.decode(Buffer.from(segment, 'base64url'));
  } catch {
    return 'not UTF-8';
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : 'not a JSON object';
}

/** One spelling per byte string: a segment whose unused trailing bits are set decodes alike but is another token. */
function canonical(segment: string): boolean {
  return segment.length % 4 !== 1 && Buffer.from(segment, 'base64url').toString('base64url') === segment;
}

import { createHash } from 'node:crypto';
import type { ApiKeys, AuthPrincipal, Authenticator, HttpRequest } from '../../api/http-types.js';

/**
 * Static API keys (L2/authentication.mdx: `Authorization: Bearer <key>`, AdCP's 3.0 baseline credential), each
 * authenticating as its principal — @adcp/sdk/server's `verifyApiKey({ keys })` contract, without loading that
 * package (about 1.6 s of a start). Keys are kept and looked up only as SHA-256 digests: the map never holds a key,
 * and a presented key is never compared character by character.
 */
export function apiKeyAuth(keys: ApiKeys): Authenticator {
  if (keys === null || typeof keys !== 'object') throw new Error('adcp-codegen: apiKeyAuth needs an object of keys: { [key]: { principal } }');
  const byDigest = new Map<string, string>();
  for (const [key, entry] of Object.entries(keys)) {
    if (key === '' || entry === null || typeof entry !== 'object' || typeof entry.principal !== 'string' || entry.principal === '') {
      throw new Error('adcp-codegen: apiKeyAuth: every key needs a non-empty value and principal');
    }
    byDigest.set(digest(key), entry.principal);
  }
  return (req: HttpRequest): AuthPrincipal | null => {
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) return null;
    const principal = byDigest.get(digest(token));
    // Not one of ours: null, as verifyApiKey answers, so an anyOf tries the next; the entry answers 401 invalid_token.
    return principal === undefined ? null : { principal };
  };
}

/** The token of a Bearer `Authorization` header (RFC 6750), or undefined. */
function bearerToken(header: string | readonly string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^bearer[ \t]+(\S+)\s*$/i.exec(header);
  return match === null ? undefined : match[1];
}

function digest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

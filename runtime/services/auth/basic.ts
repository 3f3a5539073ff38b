import { createHash, timingSafeEqual } from 'node:crypto';
import type { AuthPrincipal, AuthScheme, Authenticator, BasicUsers, HttpRequest } from '../../api/http-types.js';

/**
 * HTTP Basic authentication (RFC 7617), one of the three credential mechanisms AdCP accepts
 * (L2/authentication.mdx): `Authorization: Basic base64(user ":" password)` checked against a static map of users,
 * each authenticating as its principal.
 */

/**
 * The schemes an authenticator answers, for the 401's `WWW-Authenticate` (the entry reads it off the function; an
 * authenticator of the agent's own that composes basicAuth states it with HttpOptions.challenges instead).
 */
export const AUTH_SCHEMES: unique symbol = Symbol.for('adcp-codegen.auth.schemes');

/** An authenticator with its schemes marked. */
export type MarkedAuthenticator = Authenticator & { readonly [AUTH_SCHEMES]?: readonly AuthScheme[] };

/** Why a Basic credential was refused: the same words whatever was wrong, so a prober learns nothing. */
const REFUSED = 'Credentials rejected.';

/**
 * An Authenticator for `users`: the principal of the user whose password matches; `null` when the request carries
 * no Basic credentials (another authenticator may take it, or the call is public); a throw when it carries Basic
 * credentials that are malformed, of an unknown user or with a wrong password (401 `invalid_token`). Passwords are
 * compared as SHA-256 digests with `crypto.timingSafeEqual` (equal lengths whatever was sent), and an unknown user
 * costs the same comparison.
 */
export function basicAuth(users: BasicUsers): MarkedAuthenticator {
  if (users === null || typeof users !== 'object') throw new Error('adcp-codegen: basicAuth needs an object of users: { [user]: { password, principal } }');
  const known = new Map<string, { digest: Buffer; principal: string }>();
  for (const [user, entry] of Object.entries(users)) {
    if (user === '' || user.includes(':')) throw new Error(`adcp-codegen: basicAuth: a user name must be non-empty and without ":" (RFC 7617): ${JSON.stringify(user)}`);
    if (entry === null || typeof entry !== 'object' || typeof entry.password !== 'string' || entry.password === '' || typeof entry.principal !== 'string' || entry.principal === '') {
      throw new Error(`adcp-codegen: basicAuth: user ${JSON.stringify(user)} needs a non-empty password and principal`);
    }
    known.set(user, { digest: digest(entry.password), principal: entry.principal });
  }
  // Compared against when the user is unknown, so that answer takes as long as a wrong password.
  const nobody = digest('\u0000');
  const authenticate = (req: HttpRequest): AuthPrincipal | null => {
    const credentials = basicCredentials(req.headers.authorization);
    if (credentials === undefined) return null;
    if (credentials === null) throw new Error(REFUSED);
    const entry = known.get(credentials.user);
    const matches = timingSafeEqual(digest(credentials.password), entry?.digest ?? nobody);
    if (entry === undefined || !matches) throw new Error(REFUSED);
    return { principal: entry.principal };
  };
  return Object.assign(authenticate, { [AUTH_SCHEMES]: ['Basic'] as const });
}

/**
 * The user and password of a Basic `Authorization` header: undefined when the header is absent or another scheme's,
 * null when it is Basic but not `base64(user ":" password)`.
 */
export function basicCredentials(header: string | readonly string[] | undefined): { user: string; password: string } | null | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^basic[ \t]+/i.exec(header);
  if (match === null) return undefined;
  const encoded = header.slice(match[0].length).trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

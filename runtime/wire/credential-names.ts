import { escapeToken } from './pointer.js';

/**
 * Credentials belong in headers, never in a tool's arguments (AdCP L2/authentication.mdx; 3.2's CREDENTIAL_IN_ARGS:
 * "authentication material … placed in request args (top-level, in `context`, in `ext`, or any other nested
 * location)"). An argument is taken for one by its property name: these patterns are @adcp/sdk/server's
 * DEFAULT_CREDENTIAL_PATTERNS (credential-policy.js, kept as data here: the runtime imports no package) plus the
 * bare names and the trust material AdCP 3.2's error-code text names (`jwk`, `jwks`, `jwks_uri`).
 *
 * Matching names alone would refuse real AdCP fields: `auth_token` (a property list reference), `api_key_header`
 * (a webhook asset), `offering_token`, `continuation_token`, `user_token` are declared by AdCP's own request schemas.
 * So a name the tool's own request schema declares (in any served release) is never a smuggled credential
 * (call/credentials.ts asks the tool's advertised input schemas, artifacts/declared-names.ts). The receiver-side
 * `push_notification_config.authentication.credentials` matches no pattern: AdCP's explicit carve-out.
 */
export const CREDENTIAL_NAME_PATTERNS: readonly RegExp[] = [
  // @adcp/sdk/server DEFAULT_CREDENTIAL_PATTERNS (6.11)
  /_token$/i,
  /_secret$/i,
  /_password$/i,
  /api[_-]?key/i,
  /private[_-]?key/i,
  /^authorization$/i,
  /^cookie$/i,
  /^bearer$/i,
  /^accessToken$/i,
  /^refreshToken$/i,
  // the bare words, and AdCP 3.2's trust material
  /^password$/i,
  /^secret$/i,
  /^jwks?$/i,
  /^jwks_uri$/i,
];

export function isCredentialName(name: string): boolean {
  for (const pattern of CREDENTIAL_NAME_PATTERNS) if (pattern.test(name)) return true;
  return false;
}

/** A property of the arguments whose name is a credential's: where it is (RFC 6901) and its name. */
export interface CredentialHit {
  readonly pointer: string;
  readonly name: string;
}

/**
 * Every property at any depth of a JSON value (the parse-once copy: plain data, no cycles) whose name matches, with
 * the names `allowed` left out. Only names are read, never values.
 */
export function credentialNames(value: unknown, allowed: ReadonlySet<string> = new Set()): CredentialHit[] {
  const hits: CredentialHit[] = [];
  // The path as a stack, joined into a pointer only for a hit: every call walks its arguments, most find nothing.
  const path: string[] = [];
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(String(i));
        walk(node[i]);
        path.pop();
      }
      return;
    }
    for (const key of Object.keys(node)) {
      path.push(key);
      if (!allowed.has(key) && isCredentialName(key)) hits.push({ pointer: `/${path.map(escapeToken).join('/')}`, name: key });
      walk((node as Record<string, unknown>)[key]);
      path.pop();
    }
  };
  walk(value);
  return hits;
}

import { clip } from '../wire/bounds.js';
import { credentialNames, type CredentialHit } from '../wire/credential-names.js';
import { jsonPathLite } from '../wire/errors.js';
import { isObject } from '../wire/json-copy.js';
import { unescapeToken } from '../wire/pointer.js';
import type { Answer, Call } from './call.js';

/**
 * Credentials in a tool's arguments are refused before anything else reads them (AdCP 3.2's CREDENTIAL_IN_ARGS):
 * bearer tokens, API keys, passwords and trust material belong in the transport's authentication (the HTTP entry's
 * `Authorization`), never in the payload, where they would reach logs, stores and handlers. What counts as one is
 * data (wire/credential-names.ts): a credential's property name anywhere in the arguments — `context` and `ext`
 * included — unless the tool's own AdCP request schema declares that name.
 *
 * The answer follows the code's definition in enums/error-code.json: recovery `terminal` (an automatic retry would
 * log the credential again), a generic message, `field` naming where the first one is (never its value), no
 * `details`; and the credential is not echoed back: it is removed from the `context` the rejection returns.
 */
export function credentials(call: Call): Answer | void {
  const found = credentialNames(call.args);
  if (found.length === 0) return;
  const declared = call.env.declaredCredentials?.(call.tool);
  const smuggled = declared === undefined ? found : found.filter((hit) => !declared.has(hit.name));
  if (smuggled.length === 0) return;
  if (call.echo !== undefined) dropFromContext(call.echo, smuggled);
  return call.reject({
    code: 'CREDENTIAL_IN_ARGS',
    message: `${call.tool}: the arguments carry authentication material; send credentials in the Authorization header, never in a request's arguments, and rotate this one`,
    recovery: 'terminal',
    field: clip(jsonPathLite(smuggled[0]!.pointer)),
  });
}

/** The echoed context without the credentials found in it (the echo is the call's private copy). */
function dropFromContext(echo: { context: unknown }, hits: readonly CredentialHit[]): void {
  for (const { pointer } of hits) {
    if (!pointer.startsWith('/context/')) continue;
    const path = pointer.split('/').slice(2).map(unescapeToken);
    let node: unknown = echo.context;
    for (const token of path.slice(0, -1)) node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[token] : undefined;
    if (isObject(node)) delete node[path[path.length - 1]!];
  }
}

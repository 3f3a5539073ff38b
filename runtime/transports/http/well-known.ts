import type { HttpOptions } from '../../api/http-types.js';

/**
 * RFC 9728 protected-resource metadata, served only when the agent names the OAuth authorization server(s) that
 * really issue the tokens it accepts: advertising an issuer that does not exist is what AdCP's security storyboard
 * fails (an agent with static credentials serves none, and answers 404 there). Served at
 * `/.well-known/oauth-protected-resource/mcp` (the MCP endpoint's metadata, RFC 9728 §3.1: the well-known segment
 * between the host and the resource's path) and at `/.well-known/oauth-protected-resource` (the A2A endpoint's
 * clients look there), and named by every 401's `resource_metadata`.
 */

export interface ProtectedResourceMetadata {
  /** Request paths answered with the metadata. */
  readonly paths: ReadonlySet<string>;
  /** The metadata document, serialized once. */
  readonly body: string;
  /** The absolute URL a 401 names in `resource_metadata`. */
  readonly url: string;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export function protectedResourceMetadata(option: HttpOptions['protectedResource']): ProtectedResourceMetadata | undefined {
  if (option === undefined) return undefined;
  const resource = absoluteUrl(option.resource, 'protectedResource.resource');
  const servers = option.authorizationServers;
  if (!Array.isArray(servers) || servers.length === 0) throw new Error('adcp-codegen: protectedResource.authorizationServers must name at least one authorization server');
  for (const s of servers) absoluteUrl(s, 'protectedResource.authorizationServers');
  const path = resource.pathname.replace(/\/+$/, '');
  const body = JSON.stringify({
    resource: option.resource,
    authorization_servers: [...servers],
    ...(option.scopesSupported !== undefined ? { scopes_supported: [...option.scopesSupported] } : {}),
    bearer_methods_supported: ['header'],
  });
  return { paths: new Set([`${WELL_KNOWN}/mcp`, WELL_KNOWN, `${WELL_KNOWN}${path}`]), body, url: `${resource.origin}${WELL_KNOWN}${path}` };
}

function absoluteUrl(value: unknown, name: string): URL {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new Error(`adcp-codegen: ${name} must be an absolute http(s) URL: ${JSON.stringify(value)}`);
  return url;
}

/**
 * Where the HTTP entry answers what (transports/http/entry.ts): also what brand.json names as the agent's URLs
 * (services/keys/publication.ts), so both read them from here.
 */
export const MCP_PATH = '/mcp';
/** A2A JSON-RPC, the agent card's `url` (a POST to the base URL answers A2A too). */
export const A2A_PATH = '/a2a';
export const CARD_PATH = '/.well-known/agent-card.json';
export const BRAND_JSON_PATH = '/.well-known/brand.json';
export const JWKS_PATH = '/.well-known/jwks.json';
/** Liveness and readiness (transports/http/health.ts), public. */
export const HEALTHZ_PATH = '/healthz';
export const READYZ_PATH = '/readyz';

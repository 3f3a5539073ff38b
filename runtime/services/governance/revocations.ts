import type { Store } from '../../stores/open.js';
import type { KeyPair } from '../keys/key-material.js';
import { signingKey } from './issue.js';
import { jose, type FlattenedJws } from './jose.js';

/**
 * A governance agent's revocations (security.mdx, "Revocation"): what it revoked — one decision's `jti`, or a `kid`
 * and every token ever signed under it — kept in `adcp_governance_revocations` (every instance on one store publishes
 * the same list), and the list it publishes at `{origin of iss}/.well-known/governance-revocations.json`: a flattened
 * JWS (`typ` `adcp-gov-revocation+jws`) signed with a key of the same JWKS, so a CDN or DNS origin cannot unrevoke a
 * key. `next_update` is 15 minutes ahead (the ceiling is 30 for issuers of execution-phase tokens); the signed list is
 * remade at most once a minute, or at once after a revocation, so an unauthenticated poller cannot keep the agent signing.
 */
export interface Revocations {
  revoke(target: { jti: string } | { kid: string }): Promise<void>;
  /** The signed list for `issuer` (the tokens' `iss`). */
  list(issuer: string, pair: KeyPair): Promise<FlattenedJws>;
}

export const REVOCATION_TYP = 'adcp-gov-revocation+jws';
const NEXT_UPDATE_MS = 15 * 60_000;
const REMAKE_MS = 60_000;
const INSERT = 'INSERT INTO adcp_governance_revocations (kind, value, revoked_at) VALUES ($1, $2, $3) ON CONFLICT (kind, value) DO NOTHING';
const READ = 'SELECT kind, value FROM adcp_governance_revocations ORDER BY revoked_at, value';

export function revocations(store: Store): Revocations {
  let made: { at: number; issuer: string; list: Promise<FlattenedJws> } | undefined;
  return {
    async revoke(target) {
      const [kind, value] = 'jti' in target ? ['jti', target.jti] : ['kid', target.kid];
      if (typeof value !== 'string' || value === '') throw new Error(`adcp-codegen: governance: revoke a non-empty ${kind}`);
      await (await store.open()).query(INSERT, [kind, value, Date.now()]);
      made = undefined;
    },
    list(issuer, pair) {
      if (made !== undefined && made.issuer === issuer && Date.now() - made.at < REMAKE_MS) return made.list;
      const list = sign(store, issuer, pair);
      made = { at: Date.now(), issuer, list };
      list.catch(() => (made = undefined));
      return list;
    },
  };
}

async function sign(store: Store, issuer: string, pair: KeyPair): Promise<FlattenedJws> {
  const rows = (await (await store.open()).query(READ)).rows;
  const now = Date.now();
  const payload = {
    version: 1,
    issuer,
    updated: new Date(now).toISOString(),
    next_update: new Date(now + NEXT_UPDATE_MS).toISOString(),
    revoked_jtis: rows.filter((r) => r.kind === 'jti').map((r) => String(r.value)),
    revoked_kids: rows.filter((r) => r.kind === 'kid').map((r) => String(r.value)),
  };
  const header = { alg: String(pair.publicJwk.alg), kid: pair.kid, typ: REVOCATION_TYP };
  return new (jose().FlattenedSign)(new TextEncoder().encode(JSON.stringify(payload))).setProtectedHeader(header).sign(await signingKey(pair));
}

import type { FetchLike } from '../webhooks/sdk.js';
import { GovernanceRefusal, keyProblem, verificationKey, type IssuerKeys } from './checklist.js';
import { hostOf } from '../../wire/report.js';
import { fetchJson } from './fetch.js';
import { jose, type FlattenedJws } from './jose.js';
import { REVOCATION_TYP } from './revocations.js';
import { WARNINGS, type RuntimeLog } from '../../ops/log.js';

/**
 * Step 14 on the service side (security.mdx, "Revocation"): an issuer's signed list, fetched from
 * `{origin of iss}/.well-known/governance-revocations.json` under the SSRF rule, its signature checked with a
 * governance-signing key of the issuer's own JWKS (`typ` `adcp-gov-revocation+jws`; flattened, general or compact
 * serialization), its `issuer` the token's `iss` (or its origin). A list is polled again when its `next_update`
 * passes (never sooner than a minute after the last attempt; a `next_update` over 30 minutes ahead counts as 30), and
 * stays usable until `next_update` plus four polling intervals: past that, a token that needs a fresh list (an
 * execution-phase one, or an intent token living over 15 minutes) is `governance_revocation_stale`. A 15-minute intent
 * token is checked against whatever list is held, none fetched if none can be.
 */
export interface RevocationChecks {
  status(keys: IssuerKeys, iss: string, kid: string, jti: string, fresh: boolean): Promise<'ok' | 'revoked' | 'stale'>;
}

const MAX_LIST_BYTES = 1024 * 1024;
const FLOOR_MS = 60_000;
const CEILING_MS = 30 * 60_000;

interface Held {
  readonly jtis: ReadonlySet<string>;
  readonly kids: ReadonlySet<string>;
  readonly nextUpdate: number;
  readonly usableUntil: number;
}

interface State {
  list?: Held;
  attempted: number;
  pending?: Promise<void>;
}

export function revocationChecks(fetch: FetchLike, sandbox: boolean, clock: () => number = Date.now, log: Pick<RuntimeLog, 'warn'> = WARNINGS): RevocationChecks {
  const issuers = new Map<string, State>();
  const refresh = (state: State, keys: IssuerKeys, iss: string): Promise<void> => {
    state.attempted = clock();
    state.pending ??= read(fetch, keys, iss, sandbox, clock)
      .then((list) => {
        if (list !== undefined) state.list = list;
      })
      .catch((e: unknown) => log.warn('governance_revocations_stale', `adcp-codegen: governance: the revocation list of ${hostOf(iss)} could not be refreshed: ${(e as Error).message}`))
      .finally(() => (state.pending = undefined));
    return state.pending;
  };
  return {
    async status(keys, iss, kid, jti, fresh) {
      let state = issuers.get(iss);
      if (state === undefined) {
        if (issuers.size > 10_000) issuers.delete(issuers.keys().next().value!);
        issuers.set(iss, (state = { attempted: 0 }));
      }
      const now = clock();
      if ((state.list === undefined || now >= state.list.nextUpdate) && now - state.attempted >= FLOOR_MS) await refresh(state, keys, iss);
      else if (state.pending !== undefined) await state.pending;
      const list = state.list;
      if (list !== undefined && (list.jtis.has(jti) || list.kids.has(kid))) return 'revoked';
      if (fresh && (list === undefined || clock() > list.usableUntil)) return 'stale';
      return 'ok';
    },
  };
}

/** The issuer's current list, verified; undefined when it publishes none (404). */
async function read(fetch: FetchLike, keys: IssuerKeys, iss: string, sandbox: boolean, clock: () => number): Promise<Held | undefined> {
  const url = `${new URL(iss).origin}/.well-known/governance-revocations.json`;
  const got = await fetchJson(fetch, url, sandbox, MAX_LIST_BYTES);
  if (got.status !== 200) return undefined;
  const jws = flattened(got.body);
  if (jws === undefined) throw new GovernanceRefusal('governance_token_invalid', 'the revocation list is not a JWS');
  const header = decode(jws.protected ?? '') as Record<string, unknown> | undefined;
  if (header?.typ !== REVOCATION_TYP || typeof header.kid !== 'string' || typeof header.alg !== 'string') throw new GovernanceRefusal('governance_token_invalid', `the revocation list's header is not an ${REVOCATION_TYP} one`);
  const jwk = await keys.key(header.kid);
  if (jwk === null || keyProblem(jwk, header.alg) !== undefined) throw new GovernanceRefusal('governance_key_unknown', `the revocation list is signed by kid ${header.kid}, not a governance key of ${hostOf(iss)}`);
  const verified = await jose().flattenedVerify(jws, await verificationKey(jwk, header.alg), { algorithms: [header.alg] }).catch(() => {
    throw new GovernanceRefusal('governance_token_invalid', 'the revocation list\'s signature does not verify');
  });
  const body = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  if (body.issuer !== iss && body.issuer !== new URL(iss).origin) throw new GovernanceRefusal('governance_token_invalid', `the revocation list is ${String(body.issuer)}'s, not ${iss}'s`);
  const updated = Date.parse(String(body.updated));
  const declared = Date.parse(String(body.next_update));
  if (!Number.isFinite(updated) || !Number.isFinite(declared)) throw new GovernanceRefusal('governance_token_invalid', 'the revocation list has no updated / next_update');
  const nextUpdate = Math.min(declared, updated + CEILING_MS, clock() + CEILING_MS);
  const interval = Math.min(Math.max(nextUpdate - updated, FLOOR_MS), CEILING_MS);
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  return { jtis: new Set(strings(body.revoked_jtis)), kids: new Set(strings(body.revoked_kids)), nextUpdate, usableUntil: nextUpdate + 4 * interval };
}

/** A JWS in flattened form, from any of the three serializations (general with one signature). */
function flattened(doc: unknown): FlattenedJws | undefined {
  if (typeof doc === 'string') {
    const [p, payload, signature] = doc.split('.');
    return p !== undefined && payload !== undefined && signature !== undefined ? { protected: p, payload, signature } : undefined;
  }
  const o = doc as Record<string, unknown> | null;
  if (o === null || typeof o !== 'object' || typeof o.payload !== 'string') return undefined;
  const sig = Array.isArray(o.signatures) ? (o.signatures[0] as Record<string, unknown> | undefined) : o;
  if (typeof sig?.protected !== 'string' || typeof sig.signature !== 'string') return undefined;
  return { payload: o.payload, protected: sig.protected, signature: sig.signature };
}

function decode(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

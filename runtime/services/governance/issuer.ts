import type { GovernanceIssuer, GovernanceOptions } from '../../api/governance-types.js';
import type { Store } from '../../stores/open.js';
import { GOVERNANCE_JWKS_PATH, GOVERNANCE_REVOCATIONS_PATH } from '../../wire/paths.js';
import { GOVERNANCE_SIGNING, signingKeys, type SigningKeys } from '../keys/keys.js';
import { baseOf, jsonDocument, type PublicationPart } from '../keys/publication.js';
import { planHash } from './hash.js';
import { issueToken } from './issue.js';
import { revocations } from './revocations.js';

/**
 * A governance agent's issuing (its profile serves `check_governance`, or a governance key is configured): the
 * governance-signing key — the deployment's (`AgentOptions.governance.key`, `ADCP_GOVERNANCE_KEY`,
 * `ADCP_GOVERNANCE_KEY_FILE`), or a sandbox's development key in its store; never the request- or webhook-signing key —
 * and its publication beside the agent's other keys: a JWKS of its own (`/.well-known/governance-jwks.json`), the
 * brand.json `agents[]` entry of type `governance` whose `url` is the tokens' `iss` and whose `jwks_uri` is that JWKS,
 * and the signed revocation list. `iss` defaults to `<public URL>/governance`: an identifier apart from the agent's MCP
 * URL, whose brand.json entry names the request-signing JWKS.
 */
export interface GovernanceIssuing extends GovernanceIssuer {
  readonly part: PublicationPart;
  /** Reads the key (a production agent without one fails here) and checks it is not the request-signing key. */
  ready(requestKeys?: SigningKeys): Promise<void>;
}

export interface IssuingSettings {
  readonly profile: string;
  readonly sandbox: boolean;
  /** brand.json `agents[].id` of this agent (its governance entry is `<id>_governance`). */
  readonly agentId: string;
  readonly options?: GovernanceOptions;
  readonly env?: NodeJS.ProcessEnv;
}

export function governanceIssuing(store: Store, settings: IssuingSettings, baseUrl: () => string | undefined): GovernanceIssuing {
  const env = settings.env ?? process.env;
  const keys = signingKeys(store, { profile: settings.profile, sandbox: settings.sandbox, option: settings.options?.key, env, purpose: GOVERNANCE_SIGNING });
  const configuredIssuer = settings.options?.issuer ?? nonEmpty(env.ADCP_GOVERNANCE_ISSUER);
  if (configuredIssuer !== undefined) baseOf(configuredIssuer, 'the governance issuer (governance.issuer / ADCP_GOVERNANCE_ISSUER)');
  const configuredJwks = settings.options?.jwksUrl ?? nonEmpty(env.ADCP_GOVERNANCE_JWKS_URL);
  if (configuredJwks !== undefined) baseOf(configuredJwks, 'the governance JWKS URL (governance.jwksUrl / ADCP_GOVERNANCE_JWKS_URL)');
  const revoked = revocations(store);
  const issuerAt = (base: string | undefined): string | undefined => configuredIssuer ?? (base === undefined ? undefined : `${base}/governance`);
  const issuer = (): string | undefined => issuerAt(baseUrl());
  const jwks = async () => ({ keys: [{ ...(await keys.pair()).publicJwk }] });
  return {
    issuer,
    async issue(input) {
      const iss = issuer();
      if (iss === undefined) throw new Error(`adcp-codegen: ${settings.profile} cannot issue a governance_context before its public URL is known: set ADCP_PUBLIC_URL (or governance.issuer)`);
      return issueToken(input, iss, await keys.pair());
    },
    revoke: (target) => revoked.revoke(target),
    jwks,
    planHash,
    part: {
      agents(base) {
        return [{ type: 'governance', id: `${settings.agentId}_governance`, url: issuerAt(base), jwks_uri: configuredJwks ?? `${base}${GOVERNANCE_JWKS_PATH}` }];
      },
      wellKnown(path, base) {
        if (path === GOVERNANCE_JWKS_PATH) return jwks().then(jsonDocument);
        const iss = issuerAt(base);
        // The list lives at the origin of iss: served here only when that origin is this agent's.
        if (path !== GOVERNANCE_REVOCATIONS_PATH || iss === undefined || base === undefined || new URL(iss).origin !== new URL(base).origin) return undefined;
        return keys.pair().then((pair) => revoked.list(iss, pair)).then(jsonDocument);
      },
    },
    async ready(requestKeys) {
      const pair = await keys.pair();
      const other = requestKeys === undefined ? undefined : await requestKeys.pair().catch(() => undefined);
      if (other !== undefined && (other.kid === pair.kid || other.publicJwk.x === pair.publicJwk.x)) {
        throw new Error(`adcp-codegen: ${settings.profile}: the governance signing key (kid ${pair.kid}) is the request-signing key (kid ${other.kid}); AdCP forbids one key for two purposes: configure a key of its own with a kid of its own`);
      }
    },
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

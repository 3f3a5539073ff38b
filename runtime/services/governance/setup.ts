import type { AgentOptions } from '../../api/agent-types.js';
import type { Served } from '../../artifacts/served.js';
import type { Store } from '../../stores/open.js';
import { publication, type Publication } from '../keys/publication.js';
import type { SignedWebhooks } from '../webhooks/setup.js';
import { governanceIssuing, type GovernanceIssuing } from './issuer.js';

/**
 * Signed governance for one agent, from its profile and options: issuing when the profile serves `check_governance`
 * (a governance agent) or a governance key is configured. The governance documents join the agent's publication — the
 * webhook-signing agent's, or, for an agent that signs nothing else, one of their own.
 */
export interface GovernanceServices {
  readonly issuing?: GovernanceIssuing;
  /** The publication serving brand.json for an agent whose only keys are its governance keys. */
  readonly publication?: Publication;
}

/** Called only for an agent that issues (agent-services.ts decides, so the others never load this module). */
export function governanceServices(served: Served, options: AgentOptions, store: () => Store, signing: SignedWebhooks | undefined, env: NodeJS.ProcessEnv = process.env): GovernanceServices {
  const top = served.releases[0]!.capabilities;
  const protocols = Array.isArray(top.supported_protocols) ? (top.supported_protocols as string[]) : [];
  const own = signing === undefined ? publication(undefined, { profile: served.name, protocols, publicUrl: options.publicUrl, options: options.publication, env }) : undefined;
  const pub = signing?.publication ?? own!;
  const agentId = options.publication?.agentId ?? served.name.replace(/[^a-z0-9_]/g, '_').slice(0, 100);
  const issuing = governanceIssuing(store(), { profile: served.name, sandbox: served.surface === 'sandbox' || served.mode === 'development', agentId, options: options.governance, env }, () => pub.baseUrl());
  pub.contribute(issuing.part);
  return { issuing, ...(own !== undefined ? { publication: own } : {}) };
}

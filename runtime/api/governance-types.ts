import type { PrivateJwk } from './webhook-types.js';

/**
 * Signed governance (security.mdx, "Signed Governance Context"; the campaign governance specification): the options
 * of an agent that issues `governance_context` tokens (a governance agent) or enforces them (a service whose profile
 * advertises `adcp.governance_enforcement.tasks[]`), and what a handler is told. Types only, structural: nothing here
 * names jose, which signs and verifies behind them.
 */

/** The authorization stage a token stands for. */
export type GovernancePhase = 'intent' | 'purchase' | 'modification' | 'delivery';

/** A monetary amount in an ISO 4217 currency (`authorized_commitment`, a service's computed commitment). */
export interface GovernanceCommitment {
  amount: number;
  currency: string;
}

/** The verification error taxonomy (security.mdx): the stable code a refused token is answered with. */
export type GovernanceErrorCode =
  | 'governance_token_invalid'
  | 'governance_key_unknown'
  | 'governance_jwks_unavailable'
  | 'governance_jwks_untrusted'
  | 'governance_token_expired'
  | 'governance_token_not_yet_valid'
  | 'governance_token_replayed'
  | 'governance_token_revoked'
  | 'governance_issuer_not_authorized'
  | 'governance_revocation_stale'
  | 'governance_token_not_applicable';

/**
 * Who a buyer is, as the seller's own records say (never the token): the URL its tokens name as `caller`, and where
 * its brand.json is — the document that says which governance agents (`agents[]` of type `governance`) may sign for
 * it. `brandJson` is a URL, or the buyer's domain (`https://<domain>/.well-known/brand.json`).
 */
export interface GovernanceBuyer {
  caller: string;
  brandJson: string;
}

/** The authenticated identity a buyer is resolved from: the principal, and a verified request signature's signer. */
export interface GovernanceIdentity {
  principal: string;
  signer?: { keyid: string; agent_url?: string };
}

/** The governance agent an account registered with `sync_governance`: where to call, with what credentials. */
export interface GovernanceRegistration {
  url: string;
  /** The Bearer credential the service presents to it (`authentication.credentials`). */
  credentials?: string;
}

export interface GovernanceTaskHooks {
  /**
   * The monetary commitment the service will make for this request, computed by the service itself (step 12 compares
   * it with the signed `authorized_commitment`); undefined for a request that commits no money. Required of every
   * enforced task: a service that cannot price the action before commit must not advertise enforcement for it.
   */
  commitment(args: Record<string, unknown>, ctx: GovernanceHookContext): GovernanceCommitment | undefined | Promise<GovernanceCommitment | undefined>;
  /**
   * The prepared result (`planned_delivery`) an `online_execution_check` presents to the governance agent before
   * commit. Required of a task whose modes include `online_execution_check`.
   */
  plannedDelivery?(args: Record<string, unknown>, ctx: GovernanceHookContext): Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Whether this request needs governance at all (a conditional task's risk-reducing delta: a pause, a decrease). Default: always. */
  governed?(args: Record<string, unknown>, ctx: GovernanceHookContext): boolean | Promise<boolean>;
}

export interface GovernanceHookContext {
  readonly tool: string;
  readonly principal: string;
}

export interface GovernanceOptions {
  // ---- issuing (a governance agent) ----
  /**
   * The private JWK governance tokens are signed with (Ed25519 or P-256, with a `kid`; `adcp_use` "governance-signing"
   * if stated), or `{ file }`. Default: `ADCP_GOVERNANCE_KEY` (the JWK as JSON), else `ADCP_GOVERNANCE_KEY_FILE`; a
   * sandbox agent without one makes a development key in its store. Never the request- or webhook-signing key.
   */
  key?: PrivateJwk | { file: string };
  /** The `iss` of issued tokens: an https URL buyers list in their brand.json. Default: `<public URL>/governance`. */
  issuer?: string;
  /**
   * Where the governance JWKS is published, when not by this agent (`<public URL>/.well-known/governance-jwks.json`):
   * the spec wants governance keys on an origin of their own, apart from request- and webhook-signing keys.
   */
  jwksUrl?: string;
  // ---- enforcing (a service advertising adcp.governance_enforcement) ----
  /**
   * The service's own canonical URL, as the `adagents.json` entry that authorizes it says: tokens must name it as
   * `aud`, byte for byte. Default: `ADCP_GOVERNANCE_AUDIENCE`, else the agent's MCP URL (`<public URL>/mcp`).
   */
  audience?: string;
  /** The buyer an authenticated identity is, from the service's onboarding records: by principal, or a function. */
  buyers?: Readonly<Record<string, GovernanceBuyer>> | ((who: GovernanceIdentity) => GovernanceBuyer | undefined | Promise<GovernanceBuyer | undefined>);
  /** The governance agent an account registered (`sync_governance`): a token is required when there is one. */
  registration?(account: unknown, ctx: GovernanceHookContext): GovernanceRegistration | undefined | Promise<GovernanceRegistration | undefined>;
  /** Per enforced task: how the service prices it, prepares it for an execution check, and whether it is governed. */
  tasks?: Readonly<Record<string, GovernanceTaskHooks>>;
  /** Clock skew tolerated on `iat`, `nbf` and `exp` (default 60 s, the spec's). */
  clockSkewSeconds?: number;
  /** How long accepted tokens are kept (the audit record and the `jti` replay set); default 7 years. */
  retentionDays?: number;
  /** Deadline of an online execution check (default 10 s; the spec's expectation for execution checks). */
  executionTimeoutMs?: number;
}

/** What a handler of an enforced task is told of the authorization it runs under (`ctx.governance`). */
export interface GovernanceAuthorization {
  /** The buyer's intent token, verbatim (a seller persists it and forwards it on later governance calls). */
  readonly token: string;
  readonly claims: Readonly<Record<string, unknown>>;
  /** The execution check's outcome, for a task advertising `online_execution_check`. */
  readonly execution?: { readonly token: string; readonly claims: Readonly<Record<string, unknown>>; readonly check_id: string };
}

/** One policy's outcome in a token's `policy_decisions`. */
export interface GovernancePolicyDecision {
  policy_id: string;
  outcome: string;
  confidence?: number;
}

/** What a governance agent's handler gives `agent.governance.issue` for one decision. */
export interface GovernanceTokenInput {
  phase: GovernancePhase;
  /** `aud`: the downstream service's exact URL (the check's `target_agent`; on an execution check, the calling service). */
  audience: string;
  /** `caller`: the URL the check's authenticated caller resolves to. */
  caller: string;
  /** `check_id`: this decision's id (report_plan_outcome and the audit log name it). */
  checkId: string;
  /** The plan state just evaluated, as supplied on sync_plans (bookkeeping is stripped before hashing): `plan_hash`. */
  plan: Record<string, unknown>;
  /** `sub`: the action's opaque binding, stable over its lifecycle (default: a new one). Never derived from plan_id. */
  sub?: string;
  /** `authorized_task` and the exact downstream request whose hash is `authorized_payload_hash` (intent tokens). */
  authorizedTask?: string;
  authorizedPayload?: Record<string, unknown>;
  /** `authorized_commitment`: the monetary ceiling approved (an explicit 0 for a verified zero-cost action). */
  authorizedCommitment?: GovernanceCommitment;
  /** Required on modification and delivery tokens, absent on intent ones. */
  mediaBuyId?: string;
  /** The decision record: one of the two is required; the hash where the policies evaluated are sensitive. */
  policyDecisions?: GovernancePolicyDecision[];
  policyDecisionHash?: string;
  auditLogPointer?: string;
  runtimeAttestationBindingDigest?: string;
  /** Default and maximum: 15 minutes for intent tokens, 30 days for execution-phase ones. */
  lifetimeSeconds?: number;
}

export interface IssuedGovernanceToken {
  /** The compact JWS: the `governance_context` to answer with. */
  token: string;
  claims: Record<string, unknown>;
  /** `exp` as a date-time (check_governance's `expires_at`). */
  expiresAt: string;
}

/** `agent.governance`: a governance agent's issuing of signed `governance_context` tokens. */
export interface GovernanceIssuer {
  /** The tokens' `iss`, once the agent's public URL is known. */
  issuer(): string | undefined;
  /** Signs a decision (fresh jti, iat, exp and plan_hash every time). */
  issue(input: GovernanceTokenInput): Promise<IssuedGovernanceToken>;
  /** Revokes one decision (`jti`) or every token a key signed (`kid`): the signed revocation list names it at once. */
  revoke(target: { jti: string } | { kid: string }): Promise<void>;
  /** The public JWKS tokens verify with. */
  jwks(): Promise<{ keys: Record<string, unknown>[] }>;
  /** `plan_hash` of a plan (its bookkeeping stripped): what a governance agent retains per plan revision. */
  planHash(plan: Record<string, unknown>): string;
}

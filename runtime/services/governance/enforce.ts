import type { GovernanceAuthorization, GovernanceBuyer, GovernanceErrorCode, GovernanceHookContext, GovernanceOptions, GovernancePhase } from '../../api/governance-types.js';
import type { Store } from '../../stores/open.js';
import { AdcpError } from '../../wire/errors.js';
import type { FetchLike } from '../webhooks/sdk.js';
import { verifyGovernanceContext, type ChecklistDeps, type Gate, type Verdict } from './checklist.js';
import { discovery, type Discovery } from './discovery.js';
import { executionCheck } from './execution.js';
import { pinnedFetch } from './fetch.js';
import { tokenRecord, type TokenRecord } from './replay.js';
import { revocationChecks, type RevocationChecks } from './revocation-check.js';
import type { EnforcementSettings } from './settings.js';
import type { RuntimeLog } from '../../ops/log.js';

/**
 * A service enforcing governance on the tasks its profile lists in `adcp.governance_enforcement.tasks[]`
 * (security.mdx, Signed Governance Context; the governance specification, "Seller enforcement"). Before the handler
 * of a governed task runs — after its idempotency claim, so a refusal has no side effect and releases the claim —
 * the buyer's intent token is verified by the 15-step checklist: the buyer from the service's own records of the
 * authenticated caller (never the token), the issuer's keys through that buyer's brand.json, the revocation list, the
 * jti in the store's replay set. A task advertising `online_execution_check` then obtains a binary execution approval
 * from the account's registered governance agent and verifies its token too. An account with a registered governance
 * agent needs a token; a token sent is always verified.
 */
export interface GovernanceEnforcement {
  readonly settings: EnforcementSettings;
  gate(call: GateCall): Promise<GateOutcome | undefined>;
}

export interface GateCall {
  readonly tool: string;
  /** The request as the buyer sent it (the parse-once copy): what the token's payload hash binds. */
  readonly args: Record<string, unknown>;
  /** The request the handler will see (the hooks price and prepare it). */
  readonly value: Record<string, unknown>;
  readonly principal: string;
  readonly auth?: Readonly<Record<string, unknown>>;
}

export type GateOutcome = { readonly error: AdcpError } | { readonly authorization: GovernanceAuthorization; settle(body: Record<string, unknown>): Promise<void> };

/** The execution phase a task's prepared result is checked in. */
const EXECUTION_PHASE: Readonly<Record<string, Exclude<GovernancePhase, 'intent'>>> = {
  create_media_buy: 'purchase',
  buy_products: 'purchase',
  accept_proposal: 'purchase',
  update_media_buy: 'modification',
  control_media_buy: 'modification',
};

export function governanceEnforcement(settings: EnforcementSettings, store: Store, options: GovernanceOptions, audience: () => string | undefined): GovernanceEnforcement {
  let made: { fetch: FetchLike; discovery: Discovery; revocations: RevocationChecks } | undefined;
  const net = () => {
    if (made === undefined) {
      const fetch = pinnedFetch(settings.sandbox);
      made = { fetch, discovery: discovery(fetch, settings.sandbox), revocations: revocationChecks(fetch, settings.sandbox, Date.now, store.log) };
    }
    return made;
  };
  const record: TokenRecord = tokenRecord(store, settings.retentionDays * 86_400_000);
  const depsFor = (buyer: GovernanceBuyer): ChecklistDeps => ({
    now: () => Math.floor(Date.now() / 1000),
    skewSeconds: settings.skewSeconds,
    issuer: (iss) => net().discovery.issuer(buyer.brandJson, iss),
    listed: (iss) => net().discovery.listed(buyer.brandJson, iss),
    async revocation(iss, kid, jti, fresh) {
      const keys = await net().discovery.issuer(buyer.brandJson, iss);
      return keys === undefined ? 'stale' : net().revocations.status(keys, iss, kid, jti, fresh);
    },
    consume: (entry) => record.consume(entry, Math.floor(Date.now() / 1000)),
  });
  return {
    settings,
    async gate(call) {
      const task = settings.tasks.get(call.tool);
      if (task === undefined) return undefined;
      const hooks = options.tasks![call.tool]!;
      const ctx: GovernanceHookContext = { tool: call.tool, principal: call.principal };
      const token = call.args.governance_context;
      if (token === undefined && hooks.governed !== undefined && !(await hooks.governed(call.value, ctx))) return undefined;
      const registration = await options.registration?.(call.value, ctx);
      if (token === undefined) {
        if (registration === undefined) return undefined;
        return { error: new AdcpError('PERMISSION_DENIED', `${call.tool}: this account's governance agent must approve it first: send the governance_context check_governance returned`, { recovery: 'correctable', field: 'governance_context', suggestion: 'call check_governance with this exact request as payload, then send it with the governance_context the approval carries' }) };
      }
      const buyer = await buyerOf(options, call);
      const aud = audience();
      if (aud === undefined) throw new Error('governance enforcement needs the service\'s canonical URL: set governance.audience, ADCP_GOVERNANCE_AUDIENCE or ADCP_PUBLIC_URL');
      if (buyer === undefined) return refused(call.tool, { ok: false, code: 'governance_issuer_not_authorized', step: 5, detail: `no buyer record for principal ${call.principal}: whose brand.json to consult is unknown` }, store.log);
      const commitment = await hooks.commitment(call.value, ctx);
      const mediaBuyId = typeof call.args.media_buy_id === 'string' ? call.args.media_buy_id : undefined;
      const priorSub = mediaBuyId === undefined ? undefined : await record.priorSub(aud, mediaBuyId);
      // The version envelope is negotiation metadata a client library adds to every call after the buyer formed the
      // request it had authorized (AdCP's own grader does): a token may bind the request with or without it.
      const { adcp_version: _v, adcp_major_version: _m, ...unversioned } = call.args;
      const gate: Gate = {
        phase: 'intent',
        audience: aud,
        caller: buyer.caller,
        task: call.tool,
        payload: call.args,
        ...(Object.keys(unversioned).length < Object.keys(call.args).length ? { payloadReadings: [unversioned] } : {}),
        ...(commitment !== undefined ? { commitment } : {}),
        ...(priorSub !== undefined ? { priorSub } : {}),
        ...(mediaBuyId !== undefined ? { mediaBuyId } : {}),
        ...(typeof call.args.idempotency_key === 'string' ? { idempotencyKey: call.args.idempotency_key } : {}),
      };
      const deps = depsFor(buyer);
      const verdict = await verifyGovernanceContext(token, gate, deps);
      if (!verdict.ok) return refused(call.tool, verdict, store.log);
      const claims = verdict.token.claims;
      const spent = [{ iss: String(claims.iss), aud, jti: String(claims.jti) }];
      let execution: GovernanceAuthorization['execution'];
      if (task.modes.includes('online_execution_check')) {
        if (registration === undefined) return { error: new AdcpError('GOVERNANCE_UNAVAILABLE', `${call.tool}: this account registered no governance agent to run the execution check with`, { recovery: 'transient' }) };
        const phase = EXECUTION_PHASE[call.tool]!;
        const plannedDelivery = await hooks.plannedDelivery!(call.value, ctx);
        const answer = await executionCheck({ registration, caller: aud, intentToken: verdict.token.raw, phase, plannedDelivery, ...(phase === 'modification' && commitment !== undefined ? { executionCommitment: commitment } : {}) }, net().fetch, settings.sandbox, settings.executionTimeoutMs);
        if (answer.verdict === 'unavailable') {
          store.log.warn('governance_unavailable', `adcp-codegen: ${call.tool}: the online execution check failed: ${answer.reason}`, { tool: call.tool });
          return { error: new AdcpError('GOVERNANCE_UNAVAILABLE', `${call.tool}: the registered governance agent could not be consulted; retry with backoff`, { recovery: 'transient' }) };
        }
        if (answer.verdict === 'denied') {
          return { error: new AdcpError('GOVERNANCE_DENIED', answer.explanation, { recovery: 'correctable', details: { ...(answer.checkId !== undefined ? { check_id: answer.checkId } : {}), ...(answer.findings !== undefined ? { findings: answer.findings } : {}) } }) };
        }
        const planned = typeof plannedDelivery.media_buy_id === 'string' ? plannedDelivery.media_buy_id : mediaBuyId;
        const exec = await verifyGovernanceContext(answer.token, { phase, audience: aud, caller: aud, task: call.tool, priorSub: String(claims.sub), ...(planned !== undefined ? { mediaBuyId: planned } : {}), ...(commitment !== undefined ? { commitment } : {}) }, deps);
        if (!exec.ok) return refused(call.tool, exec, store.log);
        if (exec.token.claims.iss !== claims.iss) return refused(call.tool, { ok: false, code: 'governance_token_not_applicable', step: 5, detail: 'the execution token has another issuer than the intent token' }, store.log);
        execution = { token: answer.token, claims: exec.token.claims, check_id: answer.checkId };
        spent.push({ iss: String(exec.token.claims.iss), aud, jti: String(exec.token.claims.jti) });
      }
      return {
        authorization: { token: verdict.token.raw, claims, ...(execution !== undefined ? { execution } : {}) },
        async settle(body) {
          const id = typeof body.media_buy_id === 'string' ? body.media_buy_id : mediaBuyId;
          for (const s of spent) await record.spend(s, id);
        },
      };
    },
  };
}

/** The buyer an authenticated identity is, from the service's records: by principal, or the configured function. */
async function buyerOf(options: GovernanceOptions, call: GateCall): Promise<GovernanceBuyer | undefined> {
  const buyers = options.buyers;
  let found: GovernanceBuyer | undefined;
  if (typeof buyers === 'function') {
    const signer = call.auth?.verified_signer as { keyid?: unknown; agent_url?: unknown } | undefined;
    const who = { principal: call.principal, ...(typeof signer?.keyid === 'string' ? { signer: { keyid: signer.keyid, ...(typeof signer.agent_url === 'string' ? { agent_url: signer.agent_url } : {}) } } : {}) };
    found = await buyers(who);
  } else if (buyers !== undefined && Object.hasOwn(buyers, call.principal)) found = buyers[call.principal];
  if (found === undefined || typeof found.caller !== 'string' || typeof found.brandJson !== 'string') return undefined;
  // A bare domain names its well-known brand.json.
  return /^https?:\/\//.test(found.brandJson) ? found : { ...found, brandJson: `https://${found.brandJson}/.well-known/brand.json` };
}

/** A refused token: the stable code to the caller (no detail: which claim failed is not theirs to learn), the rest logged. */
function refused(tool: string, verdict: Extract<Verdict, { ok: false }>, log: Pick<RuntimeLog, 'info'>): GateOutcome {
  log.info('governance_refused', `adcp-codegen: ${tool}: governance_context refused at step ${verdict.step}: ${verdict.code} (${verdict.detail})`, { tool, code: verdict.code, step: verdict.step });
  const code: GovernanceErrorCode = verdict.code;
  if (code === 'governance_jwks_unavailable') {
    return { error: new AdcpError('GOVERNANCE_UNAVAILABLE', `${tool}: the governance agent's keys could not be fetched; retry with backoff`, { recovery: 'transient', details: { governance_error: code } }) };
  }
  return { error: new AdcpError('PERMISSION_DENIED', `${tool}: the governance_context was refused (${code})`, { recovery: 'correctable', field: 'governance_context', details: { governance_error: code } }) };
}

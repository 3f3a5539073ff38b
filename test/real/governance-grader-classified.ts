/**
 * Every step AdCP's grader fails against the reference governance agent or the reference seller's governance
 * scenarios, and why it is not the protocol layer's doing. test/real/governance-grader.test.ts fails on a failing step not listed here and on a listed
 * step that passes; docs/governance.md lists the same steps.
 *
 * owner: `runner` — the grader's runner sends something else than the storyboard authorized; `storyboard` — the
 * storyboard asks for what the 3.2 spec answers otherwise; `grader` — a conformance gate that does not fit a
 * governance agent.
 */
export interface ClassifiedGovernanceFailure {
  /** `governance-agent`: the capability-driven run against the governance agent; `multi-agent`: the governance-gated scenarios. */
  run: 'governance-agent' | 'multi-agent';
  storyboard: string;
  step: string;
  owner: 'runner' | 'storyboard' | 'grader';
  reason: string;
}

const RUNNER_REWRITES_THE_BUY =
  "the runner's create_media_buy request builder adds `bid_price` to the first package (pricing_model cpm, no bid in the storyboard) after check_governance authorized the storyboard's payload: the request is not the one the token binds, and the seller refuses it as security.mdx requires (authorized_payload_hash; governance_token_not_applicable). test/real/governance-e2e.test.ts books the same flow when the buyer sends what it authorized";

const RUNNER_DROPS_THE_KEY =
  "the runner resolves `$generate:uuid_v4#signal_governance_approved_activate` anew in each phase (it copies the context at a phase boundary without the alias cache `$generate` reads: runner.js `context = { ...context }`, no forwardAliasCache), so activate_signal_approved (phase authorized_activation) sends another idempotency_key than the payload check_governance_intent (phase authorization) authorized: the request is not the one the token binds, and the agent refuses it as security.mdx requires (authorized_payload_hash; governance_token_not_applicable at step 12). governance-grader.test.ts's own buyer (test/helpers/signals-governance-flow.ts) activates under a token bound to the request it sends";

export const GOVERNANCE_CLASSIFIED: readonly ClassifiedGovernanceFailure[] = [
  { run: 'governance-agent', storyboard: 'billing_gate_dispatch', step: 'get_capabilities', owner: 'storyboard', reason: 'asks a governance agent, which serves no account tools, for account.supported_billing' },
  { run: 'governance-agent', storyboard: 'webhook_emission', step: 'assert_synchronous_completion_handled', owner: 'storyboard', reason: 'its synchronous-completion assertion draws only on create_media_buy, which a governance agent does not serve' },
  {
    run: 'governance-agent',
    storyboard: '__spec_conformance__/account_discovery',
    step: 'list_or_sync_accounts',
    owner: 'grader',
    reason: 'the gate treats governance-spend-authority as an account-bearing seller specialism; a governance agent holds plans by principal and serves no account tools (accounts are bound to governance at the seller, through sync_governance)',
  },
  { run: 'multi-agent', storyboard: 'media_buy_seller/governance_approved', step: 'create_media_buy', owner: 'runner', reason: RUNNER_REWRITES_THE_BUY },
  { run: 'multi-agent', storyboard: 'media_buy_seller/governance_conditions', step: 'create_media_buy_after_approval', owner: 'runner', reason: RUNNER_REWRITES_THE_BUY },
  {
    run: 'multi-agent',
    storyboard: 'media_buy_seller/governance_conditions',
    step: 'get_plan_audit_logs_execution',
    owner: 'runner',
    reason: 'follows from create_media_buy_after_approval: the refused buy never reached its execution check, so the audit log has two entries, not the third this step reads',
  },
  {
    run: 'multi-agent',
    storyboard: 'media_buy_seller/governance_denied',
    step: 'create_media_buy_denied',
    owner: 'storyboard',
    reason:
      "registers the governance agent on the account {acmeoutdoor.example, pinnacle-agency.example}, then buys on the sandbox account of that natural key (account.sandbox: true — another account) with no governance_context, expecting GOVERNANCE_DENIED from a seller that consults governance without a token (the 3.0 flow). Under 3.2's Seller enforcement a registered account's tokenless buy is PERMISSION_DENIED (test/real/governance-e2e.test.ts) and an unregistered account's buy proceeds, as this one does",
  },
  {
    run: 'multi-agent',
    storyboard: 'signal_marketplace/governance_approved',
    step: 'activate_signal_approved',
    owner: 'runner',
    reason: RUNNER_DROPS_THE_KEY,
  },
  {
    run: 'multi-agent',
    storyboard: 'signal_marketplace/governance_approved',
    step: 'get_signal_deployment_readback',
    owner: 'runner',
    reason: 'follows from activate_signal_approved: the refused activation deployed nothing, so the readback finds no live deployment',
  },
];

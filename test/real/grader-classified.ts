/**
 * Every storyboard step AdCP's grader may fail against a reference agent (test/real/graded-agents.ts), and why that is
 * not the protocol layer's doing (the generated runtime and its transports). test/real/grader.test.ts fails on any
 * failing step not listed here for that agent, and on a listed step that no longer fails; docs/conformance.md lists
 * the same steps with the grader's own message (the test checks that too).
 *
 * owner: `agent` — the reference agent's business logic does not implement what the step asks for; `sandbox` —
 * how this one-process sandbox scopes its test data; `runner` — the grader's runner sends the step under another
 * account than the steps it depends on, or builds a request the schema refuses; `storyboard` — the storyboard's own
 * request is one the spec says to refuse, or it draws on a tool the agent's kind does not serve; `deployment` — the
 * sandbox half of a two-deployment agent, served to the one key the grader presents.
 */
export interface ClassifiedFailure {
  /** The agent's kind (graded-agents.ts). */
  agent: string;
  storyboard: string;
  step: string;
  owner: 'agent' | 'sandbox' | 'runner' | 'storyboard' | 'deployment';
  reason: string;
  /** The transports the step fails on (default both). */
  transports?: readonly ('mcp' | 'a2a')[];
}

/**
 * `signed_requests`, graded on the signed deployment (guaranteed-publisher-sandbox-signed) over MCP — the grader's
 * request-signing probe speaks MCP only. The storyboard replays the spec's root vectors, which are pinned to signing
 * profile 3.1 (`signing_profile_version: "3.1"`, test-vectors/request-signing/README.md: "3.2 verifiers MUST NOT
 * silently reinterpret them as 3.2 cases"). The agent serves AdCP 3.2, and 3.2's body-integrity policy
 * (body-integrity-policy.json) refuses a body-bearing signature that does not cover content-digest with
 * request_signature_components_incomplete before any key or cryptographic check ("unbound-body-version-cannot-
 * downgrade-endpoint": the version inside the body cannot lower the endpoint's profile). Every 3.1 vector without
 * content-digest coverage therefore ends there on any 3.2 verifier; test/real/signed-requests.test.ts gives each vector
 * its own expected outcome under the policy it is written for.
 */
const PROFILE_31_WITHOUT_DIGEST =
  'a 3.1-profile vector whose signature does not cover content-digest: on a 3.2 endpoint the body-integrity policy refuses it as request_signature_components_incomplete before the step it probes (test-vectors/request-signing/body-integrity-policy.json); the verifier gives the 3.1 outcome under the 3.1 policy (test/real/signed-requests.test.ts)';
/** The governance registration one storyboard leaves on the account every storyboard of the run shares. */
const GOVERNED_ACCOUNT =
  'one account serves the whole run: media_buy_seller registers a governance agent on acmeoutdoor.example via pinnacle-agency.example (sync_governance), and the seller enforces signed governance on create_media_buy, where "a registered governance agent means the applicable commitment requires a token" (the campaign governance specification); this storyboard then buys on that account without one. On a seller no storyboard registered a governance agent with, the four proposal storyboards pass, 30 of 30 steps (measured with the grader)';
const SIGNED_REQUESTS: Omit<ClassifiedFailure, 'agent'>[] = [
  ...['positive-001-basic-post', 'positive-003-es256-post', 'positive-004-multiple-signature-labels', 'negative-008-unknown-keyid', 'negative-009-key-ops-missing-verify', 'negative-015-signature-invalid', 'negative-016-replayed-nonce', 'negative-017-key-revoked', 'negative-020-rate-abuse'].map((step) => ({
    storyboard: 'signed_requests',
    step,
    owner: 'storyboard' as const,
    reason: PROFILE_31_WITHOUT_DIGEST,
    transports: ['mcp'] as const,
  })),
  {
    storyboard: 'signed_requests',
    step: 'negative-018-digest-covered-when-forbidden',
    owner: 'storyboard',
    reason: "the vector assumes a verifier declaring covers_content_digest 'forbidden', which a 3.2 endpoint cannot declare (3.2 requires content-digest on every signed body); the agent declares 'required', so a covered digest is accepted",
    transports: ['mcp'],
  },
  {
    storyboard: 'signed_requests',
    step: 'negative-025-jwk-alg-crv-mismatch',
    owner: 'runner',
    reason: 'the grader checks this vector (its own JWKS override) in its library, with no HTTP exchange, then demands a 401: it fails for every agent; the verifier answers request_signature_key_purpose_invalid (test/real/signed-requests.test.ts)',
    transports: ['mcp'],
  },
];

const SELLER: Omit<ClassifiedFailure, 'agent'>[] = [
  {
    storyboard: 'comply_controller_mode_gate',
    step: 'deny_live_caller',
    owner: 'deployment',
    reason: 'an optional phase for single-endpoint sellers: this is the sandbox deployment of a two-deployment seller, which serves the controller to every caller (the production deployment does not expose it)',
  },
  {
    storyboard: 'pagination_integrity',
    step: 'first_page',
    owner: 'sandbox',
    reason: 'the step lists creatives under account_id acct_pagination_integrity, which no step or fixture creates; the seller answers ACCOUNT_NOT_FOUND for an account id it never issued',
  },
  {
    storyboard: 'media_buy_seller/canonical_formats',
    step: 'seed_product.canonical_formats_custom_takeover',
    owner: 'agent',
    reason:
      'the seller sells canonical format kinds only and refuses a custom format_schema fixture (INVALID_PARAMS); the grader\'s own response validator also rejects that fixture\'s valid https format_schema.uri, which would fail every later get_products of the run',
  },
  {
    storyboard: 'media_buy_seller/get_products_async',
    step: 'get_products_submitted',
    owner: 'runner',
    reason:
      "the runner registers the forced submitted arm (force_get_products_arm) under its own sandbox account (brand test.example) but sends get_products under the storyboard's (acmeoutdoor.example); a directive is for \"the caller's sandbox account\" (the storyboard's own words), so that get_products is answered from the catalog. Under one account the arm is answered submitted with the forced task_id, replayed for the same key and completed by force_task_completion (test/reference-seller.test.ts)",
  },
  {
    storyboard: 'media_buy_seller/get_products_rejected',
    step: 'force_get_products_rejected',
    owner: 'storyboard',
    reason:
      'the storyboard pins adcp_version "3.2-beta.4" in the 3.2.0-beta.5 suite; versioning.mdx matches a pre-release pin only exactly, so an agent serving 3.2-beta.5 answers VERSION_UNSUPPORTED (the storyboard\'s next step, pinned alike, is skipped). Served, the runner would still register the forced arm under its own sandbox account and send get_products under the storyboard\'s, and response arms are per account',
  },

  {
    storyboard: 'media_buy_seller/invalid_transitions',
    step: 'update_unknown_package',
    owner: 'runner',
    reason: 'the runner creates the media buy under its own sandbox account but sends this error probe under the storyboard\'s account, where the buy does not exist (MEDIA_BUY_NOT_FOUND before PACKAGE_NOT_FOUND)',
  },
  {
    storyboard: 'media_buy_seller/declined_proposal_execution',
    step: 'create_buy_from_declined_proposal',
    owner: 'sandbox',
    reason: GOVERNED_ACCOUNT,
  },
  {
    storyboard: 'media_buy_seller/expired_proposal_execution',
    step: 'create_buy_from_expired_proposal',
    owner: 'sandbox',
    reason: GOVERNED_ACCOUNT,
  },
  {
    storyboard: 'media_buy_seller/proposal_finalize',
    step: 'create_media_buy',
    owner: 'sandbox',
    reason: GOVERNED_ACCOUNT,
  },
  {
    storyboard: 'media_buy_seller/proposal_finalize_asap_timing',
    step: 'create_media_buy',
    owner: 'sandbox',
    reason: GOVERNED_ACCOUNT,
  },
  {
    storyboard: 'media_buy_seller/pricing_currency_filter',
    step: 'get_products_usd_pricing',
    owner: 'sandbox',
    reason: 'one catalog serves the whole run: products other storyboards seeded (and the seller\'s own) also price in USD, and the step expects the storyboard\'s product alone',
  },
  {
    storyboard: 'media_buy_seller/product_filter_behavior',
    step: 'get_filtered_brief_products',
    owner: 'sandbox',
    reason: 'one catalog serves the whole run: an earlier storyboard\'s seeded online-video product matches the same filters',
  },
  {
    storyboard: 'media_buy_seller/product_filter_behavior',
    step: 'get_filtered_wholesale_products',
    owner: 'sandbox',
    reason: 'one catalog serves the whole run: an earlier storyboard\'s seeded online-video product matches the same filters',
  },
  ...['get_products_with_accepted_verifiers', 'query_directed_audit_observation'].map((step) => ({
    storyboard: 'media_buy_seller/provenance_audit_observation',
    step,
    owner: 'agent' as const,
    reason: 'the seller has no creative provenance policy (accepted verifiers, audit observations)',
  })),
  ...['get_products_with_disclosure_policy', 'sync_creatives_no_provenance'].map((step) => ({
    storyboard: 'media_buy_seller/provenance_enforcement',
    step,
    owner: 'agent' as const,
    reason: 'the seller has no creative provenance policy (provenance_required, refusing creatives without provenance)',
  })),
  ...['get_products_with_accepted_verifiers', 'sync_creatives_contradicted'].map((step) => ({
    storyboard: 'media_buy_seller/provenance_truth_of_claim',
    step,
    owner: 'agent' as const,
    reason: 'the seller has no creative provenance policy (accepted verifiers, refusing contradicted claims)',
  })),
  ...['reject_conflicting_legacy_and_overlay_targeting', 'get_brief_targeted_product', 'get_exact_targeted_product', 'exclude_partial_fixed_placement_set'].map((step) => ({
    storyboard: 'media_buy_seller/targeting_aware_discovery',
    step,
    owner: 'agent' as const,
    reason: 'the seller does not resolve targeting in product discovery (brief-inferred targeting, configured custom products, placement sets)',
  })),
  ...SIGNED_REQUESTS,
];

/**
 * webhook_emission's synchronous-completion assertion draws only on wholesale get_products (its success and rejection
 * paths are skipped as missing_tool on any agent without get_products), so it fails for every agent that is not a
 * seller.
 */
const SYNCHRONOUS_COMPLETION_WITHOUT_GET_PRODUCTS: Omit<ClassifiedFailure, 'agent'> = {
  storyboard: 'webhook_emission',
  step: 'assert_synchronous_completion_handled',
  owner: 'storyboard',
  reason: 'the assertion needs one of two paths that both call wholesale get_products, a media-buy tool this agent kind does not serve; both are skipped (missing_tool), so it fails whatever the agent does',
};

/**
 * comply_controller_mode_gate's live-caller probe is a raw MCP client (`initialize`, then tools/call): pointed at an
 * A2A agent's base URL it sends MCP's initialize to the A2A JSON-RPC endpoint, which answers -32601 (no such method),
 * and the step fails before the controller is reached. Over MCP the same probe reaches the controller.
 */
const MODE_GATE_PROBE_OVER_A2A: Omit<ClassifiedFailure, 'agent'> = {
  storyboard: 'comply_controller_mode_gate',
  step: 'deny_live_caller',
  owner: 'runner',
  reason:
    "the step's probe speaks MCP only: over A2A it posts MCP's initialize to the agent's A2A base URL (A2A JSON-RPC answers -32601, method not found) and never reaches the controller; over MCP the probe's force_creative_status is answered UNKNOWN_SCENARIO (an agent kind without creatives) and the runner grades the optional phase not applicable",
  transports: ['a2a'],
};

const SIGNALS: Omit<ClassifiedFailure, 'agent'>[] = [
  SYNCHRONOUS_COMPLETION_WITHOUT_GET_PRODUCTS,
  MODE_GATE_PROBE_OVER_A2A,
  {
    storyboard: 'wholesale_feed_signals',
    step: 'bootstrap_signals',
    owner: 'runner',
    reason:
      "the runner's get_signals request builder adds signal_spec (\"E2E fallback signal discovery\") to the storyboard's wholesale read, which the request schema forbids (wholesale: signal_spec MUST NOT be provided); the wholesale feed itself (version token, unchanged probe, the standalone if_pricing_version refusal) is tested white-box in test/signals-agent.test.ts",
  },
  {
    storyboard: 'signals_baseline/get_signals_async',
    step: 'get_signals_submitted',
    owner: 'runner',
    reason:
      "the runner registers force_get_signals_arm under its own sandbox account (brand test.example) but sends get_signals under the storyboard's (novamotors.example); a directive is for the caller's sandbox account, so that brief is answered from the catalog. Under one account the arm is answered submitted with the forced task id, listed by list_tasks and completed by force_task_completion (the walk over MCP in test/real/grader.test.ts)",
  },
];

const CREATIVE: Omit<ClassifiedFailure, 'agent'>[] = [
  {
    storyboard: 'comply_controller_mode_gate',
    step: 'deny_live_caller',
    owner: 'deployment',
    reason: 'an optional phase for single-endpoint agents: this is the sandbox deployment of a two-deployment agent, which serves the controller to every caller (the production deployment does not expose it)',
    transports: ['mcp'],
  },
  MODE_GATE_PROBE_OVER_A2A,
  {
    storyboard: 'pagination_integrity',
    step: 'first_page',
    owner: 'sandbox',
    reason: 'the step lists creatives under account_id acct_pagination_integrity, which no step or fixture creates; the agent answers ACCOUNT_NOT_FOUND for an account id it never issued',
  },
  SYNCHRONOUS_COMPLETION_WITHOUT_GET_PRODUCTS,
  {
    storyboard: 'creative/billing_out_of_band',
    step: 'report_usage_out_of_band',
    owner: 'runner',
    reason:
      'the phase is for agents billing out of band (skip_if "context.bills_through_adcp != false"), but the runner evaluates only test_kit.* skip_if expressions, so it runs against this agent, which bills through AdCP (bills_through_adcp: true) and accepts the well-formed record',
  },
  {
    storyboard: 'creative/creative_lifecycle_webhooks',
    step: 'expect_suspended_webhook',
    owner: 'storyboard',
    reason:
      'the storyboard registers its webhook subscriber on the sandbox account (sync_accounts with sandbox: true) but syncs the creative under the same brand and operator without sandbox, which account-ref.json makes the production account: the creative\'s account has no subscriber, so nothing is fired. The webhook of a creative whose account subscribed is delivered, signed (test/creative-agent.test.ts)',
  },
  {
    storyboard: 'creative/evaluator_auth',
    step: 'get_capabilities',
    owner: 'agent',
    reason: 'the agent implements no evaluator (creative.supports_evaluator: false, an experimental surface) nor governance creative features, which the storyboard reads before its optional phases',
  },
  ...['asset_filter_published_mixed', 'asset_filter_image', 'asset_filter_zip_bundle', 'asset_filter_nested_card_image'].map((id) => ({
    storyboard: 'creative/asset_type_filtering',
    step: `seed_creative.${id}`,
    owner: 'agent' as const,
    reason:
      'the library holds the formats this ad server serves, seeded or synced alike; the fixtures are another creative agent\'s named formats (creative.example.com existing_post, html5_bundle) and an image carousel, which it does not serve. Stored, they would break every later 3.2 list: the grader\'s client refuses a creative whose legacy format has no canonical form',
  })),
  ...['get_capabilities', 'sync_localized_image'].map((step) => ({
    storyboard: 'creative/native_localization',
    step,
    owner: 'agent' as const,
    reason: 'the agent does not implement creative localization (no creative.localization capability: locale variants, RFC 4647 matching); its library refuses the storyboard\'s 1080×1080 image, a size none of its formats serves',
  })),
];

/** Universal storyboards that assume an agent kind with accounts and a read-only probe task (SI and brand agents have neither). */
const WITHOUT_ACCOUNTS_OR_PROBE: Omit<ClassifiedFailure, 'agent'>[] = [
  {
    storyboard: 'billing_gate_dispatch',
    step: 'get_capabilities',
    owner: 'storyboard',
    reason: 'the storyboard requires sync_accounts, but its first step runs whatever the agent serves and asks for account.supported_billing; this agent kind has no accounts (no sync_accounts, no account capability block)',
  },
  {
    storyboard: 'security_baseline',
    step: 'assert_mechanism',
    owner: 'runner',
    reason:
      "the API-key and invalid-key probes call a read-only task from the runner's allowlist (list_creatives, get_media_buy_delivery, get_signals, list_property_lists …), none of which this agent kind serves, so no mechanism can be verified; a call without the key or with a wrong one is 401 on every tool but get_adcp_capabilities (test/real/mcp-every-tool.test.ts, the walk)",
  },
  SYNCHRONOUS_COMPLETION_WITHOUT_GET_PRODUCTS,
];

const SI: Omit<ClassifiedFailure, 'agent'>[] = [
  ...WITHOUT_ACCOUNTS_OR_PROBE,
  {
    storyboard: 'si_baseline',
    step: 'si_get_offering',
    owner: 'storyboard',
    reason:
      'the step asks whatever brand agent it grades for Nova Motors\' offering (novamotors_conversational_v1); this agent speaks for Acme Outdoor and answers it unavailable, with its own offering as the alternative, so the offering id the step reads is absent. The session steps open on the intent alone and pass',
  },
  MODE_GATE_PROBE_OVER_A2A,
  ...[
    ['si_baseline', 'si_initiate_session'],
    ['si_sponsored_context_accountability', 'si_initiate_session_presentation'],
  ].map(([storyboard, step]) => ({
    storyboard: storyboard!,
    step: step!,
    owner: 'runner' as const,
    reason:
      "the grader's A2A client unwraps any DataPart with an object-valued `response` as if it were a wrapper (response-unwrapper.js) and reads only that: an SI body's own `response` (the brand's reply) then hides session_id and session_status; over MCP the same body passes",
    transports: ['a2a'] as const,
  })),
];

export const CLASSIFIED: readonly ClassifiedFailure[] = [
  ...SELLER.map((c) => ({ agent: 'seller', ...c })),
  ...SIGNALS.map((c) => ({ agent: 'signals', ...c })),
  ...CREATIVE.map((c) => ({ agent: 'creative', ...c })),
  ...SI.map((c) => ({ agent: 'si', ...c })),
  ...WITHOUT_ACCOUNTS_OR_PROBE.map((c) => ({ agent: 'brand', ...c })),
];

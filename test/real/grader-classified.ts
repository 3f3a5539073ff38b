/**
 * Every storyboard step AdCP's grader may fail against the reference seller, and why that is not the protocol
 * layer's doing (the generated runtime and its transports). test/real/grader.test.ts fails on any failing step not
 * listed here, and on a listed step that no longer fails; docs/conformance.md lists the same steps with the grader's
 * own message (the test checks that too).
 *
 * owner: `seller` — the reference seller's business logic does not implement what the step asks for; `sandbox` —
 * how this one-process sandbox scopes its test data; `runner` — the grader's runner sends the step under another
 * account than the steps it depends on; `storyboard` — the storyboard's own request is one the spec says to refuse;
 * `deployment` — the localhost example has no authentication, is the sandbox half of a two-deployment seller, and its
 * HTTP servers do not call the request verifier.
 */
export interface ClassifiedFailure {
  storyboard: string;
  step: string;
  owner: 'seller' | 'sandbox' | 'runner' | 'storyboard' | 'deployment';
  reason: string;
  /** The transports the step fails on (default both). */
  transports?: readonly ('mcp' | 'a2a')[];
}

/**
 * `signed_requests` (the sandbox advertises request_signing): the runtime's verifier gives every vector's expected
 * outcome (test/real/signed-requests.test.ts), but the localhost examples' HTTP servers do not call it yet — the
 * runtime's HTTP entry will — and the grader's request-signing probe speaks MCP only.
 */
const NOT_VERIFIED_BY_THE_EXAMPLE =
  "the localhost examples' HTTP servers (serve-mcp.js, @a2a-js/sdk's Express transport) do not call the runtime's verifier (agent.requestSignatures), which the runtime's HTTP entry will; the verifier answers this vector's code (test/real/signed-requests.test.ts). Over A2A the grader's probe cannot start: it speaks MCP only";
const SIGNED_NEGATIVES = [
  '001-no-signature-header',
  '002-wrong-tag',
  '003-expired-signature',
  '004-window-too-long',
  '005-alg-not-allowed',
  '006-missing-covered-component',
  '007-missing-content-digest',
  '008-unknown-keyid',
  '009-key-ops-missing-verify',
  '010-content-digest-mismatch',
  '011-malformed-header',
  '012-missing-expires-param',
  '013-expires-le-created',
  '014-missing-nonce-param',
  '015-signature-invalid',
  '016-replayed-nonce',
  '017-key-revoked',
  '018-digest-covered-when-forbidden',
  '019-signature-without-signature-input',
  '020-rate-abuse',
  '021-duplicate-signature-input-label',
  '022-multi-valued-content-type',
  '023-multi-valued-content-digest',
  '024-unquoted-string-param',
  '027-webhook-registration-authentication-unsigned',
  '028-unsigned-protocol-method-required',
];
const SIGNED_REQUESTS: ClassifiedFailure[] = [
  ...SIGNED_NEGATIVES.map((v) => ({ storyboard: 'signed_requests', step: `negative-${v}`, owner: 'deployment' as const, reason: NOT_VERIFIED_BY_THE_EXAMPLE })),
  {
    storyboard: 'signed_requests',
    step: 'negative-025-jwk-alg-crv-mismatch',
    owner: 'runner',
    reason: 'the grader checks this vector (its own JWKS override) in its library, with no HTTP exchange, then demands a 401: it fails for every agent; the verifier answers request_signature_key_purpose_invalid (test/real/signed-requests.test.ts)',
  },
  ...['001-basic-post', '002-post-with-content-digest', '003-es256-post', '004-multiple-signature-labels'].map((v) => ({
    storyboard: 'signed_requests',
    step: `positive-${v}`,
    owner: 'runner' as const,
    reason: "the grader's request-signing probe speaks MCP only: it opens an MCP session at the A2A seller's URL, which serves A2A",
    transports: ['a2a'] as const,
  })),
];

export const CLASSIFIED: readonly ClassifiedFailure[] = [
  {
    storyboard: 'agent_notification_configs',
    step: 'get_capabilities_declares_agent_notifications',
    owner: 'seller',
    reason: 'the seller offers no capability-change notifications (it serves no sync_agent_notification_configs), so it does not declare adcp.capability_changes',
  },
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
  { storyboard: 'security_baseline', step: 'probe_unauth', owner: 'deployment', reason: 'the localhost example serves without authentication' },
  { storyboard: 'security_baseline', step: 'assert_mechanism', owner: 'deployment', reason: 'the localhost example serves without authentication' },
  {
    storyboard: 'media_buy_seller/canonical_formats',
    step: 'seed_product.canonical_formats_custom_takeover',
    owner: 'seller',
    reason:
      'the seller sells canonical format kinds only and refuses a custom format_schema fixture (INVALID_PARAMS); the grader\'s own response validator also rejects that fixture\'s valid https format_schema.uri, which would fail every later get_products of the run',
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
    owner: 'seller' as const,
    reason: 'the seller has no creative provenance policy (accepted verifiers, audit observations)',
  })),
  ...['get_products_with_disclosure_policy', 'sync_creatives_no_provenance'].map((step) => ({
    storyboard: 'media_buy_seller/provenance_enforcement',
    step,
    owner: 'seller' as const,
    reason: 'the seller has no creative provenance policy (provenance_required, refusing creatives without provenance)',
  })),
  ...['get_products_with_accepted_verifiers', 'sync_creatives_contradicted'].map((step) => ({
    storyboard: 'media_buy_seller/provenance_truth_of_claim',
    step,
    owner: 'seller' as const,
    reason: 'the seller has no creative provenance policy (accepted verifiers, refusing contradicted claims)',
  })),
  ...['reject_conflicting_legacy_and_overlay_targeting', 'get_brief_targeted_product', 'get_exact_targeted_product', 'exclude_partial_fixed_placement_set'].map((step) => ({
    storyboard: 'media_buy_seller/targeting_aware_discovery',
    step,
    owner: 'seller' as const,
    reason: 'the seller does not resolve targeting in product discovery (brief-inferred targeting, configured custom products, placement sets)',
  })),
  ...SIGNED_REQUESTS,
];

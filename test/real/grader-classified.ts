/**
 * Every storyboard step AdCP's grader may fail against the reference seller, and why that is not the protocol
 * layer's doing (the generated runtime and its transports). test/real/grader.test.ts fails on any failing step not
 * listed here, and on a listed step that no longer fails; docs/conformance.md lists the same steps with the grader's
 * own message (the test checks that too).
 *
 * owner: `seller` — the reference seller's business logic does not implement what the step asks for; `sandbox` —
 * how this one-process sandbox scopes its test data; `runner` — the grader's runner sends the step under another
 * account than the steps it depends on; `storyboard` — the storyboard's own request is one the spec says to refuse;
 * `deployment` — the localhost example has no authentication and is the sandbox half of a two-deployment seller.
 */
export interface ClassifiedFailure {
  storyboard: string;
  step: string;
  owner: 'seller' | 'sandbox' | 'runner' | 'storyboard' | 'deployment';
  reason: string;
}

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
];

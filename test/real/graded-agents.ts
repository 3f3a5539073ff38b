/**
 * The reference agents AdCP's grader grades in test/real/grader.test.ts, one row each: adding an agent kind is one row
 * here (its entry file's start function, its sandbox profile, the storyboards of its domain that must run) and its
 * walk in agent-walks.ts. Every row is generated into one set (3.0.6 + 3.2.0-beta.5; a profile names its releases when
 * it serves one), served over HTTPS with the test kit's key, and graded capability-driven over each transport
 * concurrently with every other row.
 */
import { join } from 'node:path';
import { sharedComplianceDir } from '../helpers/releases.js';

export type Transport = 'mcp' | 'a2a';

export interface GradedAgent {
  /** The agent's kind: how grader-classified.ts and docs/conformance.md name it. */
  kind: string;
  /** Its entry file under examples/, and the start function it exports (agent-entry.js's options). */
  entry: string;
  start: string;
  /** The sandbox profile graded (examples/profiles/<profile>.json). */
  profile: string;
  transports: readonly Transport[];
  /** Storyboards of its own domain and specialisms: each must run and pass a step on every transport. */
  storyboards: readonly string[];
  /** The fewest steps the capability-driven run passes on each transport (a floor against silent skips). */
  minPassed: number;
  /** Storyboards also run by name, in an invocation of their own after the capability-driven run; each must pass. */
  named?: readonly string[];
  /** A second deployment of the same agent requiring signed requests, graded with `signed_requests` over MCP. */
  signed?: string;
  /** `adcp fuzz --seed 42` against a fresh instance and again after the storyboards, and AdCP 3.0.6's CLI's fuzz. */
  fuzz?: boolean;
  /** The agent's own start options (what its deployment configures), beside agent-entry.js's. */
  options?: Record<string, unknown>;
  /** False for an agent whose profile serves no comply_test_controller (default: it must be detected). */
  controller?: false;
}

export const GRADED_AGENTS: readonly GradedAgent[] = [
  {
    kind: 'seller',
    entry: 'examples/seller-agent.js',
    start: 'startSellerAgent',
    profile: 'guaranteed-publisher-sandbox',
    transports: ['mcp', 'a2a'],
    storyboards: [
      'media_buy_seller',
      'schema_validation',
      'idempotency',
      'deterministic_testing',
      // AdCP 3.2's own surface: the compact lifecycle and proposal negotiation (media_buy.lifecycle_tools).
      'media_buy_seller/compact_direct_buy_lifecycle',
      'media_buy_seller/compact_product_lifecycle',
      'media_buy_seller/declined_proposal_execution',
      'media_buy_seller/declined_proposal_refinement',
      'media_buy_seller/expired_proposal_execution',
      // Proposals through get_products and create_media_buy (media_buy.supports_proposals, sales-proposal-mode).
      'sales_proposal_mode',
      'media_buy_seller/proposal_finalize',
      'media_buy_seller/proposal_finalize_asap_timing',
      'media_buy_seller/proposal_not_found_errors',
    ],
    minPassed: 240,
    named: ['capability_discovery', 'version_negotiation', 'v3_envelope_integrity', 'notification_config_event_scope', 'error_compliance', 'schema_validation', 'idempotency'],
    signed: 'guaranteed-publisher-sandbox-signed',
    fuzz: true,
  },
  {
    kind: 'signals',
    entry: 'examples/signals-agent.js',
    start: 'startSignalsAgent',
    profile: 'signals-agent-sandbox',
    transports: ['mcp', 'a2a'],
    storyboards: ['signals_baseline', 'signal_owned', 'signal_marketplace', 'error_compliance_signals', 'schema_validation_signals', 'get_signals_pagination_integrity'],
    minPassed: 45,
  },
  {
    kind: 'creative',
    entry: 'examples/creative-agent.js',
    start: 'startCreativeAgent',
    profile: 'creative-agent-sandbox',
    transports: ['mcp', 'a2a'],
    storyboards: ['creative_lifecycle', 'creative_template', 'creative_ad_server', 'creative/canonical_supported_formats', 'creative/native_in_feed'],
    minPassed: 70,
    // The ad server's client account the storyboards traffic under: an ad server holds its clients' accounts (and
    // their libraries) before any buyer calls, as creative-ad-server's "stateful_preloaded" model says.
    options: { creative: { accounts: [{ account_id: 'acct_acme_creative', brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example', sandbox: true }] } },
  },
  {
    kind: 'si',
    entry: 'examples/si-agent.js',
    start: 'startSiAgent',
    profile: 'si-agent-sandbox',
    transports: ['mcp', 'a2a'],
    storyboards: ['si_baseline', 'si_sponsored_context_accountability'],
    minPassed: 12,
  },
  {
    kind: 'brand',
    entry: 'examples/brand-agent.js',
    start: 'startBrandAgent',
    profile: 'brand-agent-sandbox',
    transports: ['mcp', 'a2a'],
    storyboards: ['brand_baseline'],
    minPassed: 14,
    controller: false,
    // The brand documents it answers for: the test kits' brands (AdCP's fictional advertisers), read where they lie.
    options: { brand: { documentFiles: ['acme-outdoor', 'nova-motors', 'bistro-oranje', 'osei-natural', 'summit-foods'].map((k) => join(sharedComplianceDir()!, `test-kits/${k}.yaml`)) } },
  },
];

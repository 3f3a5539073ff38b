/**
 * The reference agents AdCP's grader grades in test/real/grader.test.ts, one row each: adding an agent kind is one row
 * here (its entry file's start function, its sandbox profile, the storyboards of its domain that must run) and its
 * walk in agent-walks.ts. Every row is generated into one set (3.0.6 + 3.2.0-beta.5; a profile names its releases when
 * it serves one), served over HTTPS with the test kit's key, and graded capability-driven over each transport
 * concurrently with every other row.
 */
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
}

export const GRADED_AGENTS: readonly GradedAgent[] = [
  {
    kind: 'seller',
    entry: 'examples/seller-agent.js',
    start: 'startSellerAgent',
    profile: 'guaranteed-publisher-sandbox',
    transports: ['mcp', 'a2a'],
    storyboards: ['media_buy_seller', 'schema_validation', 'idempotency', 'deterministic_testing'],
    minPassed: 150,
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
];

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { grader, graderMessage, json, run, type Run, type StoryboardResult } from '../helpers/grader.js';
import { buyerSite, governanceAgentsSet, issuerOf, startExample, type ExampleProcess } from '../helpers/governance-agents.js';
import { MULTI_AGENT_DRIVER } from '../helpers/multi-agent-driver.js';
import { signedActivation } from '../helpers/signals-governance-flow.js';
import { repoRoot, sharedComplianceDir, sharedGraderDir } from '../helpers/releases.js';
import { tempDir } from '../helpers/temp.js';
import { loopbackCertificate } from '../helpers/tls.js';
import { GOVERNANCE_CLASSIFIED } from './governance-grader-classified.js';

/**
 * AdCP's own 3.2 grader (../shared/adcp-grader: @adcp/sdk 14.0.0-beta.7) against signed governance, the agents
 * started as deployments start them (processes of their own, `node examples/…`, HTTPS on loopback with the test kit's
 * Bearer key, NODE_EXTRA_CA_CERTS trusting the loopback certificate as the grader does):
 * - the reference governance agent, capability-driven (`adcp storyboard run --auth --test-kit --webhook-receiver
 *   loopback`) over MCP and over A2A, one agent each, run at once: property and collection lists, spend authority,
 *   notifications, the universals;
 * - the governance-gated multi-agent scenarios of the seller — media_buy_seller/governance_approved,
 *   governance_conditions, governance_denied, governance_denied_recovery and
 *   governance_aware_seller/governance_multi_agent_rejected — through the grader's own runner with the agents map
 *   and the initial context the storyboards ask for (multi-agent-driver.ts), over MCP and A2A. The grader matches a
 *   capability entry exactly, so a storyboard gated on `{task: create_media_buy, modes: [signed_context]}` runs
 *   against a second deployment of the same seller whose profile declares signed_context alone (the sandbox profile
 *   declares both modes, which governance_conditions and governance_denied are gated on);
 * - the signals agent's — signal_marketplace/governance_approved and governance_denied — the same way, against the
 *   reference signals agent's sandbox (it enforces signed_context on activate_signal), over MCP and A2A.
 * The buyer's brand.json, listing the governance agent's issuer entry, is served by a third server on loopback.
 * A failing step passes the test only if governance-grader-classified.ts lists it with why; a listed step that
 * passes fails it.
 */
const graderDir = sharedGraderDir();
const complianceDir = sharedComplianceDir();
if (graderDir === undefined || complianceDir === undefined) throw new Error('../shared/adcp-grader and ../shared/adcp are required for the real-release suite');
const MINUTE = 60_000;
const TEST_KIT = join(complianceDir, 'test-kits/acme-outdoor.yaml');
const API_KEY = (parse(readFileSync(TEST_KIT, 'utf8')) as { auth: { api_key: string } }).auth.api_key;
/** The caller and the registration credential the storyboards name. */
const BUYER_URL = 'https://pinnacle-agency.example';
const REGISTERED_CREDENTIAL = 'gov-token-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx';
const MULTI_AGENT = [
  { id: 'media_buy_seller/governance_approved', deployment: 'signed-context' },
  { id: 'media_buy_seller/governance_conditions', deployment: 'sandbox' },
  { id: 'media_buy_seller/governance_denied', deployment: 'sandbox' },
  { id: 'media_buy_seller/governance_denied_recovery', deployment: 'sandbox' },
  { id: 'governance_aware_seller/governance_multi_agent_rejected', deployment: 'sandbox' },
  { id: 'signal_marketplace/governance_approved', deployment: 'signals' },
  { id: 'signal_marketplace/governance_denied', deployment: 'signals' },
] as const;

interface StepResult {
  step: string;
  passed: boolean;
  skipped: boolean;
  skip_reason?: string;
  error?: string;
  failing: string[];
}
interface MultiAgentResult {
  id: string;
  transport: 'mcp' | 'a2a';
  deployment: string;
  passed: number;
  failed: number;
  skipped: number;
  steps: StepResult[];
}

const results: { capability: Record<string, StoryboardResult>; multi: MultiAgentResult[]; runs: { what: string; run: Run }[]; signed?: Awaited<ReturnType<typeof signedActivation>> } = { capability: {}, multi: [], runs: [] };

test('generate the reference agents, serve them, and grade them', async () => {
  const [adcp, generated] = await Promise.all([
    grader(graderDir),
    (async () => {
      // The seller's second deployment: the sandbox profile declaring signed_context alone (see above).
      const sandbox = JSON.parse(readFileSync(join(repoRoot, 'examples/profiles/guaranteed-publisher-sandbox.json'), 'utf8')) as Record<string, any>;
      sandbox.name = 'guaranteed-publisher-sandbox-signed-context';
      sandbox.capabilities.adcp.governance_enforcement.tasks[0].modes = ['signed_context'];
      sandbox.$schema = join(repoRoot, 'schemas/profile.schema.json');
      const extra = join(tempDir('adcp-governance-profiles-'), 'signed-context.json');
      writeFileSync(extra, JSON.stringify(sandbox, null, 2));
      return governanceAgentsSet([extra, join(repoRoot, 'examples/profiles/signals-agent-sandbox.json')]);
    })(),
  ]);
  const certificate = loopbackCertificate();
  const keyFile = join(tempDir(), 'key.pem');
  writeFileSync(keyFile, certificate.key);
  const site = await buyerSite();
  const common = { ADCP_GENERATED: generated, ADCP_MODE: 'development', ADCP_API_KEY: API_KEY, ADCP_TLS_CERT_FILE: certificate.certFile, ADCP_TLS_KEY_FILE: keyFile, NODE_EXTRA_CA_CERTS: certificate.certFile };
  const buyers = JSON.stringify({ buyer: { caller: BUYER_URL, brandJson: `${site.base}/.well-known/brand.json` } });
  const started: ExampleProcess[] = [];
  try {
    const [seller, signedContext] = await Promise.all(
      ['guaranteed-publisher-sandbox', 'guaranteed-publisher-sandbox-signed-context'].map((profile) =>
        startExample('seller-agent.js', { ...common, ADCP_PROFILE: profile, ADCP_STATE_DIR: tempDir(), ADCP_GOVERNANCE_BUYERS: buyers }),
      ),
    );
    const signals = await startExample('signals-agent.js', { ...common, ADCP_PROFILE: 'signals-agent-sandbox', ADCP_STATE_DIR: tempDir(), ADCP_GOVERNANCE_BUYERS: buyers });
    started.push(seller!, signedContext!, signals);
    // The credential the storyboards register with the seller is the seller's at the governance agent: its execution
    // checks authenticate as the sandbox seller (only that deployment makes them).
    const gov = await startExample('governance-agent.js', { ...common, ADCP_PROFILE: 'governance-agent-sandbox', ADCP_STATE_DIR: tempDir(), ADCP_CALLER_URL: BUYER_URL, ADCP_SERVICE_KEYS: JSON.stringify({ [REGISTERED_CREDENTIAL]: seller!.url }) });
    // The capability-driven runs over MCP and over A2A run at once, each against an agent of its own: the pagination
    // storyboards count the lists their account holds, as a fresh agent would.
    const govA2a = await startExample('governance-agent.js', { ...common, ADCP_PROFILE: 'governance-agent-sandbox', ADCP_STATE_DIR: tempDir(), ADCP_CALLER_URL: BUYER_URL });
    started.push(gov, govA2a);
    const iss = await issuerOf(gov);
    // The buyer's brand.json lists the entry the governance agent publishes for its issuer.
    const dispatcher = new Agent({ connect: { ca: certificate.cert } });
    const published = (await (await undiciFetch(new URL('/.well-known/brand.json', gov.url), { dispatcher })).json()) as { agents: Record<string, unknown>[] };
    await dispatcher.close();
    site.documents.set('/.well-known/brand.json', { agents: [{ ...published.agents.find((a) => a.url === iss)!, id: 'pinnacle_governance' }] });

    const keep = process.env.ADCP_GRADER_RESULTS;
    const timed = async (what: string, command: string, args: string[], timeoutMs: number): Promise<Run> => {
      const r = await run(command, args, { cwd: dirname(generated), timeoutMs, env: { NODE_EXTRA_CA_CERTS: certificate.certFile } });
      results.runs.push({ what, run: r });
      if (keep !== undefined && keep !== '') {
        mkdirSync(keep, { recursive: true });
        writeFileSync(join(keep, `${what.replace(/[^a-z0-9.]+/gi, '-').replace(/^-|-$/g, '')}.json`), r.stdout);
      }
      return r;
    };
    const capability = (transport: 'mcp' | 'a2a') =>
      timed(`governance agent ${transport} storyboard run (capability-driven)`, adcp, [
        'storyboard', 'run', transport === 'mcp' ? gov.url : govA2a.url.replace(/\/mcp$/, ''), '--protocol', transport, '--auth', API_KEY, '--test-kit', TEST_KIT, '--webhook-receiver', 'loopback', '--allow-http', '--json',
      ], 10 * MINUTE).then((r) => (results.capability[transport] = json<StoryboardResult>(r, `governance agent ${transport}`)));
    const driver = join(tempDir(), 'multi-agent.mjs');
    writeFileSync(driver, MULTI_AGENT_DRIVER);
    const graderRoot = dirname(dirname(dirname(adcp)));
    const base = (url: string) => url.replace(/\/mcp$/, '');
    const runs = (['mcp', 'a2a'] as const).flatMap((transport) =>
      MULTI_AGENT.map(({ id, deployment }) => {
        const at = (url: string) => (transport === 'mcp' ? url : base(url));
        if (deployment === 'signals') {
          return {
            id,
            transport,
            deployment,
            agents: { signals: { url: at(signals.url) }, governance: { url: at(gov.url) } },
            defaultAgent: 'signals',
            seedUrl: signals.url,
            // The signals agent's canonical URL (its MCP endpoint) is its tokens' audience, as the seller's is.
            context: { governance_agent_url: gov.url, signal_agent_url: signals.url },
          };
        }
        const sales = deployment === 'sandbox' ? seller!.url : signedContext!.url;
        return {
          id,
          transport,
          deployment,
          agents: { sales: { url: at(sales) }, governance: { url: at(gov.url) } },
          defaultAgent: 'sales',
          seedUrl: sales,
          // The storyboards' own override: the endpoints under test, the seller's canonical URL its tokens' audience.
          context: { governance_agent_url: gov.url, seller_agent_url: sales },
        };
      }),
    );
    const input = {
      graderPackage: join(graderRoot, 'package.json'),
      seedingModule: join(graderRoot, 'node_modules/@adcp/sdk/dist/lib/testing/storyboard/seeding.js'),
      mcpClient: join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js'),
      mcpTransport: join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js'),
      testKit: TEST_KIT,
      key: API_KEY,
      runs,
    };
    await Promise.all([
      capability('mcp'),
      capability('a2a'),
      timed('multi-agent governance scenarios (MCP and A2A)', process.execPath, [driver, JSON.stringify(input)], 10 * MINUTE).then((r) => (results.multi = json<MultiAgentResult[]>(r, 'multi-agent scenarios'))),
    ]);
    // governance_approved's flow with the request the buyer authorized (the runner's is another: see the classification).
    results.signed = await signedActivation({ gov: gov.url, signals: signals.url, key: API_KEY, ca: certificate.cert, buyer: BUYER_URL });
  } finally {
    // With ADCP_GRADER_RESULTS set, each agent's log is kept beside the grader's answers (a refused token's step and detail are logged at info).
    const keep = process.env.ADCP_GRADER_RESULTS;
    if (keep !== undefined && keep !== '') {
      mkdirSync(keep, { recursive: true });
      started.forEach((p, i) => writeFileSync(join(keep, `agent-${i}-${new URL(p.url).port}.log`), p.stderr()));
    }
    await Promise.all(started.map((p) => p.close()));
    await site.close();
  }
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const lines = results.runs.map(({ what, run: r }) => `  ${what}: ${s(r.ms)} wall, ${s(r.cpuMs)} CPU`);
  const cap = Object.entries(results.capability).map(([t, r]) => `  governance agent over ${t}: ${r.summary.steps_passed} passed, ${r.summary.steps_failed} failed, ${r.summary.steps_skipped} skipped`);
  const multi = results.multi.map((r) => `  ${r.id} (${r.transport}, ${r.deployment}): ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
  process.stderr.write(`\nAdCP grader, governance:\n${[...cap, ...multi, ...lines].join('\n')}\n`);
});

const classified = (runName: 'governance-agent' | 'multi-agent') => new Map(GOVERNANCE_CLASSIFIED.filter((c) => c.run === runName).map((c) => [`${c.storyboard} :: ${c.step}`, c]));
const report = (m: Map<string, string>): string => [...m].map(([k, v]) => `  - ${k}: ${v}`).join('\n');

test('the governance agent: every failing step classified, every classified step still failing, its specialisms run', () => {
  const known = classified('governance-agent');
  for (const [transport, r] of Object.entries(results.capability)) {
    const failing = new Map((r.failures ?? []).map((f) => [`${f.storyboard_id} :: ${f.step_id}`, graderMessage(f)]));
    const unclassified = new Map([...failing].filter(([k]) => !known.has(k)));
    assert.is(unclassified.size, 0, `${transport}: failing step(s) nobody classified:\n${report(unclassified)}`);
    assert.equal([...known.keys()].filter((k) => !failing.has(k)), [], `${transport}: classified step(s) now pass`);
    const steps = (id: string) => r.tracks.flatMap((t) => t.scenarios).filter((s) => s.scenario === id || s.scenario.startsWith(`${id}/`)).flatMap((s) => s.steps);
    for (const id of ['property_lists', 'collection_lists', 'governance_spend_authority/denied', 'governance/property_list_change_webhook_signing', 'agent_notification_configs', 'capability_discovery']) {
      const ran = steps(id);
      assert.ok(ran.some((s) => s.passed && s.skipped !== true), `${transport}: ${id} ran and passed a step`);
      assert.not.ok(ran.some((s) => !s.passed && s.skipped !== true), `${transport}: ${id} failed a step`);
    }
  }
});

test('the governance-gated scenarios run (not skipped) on both transports; every failing step classified', () => {
  const known = classified('multi-agent');
  for (const transport of ['mcp', 'a2a'] as const) {
    const mine = results.multi.filter((r) => r.transport === transport);
    assert.is(mine.length, MULTI_AGENT.length, transport);
    for (const r of mine) {
      const ran = r.steps.filter((s) => !s.skipped);
      if (r.id === 'media_buy_seller/governance_denied_recovery') {
        // Gated on media_buy.governance_aware, AdCP 3.0's seller-consults-without-a-token flow, which this seller does
        // not claim: it enforces 3.2's signed governance (adcp.governance_enforcement).
        assert.equal(r.steps.map((s) => s.skip_reason), ['capability_unsupported'], `${transport}: ${r.id}`);
        continue;
      }
      assert.ok(ran.length >= 2, `${transport}: ${r.id} ran (${JSON.stringify(r.steps.map((s) => s.skip_reason ?? 'ran'))})`);
      const failing = new Map(r.steps.filter((s) => !s.passed && !s.skipped).map((s) => [`${r.id} :: ${s.step}`, s.error ?? s.failing.join('; ')]));
      const unclassified = new Map([...failing].filter(([k]) => !known.has(k)));
      assert.is(unclassified.size, 0, `${transport}: failing step(s) nobody classified:\n${report(unclassified)}`);
      for (const k of known.keys()) if (k.startsWith(`${r.id} :: `)) assert.ok(failing.has(k), `${transport}: ${k} is classified but passes`);
    }
    // What the seller must refuse, it refuses: the widened payload, under a valid token.
    const approved = mine.find((r) => r.id === 'media_buy_seller/governance_approved')!;
    assert.ok(approved.steps.find((s) => s.step === 'create_media_buy_tampered')?.passed, `${transport}: the widened request is PERMISSION_DENIED`);
    for (const step of ['sync_plans', 'sync_governance', 'check_governance_intent']) assert.ok(approved.steps.find((s) => s.step === step)?.passed, `${transport}: ${step}`);
    // The signals agent refuses a registered account's tokenless activation, and pushes nothing (the grader's upstream check).
    const denied = mine.find((r) => r.id === 'signal_marketplace/governance_denied')!;
    assert.ok(denied.steps.find((s) => s.step === 'activate_signal_denied')?.passed, `${transport}: the tokenless activation is PERMISSION_DENIED`);
    const signalsApproved = mine.find((r) => r.id === 'signal_marketplace/governance_approved')!;
    for (const step of ['sync_governance', 'discover_paid_signal', 'sync_plans', 'check_governance_intent']) assert.ok(signalsApproved.steps.find((s) => s.step === step)?.passed, `${transport}: ${step}`);
    const conditions = mine.find((r) => r.id === 'media_buy_seller/governance_conditions')!;
    for (const step of ['check_governance_conditions', 'check_governance_adjusted']) assert.ok(conditions.steps.find((s) => s.step === step)?.passed, `${transport}: ${step}`);
  }
});

test('the signals agent activates under a token for the exact request and its own price, and refuses a lower ceiling and no token', () => {
  assert.equal(results.signed, { belowPrice: 'PERMISSION_DENIED/governance_token_not_applicable', tokenless: 'PERMISSION_DENIED/', approved: 'live' });
});

test('docs/governance.md lists every classified step', () => {
  const doc = readFileSync(join(repoRoot, 'docs/governance.md'), 'utf8');
  for (const c of GOVERNANCE_CLASSIFIED) assert.ok(doc.split('\n').some((l) => l.includes(`\`${c.storyboard}\``) && l.includes(`\`${c.step}\``)), `docs/governance.md has a row for ${c.storyboard} :: ${c.step}`);
});

test.run();

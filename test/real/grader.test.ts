import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/fixture-release.js';
import { grader, graderMessage, json, run, type FuzzResult, type Run, type StoryboardResult } from '../helpers/grader.js';
import { loopbackCertificate } from '../helpers/tls.js';
import { repoRoot, sdkReleaseDir, sharedComplianceDir, sharedGraderDir, sharedReleaseDir } from '../helpers/releases.js';
import { CLASSIFIED } from './grader-classified.js';

/**
 * The outside proof from AdCP's own 3.2 grader (../shared/adcp-grader: @adcp/sdk 14.0.0-beta.7, the 3.2.0-beta.5
 * storyboards). The reference seller (examples/seller/) is generated for 3.0.6 + 3.2.0-beta.5 on its sandbox profile
 * (comply_test_controller on a sandbox surface), served over HTTPS on 127.0.0.1 through agent.serve with a Bearer
 * API key, over MCP (development mode: the runtime checks every answer against its release) and over A2A
 * (@a2a-js/sdk 0.3, production mode), and graded as AdCP grades agents — with the key (`--auth`), the test kit that
 * names it, and the grader's own loopback webhook receiver, so the security and webhook storyboards are graded, not
 * skipped — concurrently:
 *
 *   - the capability-driven `adcp storyboard run` over MCP and over A2A (no version alias: the pre-flight must accept
 *     the agent's adcp.supported_versions as they are);
 *   - `signed_requests` against the signed sandbox deployment (request_signing, the verifier pre-configured with
 *     AdCP's runner contract), over MCP — the grader's request-signing probe speaks MCP only;
 *   - the named storyboards in one invocation on each transport, after its capability-driven run;
 *   - `adcp fuzz --seed 42` against a fresh seller (before any storyboard) and against the MCP seller after the
 *     storyboards created state, beside the named run;
 *   - and AdCP 3.0.6's CLI (@adcp/sdk 6.11, the devDependency): `npx adcp fuzz --seed 42` against the production
 *     profile served from the committed set.
 *
 * A failing step passes the test only if grader-classified.ts lists it with why it is not the protocol layer's doing
 * (and docs/conformance.md lists it with the grader's message); a listed step that passes fails the test too, so the
 * list stays the list of what fails. Failures print the grader's own messages.
 */
const graderDir = sharedGraderDir();
const release32Dir = sharedReleaseDir();
const complianceDir = sharedComplianceDir();
if (graderDir === undefined || release32Dir === undefined || complianceDir === undefined) throw new Error('../shared/adcp-grader and ../shared/adcp are required for the real-release suite');

const NAMED = ['capability_discovery', 'version_negotiation', 'v3_envelope_integrity', 'notification_config_event_scope', 'error_compliance', 'schema_validation', 'idempotency'];
const PROFILE = 'guaranteed-publisher-sandbox';
/** The same sandbox requiring signed requests: AdCP's signed_requests storyboard is run against it alone. */
const SIGNED_PROFILE = 'guaranteed-publisher-sandbox-signed';
const MINUTE = 60_000;

// The reference seller's set, generated as its repository would: AdCP 3.0.6 (embedded) + 3.2.0-beta.5.
const work = tempDir('adcp-codegen-grader-');
writeTree(
  {
    'package.json': { name: 'reference-seller', private: true, type: 'module' },
    'adcp-codegen.config.json': {
      releases: [sdkReleaseDir(), release32Dir],
      profiles: [join(repoRoot, 'examples/profiles/guaranteed-publisher-sandbox*.json')],
      normalizations: [join(repoRoot, 'schemas/normalizations/*.json')],
      overlays: [join(repoRoot, 'schemas/overlays/*.json')],
      out: 'generated',
    },
  },
  work,
);
symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');

type Served = { url: string; close(): Promise<unknown> };
type StartOptions = { mode: string; profile?: string; generated?: string; apiKey: string; signing?: unknown; store: { stateDir: string }; tls: { cert: string; key: string } };
const examples = {
  mcp: (await import(pathToFileURL(join(repoRoot, 'examples/seller-agent.js')).href)) as { startSellerAgent(o: StartOptions): Promise<Served> },
  a2a: (await import(pathToFileURL(join(repoRoot, 'examples/a2a-agent.js')).href)) as { startA2AAgent(o: StartOptions & { profile: string; generated: string }): Promise<Served> },
};
const kit = (await import(pathToFileURL(join(repoRoot, 'examples/signing-test-kit.js')).href)) as { signedRequestsRunnerSigning(kitPath: string): unknown };

/**
 * Every seller is deployed as a team deploys it: its own state directory (idempotency keys, tasks, the webhook outbox,
 * nonces), a Bearer API key the grader presents (`--auth`), and, on the sandbox profile that advertises request
 * signing, the verifier pre-configured with AdCP's runner contract (test-kits/signed-requests-runner.yaml). The
 * grader hosts its loopback webhook receiver (`--webhook-receiver loopback`), so the webhook and idempotency
 * storyboards are graded, not skipped.
 */
const TEST_KIT = join(complianceDir, 'test-kits/acme-outdoor.yaml');
// The key AdCP's test kit declares for security_baseline's API-key path (`auth.api_key`): the sellers accept it, the
// grader presents it on every call (`--auth`), and a random other key must be refused.
const API_KEY = (parse(readFileSync(TEST_KIT, 'utf8')) as { auth: { api_key: string } }).auth.api_key;
const signing = { requests: kit.signedRequestsRunnerSigning(join(complianceDir, 'test-kits/signed-requests-runner.yaml')) };
// Served over HTTPS as agents are deployed: brand.json (where buyers find the webhook signing keys) must be https, so
// the webhook storyboard can fetch it. The grader trusts the loopback certificate through NODE_EXTRA_CA_CERTS.
const certificate = loopbackCertificate();
const deployed = (o: { mode: string; profile?: string; generated?: string }): StartOptions => ({
  ...o,
  apiKey: API_KEY,
  tls: { cert: certificate.cert, key: certificate.key },
  store: { stateDir: tempDir('adcp-grader-state-') },
  ...(o.profile === SIGNED_PROFILE ? { signing } : {}),
});

interface Graded {
  transport: 'mcp' | 'a2a';
  capability: StoryboardResult;
  /** The named storyboards' own invocation. */
  named: StoryboardResult;
  /** signed_requests against the signed deployment (MCP: the grader's request-signing probe speaks MCP only). */
  signed?: StoryboardResult;
}

const results: { graded: Graded[]; fuzz: { when: string; result: FuzzResult }[]; legacyFuzz?: FuzzResult; runs: { what: string; run: Run }[]; wallMs: number } = {
  graded: [],
  fuzz: [],
  runs: [],
  wallMs: 0,
};

test('generate the reference seller for 3.0.6 + 3.2.0-beta.5, serve it over MCP and A2A, and grade it', async () => {
  const started = performance.now();
  const ownCpu = process.cpuUsage();
  const [adcp, generation] = await Promise.all([grader(graderDir), runCli(['generate'], work)]);
  assert.is(generation.code, 0, generation.stderr);
  const generated = join(work, 'generated');
  // ADCP_GRADER_RESULTS=<dir> keeps each run's JSON there (one file per run), to read or to diff between runs.
  const keep = process.env.ADCP_GRADER_RESULTS;
  const timed = async (what: string, command: string, args: string[], timeoutMs: number): Promise<Run> => {
    const r = await run(command, args, { cwd: work, timeoutMs, env: { NODE_EXTRA_CA_CERTS: certificate.certFile } });
    results.runs.push({ what, run: r });
    if (keep !== undefined && keep !== '') {
      mkdirSync(keep, { recursive: true });
      writeFileSync(join(keep, `${what.replace(/[^a-z0-9.]+/gi, '-').replace(/^-|-$/g, '')}.json`), r.stdout);
    }
    return r;
  };
  const fuzz = async (what: string, url: string, command = adcp) =>
    json<FuzzResult>(await timed(what, command, ['fuzz', url, '--seed', '42', '--auth-token', API_KEY, '--format', 'json'], 10 * MINUTE), what);
  const storyboards = async (what: string, url: string, protocol: string, extra: string[] = []) =>
    json<StoryboardResult>(
      await timed(
        what,
        adcp,
        ['storyboard', 'run', url, ...extra, '--protocol', protocol, '--auth', API_KEY, '--test-kit', TEST_KIT, '--webhook-receiver', 'loopback', '--allow-http', '--json'],
        15 * MINUTE,
      ),
      what,
    );

  const mcp = await examples.mcp.startSellerAgent(deployed({ mode: 'development', profile: PROFILE, generated }));
  const a2a = await examples.a2a.startA2AAgent(deployed({ mode: 'production', profile: PROFILE, generated }) as StartOptions & { profile: string; generated: string });
  // A seller no storyboard has touched, for the fuzz "before"; and AdCP 3.0.6's CLI against the committed set's
  // production profile, the seller's 3.0 deployment.
  const fresh = await examples.mcp.startSellerAgent(deployed({ mode: 'development', profile: PROFILE, generated }));
  const legacy = await examples.mcp.startSellerAgent(deployed({ mode: 'production' }));
  const signedSeller = await examples.mcp.startSellerAgent(deployed({ mode: 'development', profile: SIGNED_PROFILE, generated }));
  try {
    const [mcpGraded, a2aGraded, before, legacyFuzz] = await Promise.all([
      (async (): Promise<Graded> => {
        const [capability, signed] = await Promise.all([
          storyboards('mcp storyboard run (capability-driven)', mcp.url, 'mcp'),
          storyboards('mcp storyboard run --storyboards signed_requests (signed deployment)', signedSeller.url, 'mcp', ['--storyboards', 'signed_requests']),
        ]);
        // Side by side on the seller the storyboards left behind: the named storyboards use ids of their own.
        const [named, after] = await Promise.all([
          storyboards(`mcp storyboard run --storyboards (${NAMED.length} named)`, mcp.url, 'mcp', ['--storyboards', NAMED.join(',')]),
          fuzz('mcp fuzz --seed 42, after the storyboards', mcp.url),
        ]);
        results.fuzz.push({ when: 'after the storyboards (MCP)', result: after });
        return { transport: 'mcp', capability, named, signed };
      })(),
      (async (): Promise<Graded> => {
        const capability = await storyboards('a2a storyboard run (capability-driven)', a2a.url, 'a2a');
        const named = await storyboards(`a2a storyboard run --storyboards (${NAMED.length} named)`, a2a.url, 'a2a', ['--storyboards', NAMED.join(',')]);
        return { transport: 'a2a', capability, named };
      })(),
      fuzz('mcp fuzz --seed 42, fresh seller', fresh.url),
      fuzz('@adcp/sdk 6.11 fuzz --seed 42, committed set', legacy.url, join(repoRoot, 'node_modules/.bin/adcp')),
    ]);
    results.graded = [mcpGraded, a2aGraded];
    results.fuzz.unshift({ when: 'before any storyboard (fresh seller)', result: before });
    results.legacyFuzz = legacyFuzz;
  } finally {
    await Promise.all([mcp.close(), a2a.close(), fresh.close(), legacy.close(), signedSeller.close()]);
  }
  results.wallMs = performance.now() - started;
  // What each run found and cost, for docs/conformance.md (the bench has the speed goals; this only reports).
  const found = (r: Run): string => {
    try {
      const o = JSON.parse(r.stdout) as Partial<StoryboardResult & FuzzResult>;
      return o.summary !== undefined ? `${o.summary.steps_passed} passed, ${o.summary.steps_failed} failed, ${o.summary.steps_skipped} skipped` : `${o.totalRuns} runs, ${o.totalFailures} failures`;
    } catch {
      return `exit ${r.code}`;
    }
  };
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const lines = results.runs.map(({ what, run: r }) => `  ${what}: ${found(r)}; ${s(r.ms)} wall, ${s(r.cpuMs)} CPU`);
  const cpu = results.runs.reduce((sum, { run: r }) => sum + r.cpuMs, 0);
  const own = process.cpuUsage(ownCpu);
  process.stderr.write(
    `\nAdCP grader runs (concurrently): ${s(results.wallMs)} wall with install and generation; ${s(cpu)} CPU in the grader processes, ${s((own.user + own.system) / 1000)} in this one (generation and the sellers):\n${lines.join('\n')}\n`,
  );
});

/** Failing steps as `storyboard/step`, with the grader's message. */
const failing = (r: StoryboardResult): Map<string, string> => new Map((r.failures ?? []).map((f) => [`${f.storyboard_id} :: ${f.step_id}`, graderMessage(f)]));
const classified = new Map(CLASSIFIED.map((c) => [`${c.storyboard} :: ${c.step}`, c]));
/** The steps classified as failing on one transport. */
const classifiedOn = (transport: 'mcp' | 'a2a'): Set<string> => new Set([...classified].filter(([, c]) => c.transports === undefined || c.transports.includes(transport)).map(([k]) => k));
const report = (m: Map<string, string>): string => [...m].map(([k, v]) => `  - ${k}: ${v}`).join('\n');

test('the capability-driven run starts without a version alias, finds the controller, and runs the seeded storyboards', () => {
  for (const { transport, capability } of results.graded) {
    assert.not.ok((capability.failures ?? []).some((f) => f.storyboard_id === 'pre-flight'), `${transport}: refused before any storyboard ran:\n${report(failing(capability))}`);
    assert.is.not(capability.overall_status, 'unreachable', transport);
    assert.ok(capability.controller_detected, `${transport}: comply_test_controller detected`);
    assert.is(capability.summary.skipped_by_reason.missing_test_controller ?? 0, 0, `${transport}: nothing skipped for want of the controller`);
    for (const id of ['schema_validation', 'idempotency', 'media_buy_seller', 'deterministic_testing']) {
      assert.ok(capability.storyboards_executed.includes(id), `${transport}: ${id} runs`);
    }
    assert.ok(capability.summary.steps_passed > 150, `${transport}: ${capability.summary.steps_passed} steps passed`);
  }
});

test('every failing step of every run is classified as outside the protocol layer, and every classified step still fails', () => {
  for (const { transport, capability, named, signed } of results.graded) {
    const seen = new Map([...failing(capability), ...failing(named), ...(signed !== undefined ? failing(signed) : [])]);
    const on = classifiedOn(transport);
    const unclassified = new Map([...seen].filter(([k]) => !on.has(k)));
    assert.is(unclassified.size, 0, `${transport}: ${unclassified.size} failing step(s) the protocol layer owns or nobody classified:\n${report(unclassified)}`);
    // signed_requests is graded on the signed deployment; everything else on the capability-driven run.
    const where = (k: string): StoryboardResult | undefined => (k.startsWith('signed_requests :: ') ? signed : capability);
    const fixed = [...on].filter((k) => where(k) !== undefined && !failing(where(k)!).has(k));
    assert.equal(fixed, [], `${transport}: classified step(s) now pass; remove them from grader-classified.ts and docs/conformance.md`);
  }
});

test('signed_requests runs on the signed deployment over MCP, and the sandbox without request signing skips it', () => {
  const mcp = results.graded.find((g) => g.transport === 'mcp')!;
  const steps = mcp.signed!.tracks.flatMap((t) => t.scenarios).filter((s) => s.scenario.startsWith('signed_requests')).flatMap((s) => s.steps);
  const ran = steps.filter((s) => s.skipped !== true);
  assert.ok(ran.filter((s) => s.passed).length >= 21, `${ran.filter((s) => s.passed).length} of ${steps.length} signed_requests steps passed`);
  for (const { transport, capability } of results.graded) {
    assert.not.ok([...failing(capability).keys()].some((k) => k.startsWith('signed_requests')), `${transport}: the sandbox advertises no request signing`);
  }
});

test('the named storyboards each run and pass over MCP and A2A', () => {
  for (const { transport, capability, named } of results.graded) {
    for (const [label, r] of [['capability-driven run', capability], ['named run', named]] as const) {
      for (const id of NAMED) {
        const steps = r.tracks.flatMap((t) => t.scenarios).filter((s) => s.scenario === id || s.scenario.startsWith(`${id}/`)).flatMap((s) => s.steps);
        assert.ok(steps.some((s) => s.passed && s.skipped !== true), `${transport} ${label}: ${id} ran and passed a step (${steps.length} step(s))`);
      }
      const theirs = new Map([...failing(r)].filter(([k]) => NAMED.some((id) => k.startsWith(`${id} :: `) || k.startsWith(`${id}/`))));
      assert.is(theirs.size, 0, `${transport} ${label}: named storyboards failed:\n${report(theirs)}`);
    }
  }
});

test('fuzz --seed 42: no failure before or after the storyboards created state, nor from AdCP 3.0.6\'s CLI', () => {
  for (const { when, result } of results.fuzz) {
    assert.is(result.schemaVersion, '3.2.0-beta.5');
    assert.ok(result.totalRuns >= 400, `${when}: ${result.totalRuns} runs`);
    assert.is(result.totalFailures, 0, `fuzz ${when}: ${JSON.stringify(result.failures, null, 2).slice(0, 8000)}`);
  }
  const legacy = results.legacyFuzz!;
  assert.is(legacy.schemaVersion, '3.0.6');
  assert.ok(legacy.totalRuns >= 400, `${legacy.totalRuns} runs`);
  assert.is(legacy.totalFailures, 0, JSON.stringify(legacy.failures, null, 2).slice(0, 8000));
});

test('docs/conformance.md lists every classified step with the grader\'s message', () => {
  const doc = readFileSync(join(repoRoot, 'docs/conformance.md'), 'utf8');
  const mcp = results.graded.find((g) => g.transport === 'mcp')!;
  const messages = new Map([...failing(mcp.capability), ...failing(mcp.signed!)]);
  for (const [key, c] of classified) {
    const row = doc.split('\n').find((l) => l.includes(`\`${c.storyboard}\``) && l.includes(`\`${c.step}\``));
    assert.ok(row !== undefined, `docs/conformance.md has a row for ${key}`);
    const message = messages.get(key);
    if (message !== undefined) assert.ok(row!.includes(message.slice(0, 60).replace(/\|/g, '\\|')), `${key}: the row quotes the grader: ${message}`);
  }
});

test.run();

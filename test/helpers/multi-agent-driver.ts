/**
 * The program test/real/governance-grader.test.ts runs inside AdCP's grader installation to grade multi-agent
 * storyboards: the grader's own runner (`runStoryboard` from @adcp/sdk/testing, 14.0.0-beta.7) with an agents map and
 * the initial context the storyboards ask to be overridden ("Override seller_agent_url in the initial context with
 * the exact sales-agent endpoint used by the runner") — which the CLI's `--agents-map` does not pass. The runner
 * refuses controller seeding across tenants ("Pre-seed each tenant out-of-band and pass skip_controller_seeding"), so
 * the storyboard's fixtures are seeded first through the sales agent's comply_test_controller, with the calls the
 * runner itself would make (its buildSeedCalls). One JSON array of results on stdout.
 */
export const MULTI_AGENT_DRIVER = String.raw`
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const input = JSON.parse(process.argv[2]);
const require = createRequire(input.graderPackage);
const { runStoryboard, getComplianceStoryboardById } = require('@adcp/sdk/testing');
const { buildSeedCalls } = require(input.seedingModule);
const { parse } = require('yaml');
const { Client } = await import(input.mcpClient);
const { StreamableHTTPClientTransport } = await import(input.mcpTransport);
const testKit = parse(readFileSync(input.testKit, 'utf8'));
async function seed(url, storyboard) {
  const client = new Client({ name: 'fixture-seeding', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer ' + input.key } } }));
  try {
    for (const call of buildSeedCalls(storyboard.fixtures)) {
      const r = await client.callTool({ name: 'comply_test_controller', arguments: { account: { brand: { domain: testKit.brand.house.domain }, operator: 'pinnacle-agency.example', sandbox: true }, scenario: call.scenario, params: call.params, context: { correlation_id: storyboard.id + '--seeding' } } });
      if (r.structuredContent?.success !== true) throw new Error('seeding ' + call.step_id + ': ' + JSON.stringify(r.structuredContent));
    }
  } finally {
    await client.close();
  }
}
const results = [];
for (const run of input.runs) {
  const storyboard = getComplianceStoryboardById(run.id);
  if (storyboard.prerequisites?.controller_seeding === true) await seed(run.seedUrl, storyboard);
  const r = await runStoryboard('', storyboard, {
    protocol: run.transport,
    auth: { type: 'bearer', token: input.key },
    agents: run.agents,
    default_agent: run.defaultAgent,
    context: run.context,
    test_kit: testKit,
    brand: { domain: testKit.brand.house.domain },
    allow_http: true,
    skip_controller_seeding: true,
  });
  results.push({
    id: run.id,
    transport: run.transport,
    deployment: run.deployment,
    passed: r.passed_count,
    failed: r.failed_count,
    skipped: r.skipped_count,
    steps: r.phases.flatMap((p) => p.steps.map((s) => ({
      step: s.step_id,
      passed: s.passed === true && s.skipped !== true,
      skipped: s.skipped === true,
      ...(s.skip_reason !== undefined ? { skip_reason: s.skip_reason } : {}),
      ...(s.error !== undefined ? { error: String(s.error).split('\n')[0] } : {}),
      failing: (s.validations ?? []).filter((v) => !v.passed).map((v) => v.description + (v.error ? ': ' + v.error : '')),
    }))),
  });
}
process.stdout.write(JSON.stringify(results));
`;

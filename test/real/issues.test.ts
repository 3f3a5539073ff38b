import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileValidators } from '../../generator/compile/index.js';
import { loadRelease, type Release } from '../../generator/load/index.js';
import type { Issue } from '../../runtime/artifacts/contract.js';
import { wireIssues } from '../../runtime/issues/issue-wire.js';
import { wrapValidator } from '../../runtime/issues/issues.js';
import { writeEmitted } from '../helpers/differential.js';
import { measureRecall } from '../helpers/recall.js';
import { sdkReleaseDir, sharedComplianceDir, sharedReleaseDir } from '../helpers/releases.js';
import { loadStoryboardSamples } from '../helpers/storyboards.js';
import { tempDir } from '../helpers/temp.js';
import { requestValidator } from '../helpers/tool-validators.js';

/**
 * One reply names every defect (issue 19 point 3), on the real releases: the recall of two or three injected
 * defects per valid storyboard payload against run-time Ajv with `allErrors` (the figures `npm run bench issues`
 * prints), and the cases the issue names — `create_media_buy {}` on 3.2, a discriminated arm's issues with the
 * variant the payload selected, `schema_id` as AdCP publishes it.
 */
const release32Dir = sharedReleaseDir();
const complianceDir = sharedComplianceDir();
if (release32Dir === undefined || complianceDir === undefined) throw new Error('../shared/adcp is required for the real-release suite');
const r30 = loadRelease(sdkReleaseDir(), '@adcp/sdk');
const r32 = loadRelease(release32Dir, '3.2.0-beta.5');
const samples = loadStoryboardSamples(complianceDir).filter((s) => !s.expectError);

// Issue 31: at least 96% of the defects on both releases, and at least as many as run-time Ajv with allErrors.
for (const [release, floor] of [
  [r30, 1],
  [r32, 1],
] as const) {
  test(`${release.version}: a rejection names at least as many injected defects as run-time Ajv with allErrors`, () => {
    const { total } = measureRecall(release, tempDir('adcp-recall-'), samples);
    const ours = total.ours / total.injected;
    const ajv = total.ajv / total.injected;
    console.log(`  ${release.version}: ${total.injected} defects in ${total.mutants} requests; named ${(100 * ours).toFixed(1)}%, allErrors ${(100 * ajv).toFixed(1)}%`);
    assert.ok(total.mutants > 800, String(total.mutants));
    assert.ok(total.ours >= floor * total.ajv && ours >= 0.96, `${total.ours} named (${(100 * ours).toFixed(1)}%), allErrors ${total.ajv} (${(100 * ajv).toFixed(1)}%)`);
  });
}

const validators = new Map<Release, string>();
function validate(release: Release, tool: string, payload: unknown): Issue[] {
  let out = validators.get(release);
  if (out === undefined) {
    validators.set(release, (out = tempDir('adcp-issues-real-')));
    writeEmitted(out, compileValidators(release, ['create_media_buy', 'get_products', 'sync_accounts']));
  }
  const raw = requestValidator(out, release.key, tool);
  const r = wrapValidator(raw, { idBase: `https://adcontextprotocol.org/schemas/${release.version}/` })(payload);
  return r.ok ? [] : r.issues;
}

test('3.2 create_media_buy {}: the shape it needs, then each of the five missing required fields, each at its own pointer', () => {
  const issues = validate(r32, 'create_media_buy', {});
  const named = issues.map((i) => `${i.keyword} ${i.pointer}`);
  for (const field of ['idempotency_key', 'account', 'brand', 'start_time', 'end_time']) assert.ok(named.includes(`required /${field}`), `${field} in ${named.join(', ')}`);
  // The root anyOf (packages, or a proposal): the arm needing the fewest fixes is named, then the other shape `{}`
  // only lacks a field of (the caller's data favours neither), then the union.
  // (a proposal's execution needs its `total_budget` too).
  assert.equal(named.slice(0, 4), ['required /packages', 'required /proposal_id', 'required /total_budget', 'anyOf ']);
  assert.match(issues[1]!.message, /in another shape the request may take$/);
  assert.not.match(issues[0]!.message, /another shape/);
  assert.match(issues[3]!.message, /'packages', 'proposal_id'/);
  assert.is(issues[0]!.schema_id, 'https://adcontextprotocol.org/schemas/3.2.0-beta.5/media-buy/create-media-buy-request.json');
});

test('3.2 a discriminated arm: its issues carry the variant the payload selected, and production may send it', () => {
  // An optimization goal is a union on `kind` (core/optimization-goal.json): `metric` selects the metric arm.
  const sample = samples.find((s) => s.task === 'create_media_buy' && JSON.stringify(s.request).includes('"kind":"metric"') && validate(r32, 'create_media_buy', s.request).length === 0)!;
  const bad = structuredClone(sample.request) as Record<string, any>;
  bad.packages[0].optimization_goals[0].priority = 'first';
  const issues = validate(r32, 'create_media_buy', bad);
  const priority = issues.find((i) => i.pointer === '/packages/0/optimization_goals/0/priority');
  assert.ok(priority, JSON.stringify(issues));
  assert.equal(priority!.discriminator, [{ property_name: 'kind', value: 'metric' }]);
  assert.is(priority!.schema_id, 'https://adcontextprotocol.org/schemas/3.2.0-beta.5/core/optimization-goal.json');
  // What production sends of them, for AdCP's published schemas: schema_id and discriminator, never schemaPath.
  const sent = wireIssues(issues, 'production', true).find((i) => i.pointer === priority!.pointer)!;
  assert.equal([sent.schema_id, sent.discriminator, sent.schemaPath], [priority!.schema_id, priority!.discriminator, undefined]);
});

test('3.2 the issue pointers are JSONPath-lite in field, for a missing field too', () => {
  const request = samples.find((s) => s.task === 'create_media_buy' && validate(r32, 'create_media_buy', s.request).length === 0)!.request as Record<string, any>;
  const bad = structuredClone(request);
  delete bad.packages[0].product_id;
  const issues = validate(r32, 'create_media_buy', bad);
  assert.is(issues[0]!.pointer, '/packages/0/product_id');
  assert.is(issues[0]!.missingProperty, 'product_id');
});

test.run();

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { governedPayloadHash, planHash, planPreimage } from '../../runtime/services/governance/hash.js';
import { canonicalJson } from '../../runtime/services/jcs.js';
import { sharedComplianceDir } from '../helpers/releases.js';

/**
 * AdCP 3.2.0-beta.5's governance vectors, every case, through the runtime (services/governance/):
 * - test-vectors/plan-hash/: each plan's preimage, its JCS bytes, the SHA-256 and the `plan_hash` claim, the pairs
 *   that must agree (bookkeeping stripped) and those that must differ (null vs omitted, array order, ext);
 * - governance-authorization.json: the payload-hash cases.
 */
const compliance = sharedComplianceDir();
if (compliance === undefined) throw new Error('../shared/adcp/compliance/3.2.0-beta.5 is required for the real-release suite');
const vectors = join(compliance, 'test-vectors');

interface PlanVector {
  name: string;
  plan_as_supplied: Record<string, unknown>;
  cross_reference?: { same_hash_as?: string; differs_from?: string };
  expected: { preimage: Record<string, unknown>; jcs_bytes: string; sha256_hex: string; plan_hash: string };
}
const plans = new Map(
  readdirSync(join(vectors, 'plan-hash'))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(vectors, 'plan-hash', f), 'utf8')) as PlanVector]),
);

const authorization = JSON.parse(readFileSync(join(vectors, 'governance-authorization.json'), 'utf8')) as {
  payload_hash_cases: { id: string; payload: Record<string, unknown>; canonical_business_payload: string; expected_hash: string }[];
};
const results: string[] = [];

test('plan-hash: every vector\'s preimage, JCS bytes, SHA-256 and plan_hash', () => {
  assert.is(plans.size, 11);
  for (const [id, v] of plans) {
    const preimage = planPreimage(v.plan_as_supplied);
    assert.equal(preimage, v.expected.preimage, `${id}: preimage`);
    const jcs = canonicalJson(preimage, 'test');
    assert.is(jcs, v.expected.jcs_bytes, `${id}: JCS bytes`);
    assert.is(createHash('sha256').update(jcs, 'utf8').digest('hex'), v.expected.sha256_hex, `${id}: SHA-256`);
    assert.is(planHash(v.plan_as_supplied), v.expected.plan_hash, `${id}: plan_hash`);
    const x = v.cross_reference;
    if (x?.same_hash_as !== undefined) assert.is(planHash(v.plan_as_supplied), plans.get(x.same_hash_as)!.expected.plan_hash, `${id} = ${x.same_hash_as}`);
    if (x?.differs_from !== undefined) assert.is.not(planHash(v.plan_as_supplied), plans.get(x.differs_from)!.expected.plan_hash, `${id} ≠ ${x.differs_from}`);
  }
  results.push(`plan-hash: ${plans.size} of ${plans.size} vectors reproduce bit-exactly`);
});

test('governance-authorization: the payload-hash cases', () => {
  for (const c of authorization.payload_hash_cases) {
    const business = Object.fromEntries(Object.entries(c.payload).filter(([k]) => k !== 'governance_context' && k !== 'context'));
    assert.is(canonicalJson(business, 'test'), c.canonical_business_payload, c.id);
    assert.is(governedPayloadHash(c.payload), c.expected_hash, c.id);
  }
  results.push(`payload_hash_cases: ${authorization.payload_hash_cases.length} of ${authorization.payload_hash_cases.length}`);
});

test('report', () => {
  process.stderr.write(`\nAdCP governance vectors:\n${results.map((r) => `  ${r}`).join('\n')}\n`);
});

test.run();

import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { digestBytes, governedPayloadHash, planHash, planPreimage, samePlanHash } from '../runtime/services/governance/hash.js';
import './helpers/temp.js';

/**
 * The two hashes a governance token carries (plan binding and audit; the AdCP JWS profile), against canonical texts
 * written out by hand here — RFC 8785 sorts keys by code point, keeps strings as they are and writes numbers as
 * ECMAScript does — and SHA-256 from node:crypto. The spec's own vectors run in test/real/governance-vectors.test.ts.
 */
const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64url');

const plan = {
  plan_id: 'p1',
  objectives: 'Été',
  budget: { total: 1000, currency: 'EUR', reallocation_threshold: 0.1 },
  brand: { domain: 'acme.example' },
  flight: { start: '2026-01-01T00:00:00Z', end: '2026-02-01T00:00:00Z' },
};
const CANONICAL_PLAN =
  '{"brand":{"domain":"acme.example"},"budget":{"currency":"EUR","reallocation_threshold":0.1,"total":1000},"flight":{"end":"2026-02-01T00:00:00Z","start":"2026-01-01T00:00:00Z"},"objectives":"Été","plan_id":"p1"}';

test('plan_hash is the unpadded base64url SHA-256 of the plan\'s canonical JSON, whatever the key order', () => {
  assert.is(planHash(plan), sha(CANONICAL_PLAN));
  const reordered = { flight: plan.flight, brand: plan.brand, budget: { reallocation_threshold: 0.1, currency: 'EUR', total: 1000 }, plan_id: 'p1', objectives: 'Été' };
  assert.is(planHash(reordered), planHash(plan));
  assert.not.ok(planHash(plan).includes('='));
});

test('the closed list of bookkeeping fields is stripped, and nothing else: ext, an explicit null and array order all count', () => {
  const stored = { ...plan, version: 3, status: 'active', syncedAt: '2026-01-02T00:00:00Z', revisionHistory: [{ version: 2 }], committedBudget: 10, committedByType: { media_buy: 10 } };
  assert.is(planHash(stored), planHash(plan));
  assert.equal(Object.keys(planPreimage(stored)).sort(), Object.keys(plan).sort());
  assert.ok('version' in stored, 'the plan itself is not changed');
  // A field outside the closed list is in the preimage, however much it looks like bookkeeping.
  assert.is.not(planHash({ ...plan, updatedAt: '2026-01-02T00:00:00Z' }), planHash(plan));
  assert.is.not(planHash({ ...plan, ext: { trace: 'a' } }), planHash({ ...plan, ext: { trace: 'b' } }));
  assert.is.not(planHash({ ...plan, human_review_required: null }), planHash(plan));
  assert.is.not(planHash({ ...plan, policy_categories: ['a', 'b'] }), planHash({ ...plan, policy_categories: ['b', 'a'] }));
  // Only top-level fields are bookkeeping: a nested `status` is business data.
  assert.is.not(planHash({ ...plan, budget: { ...plan.budget, status: 'x' } }), planHash(plan));
});

test('numbers are written as ECMAScript writes them, not as they were spelled', () => {
  assert.is(planHash({ plan_id: 'n', share: 33.333333333333336, big: 1e21, tiny: 1e-7, whole: 5.0 }), sha('{"big":1e+21,"plan_id":"n","share":33.333333333333336,"tiny":1e-7,"whole":5}'));
});

test('the governed payload hash excludes exactly governance_context and context; idempotency_key and ext stay bound', () => {
  const request = { idempotency_key: 'k-0000000000000001', account: { account_id: 'a' }, ext: { x: 1 }, governance_context: 'token', context: { trace: 't' } };
  assert.is(governedPayloadHash(request), sha('{"account":{"account_id":"a"},"ext":{"x":1},"idempotency_key":"k-0000000000000001"}'));
  assert.is.not(governedPayloadHash({ ...request, idempotency_key: 'k-0000000000000002' }), governedPayloadHash(request));
  assert.is(governedPayloadHash({ ...request, governance_context: 'another', context: { trace: 'u' } }), governedPayloadHash(request));
  // A nested context is business data.
  assert.is.not(governedPayloadHash({ ...request, account: { account_id: 'a', context: 1 } }), governedPayloadHash(request));
});

test('plan hashes compare as 32 decoded bytes: padding, another alphabet, unused bits set or a wrong length is no digest', () => {
  const h = planHash(plan);
  assert.ok(samePlanHash(h, planHash({ ...plan })));
  assert.not.ok(samePlanHash(h, planHash({ ...plan, plan_id: 'p2' })));
  assert.not.ok(samePlanHash(h, `${h}=`));
  assert.not.ok(samePlanHash(h, h.slice(0, 42)));
  assert.is(digestBytes(`${'A'.repeat(42)}+`), undefined);
  assert.is(digestBytes(42), undefined);
  // 43 characters carry 258 bits of which a digest uses 256: the last character's two low bits must be zero. Set,
  // the string decodes to the same bytes, and is still not the digest.
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const sloppy = h.slice(0, 42) + ALPHABET[ALPHABET.indexOf(h[42]!) | 1]!;
  assert.ok(Buffer.from(sloppy, 'base64url').equals(digestBytes(h)!));
  assert.is(digestBytes(sloppy), undefined);
  assert.not.ok(samePlanHash(h, sloppy));
});

test.run();

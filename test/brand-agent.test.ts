import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from './helpers/releases.js';

/**
 * The reference brand agent (examples/brand/) white-box. AdCP's grader runs its brand baseline (test/real); the
 * brand domain's three other storyboards grade a CONSUMER of brand documents and signed brand responses through
 * runner contracts its CLI does not enable (distributed_brand_runner, signed_responses_runner,
 * single_side_trust_runner: every step is not_applicable), so the rules this agent applies as a consumer of brand.json
 * — the distributed mutual-assertion model — are tested here, as are the identity and discovery it serves.
 */
type Body = Record<string, any>;
const { resolvePortfolio, readDocument } = (await import(pathToFileURL(join(repoRoot, 'examples/brand/portfolio.js')).href)) as {
  resolvePortfolio(documents: unknown[], at: Date): Body[];
  readDocument(doc: unknown): unknown;
};
const { createBrandAgent } = (await import(pathToFileURL(join(repoRoot, 'examples/brand/index.js')).href)) as {
  createBrandAgent(agent: unknown, options?: Record<string, unknown>): { handlers: Record<string, (args: unknown, ctx: unknown) => Promise<Body>> };
};

const AT = new Date('2026-06-01T00:00:00Z');
const leaf = (domain: string, brand_id: string, extra: Record<string, unknown> = {}) => ({ domain, brand: { brand_id, names: [{ en: brand_id }] }, ...extra });
const house = (domain: string, refs: { domain: string; brand_id?: string }[], brands: unknown[] = []) => ({ house: { domain, name: domain }, brands, brand_refs: refs });
const trustOf = (docs: unknown[]) => Object.fromEntries(resolvePortfolio(docs.map(readDocument), AT).map((b) => [b.identity.brand_id, [b.trust, b.house?.domain ?? b.claimed_house_domain ?? null]]));

test('the mutual-assertion model: only both sides asserting (or the house defining the brand) extends trust to the house', () => {
  const trust = trustOf([
    house('corp.example', [{ domain: 'spark.example', brand_id: 'spark' }, { domain: 'claimed.example' }], [{ id: 'corp_main', names: [{ en: 'Corp' }] }]),
    leaf('spark.example', 'spark', { house_domain: 'corp.example' }),
    leaf('drift.example', 'drift', { house_domain: 'corp.example' }),
    leaf('claimed.example', 'claimed'),
    leaf('solo.example', 'solo'),
    leaf('orphan.example', 'orphan', { house_domain: 'gone.example' }),
    leaf('managed.example', 'managed', { managed_by: 'corp.example' }),
  ]);
  assert.equal(trust, {
    corp_main: ['inline', 'corp.example'],
    spark: ['mutual', 'corp.example'],
    drift: ['leaf_only', 'corp.example'], // claims the house; the house does not list it
    claimed: ['house_only', 'corp.example'], // listed by the house; does not claim it
    solo: ['standalone', null],
    orphan: ['unverifiable', 'gone.example'], // the claimed house's document is not held
    managed: ['standalone', null], // managed_by is an agency relationship, never a trust edge
  });
  const mutual = resolvePortfolio([house('corp.example', [{ domain: 'spark.example' }]), leaf('spark.example', 'spark', { house_domain: 'corp.example' })].map(readDocument), AT).find((b) => b.identity.brand_id === 'spark')!;
  assert.is(mutual.verified_at, AT.toISOString(), 'a house ref without brand_id covers the leaf\'s brand');
  const wrongBrand = trustOf([house('corp.example', [{ domain: 'spark.example', brand_id: 'other' }]), leaf('spark.example', 'spark', { house_domain: 'corp.example' })]);
  assert.equal(wrongBrand.spark, ['leaf_only', 'corp.example'], 'a ref to another brand of the domain does not reciprocate');
});

test('identity and discovery: sections as asked, the house only when trusted, REFERENCE_NOT_FOUND for an unknown brand, sections the response cannot carry left out', async () => {
  // validateResponse stands in for the served release's response schema: here it refuses one industry value.
  const agent = {
    releases: ['3.2-beta.5'],
    tools: () => ['get_brand_identity', 'search_brands'],
    validateResponse: (_tool: string, body: Body) =>
      (body.industries ?? body.brands?.[0]?.industries ?? []).includes('not-an-industry') ? { ok: false, issues: [{ pointer: body.brands ? '/brands/0/industries/0' : '/industries/0', message: 'must be one of …' }] } : { ok: true },
  };
  const documents = [
    { house: { domain: 'voltworks.example', name: 'Voltworks' }, brand_id: 'volt_ev', names: [{ en: 'Volt EV' }], description: 'Electric vehicles for city driving', industry: 'automotive', colors: { primary: '#0D47A1' }, tone: { voice: 'precise' } },
    { house: { domain: 'mystery.example', name: 'Mystery' }, brand_id: 'mystery', names: [{ en: 'Mystery' }], description: 'Unclassified goods', industry: 'not-an-industry' },
    { domain: 'leafy.example', house_domain: 'voltworks.example', brand: { brand_id: 'leafy', names: [{ en: 'Leafy' }], description: 'Electric bikes' } },
  ];
  const { handlers } = createBrandAgent(agent, { documents });
  const identity = await handlers.get_brand_identity!({ brand_id: 'volt_ev', fields: ['colors'] }, {});
  assert.equal([identity.brand_id, identity.house, identity.colors, identity.tone], ['volt_ev', { domain: 'voltworks.example', name: 'Voltworks' }, { primary: '#0D47A1' }, undefined]);
  assert.equal(identity.available_fields, ['description', 'industries', 'colors', 'tone']);
  const mystery = await handlers.get_brand_identity!({ brand_id: 'mystery' }, {});
  assert.is(mystery.industries, undefined, 'an industry outside the vocabulary is not served');
  const claimant = await handlers.get_brand_identity!({ brand_id: 'leafy' }, {});
  assert.is.not(claimant.house.domain, 'voltworks.example', 'a one-sided claim is not the brand\'s house');
  const unknown = await handlers.get_brand_identity!({ brand_id: 'brand_that_does_not_exist_12345' }, {});
  assert.equal([unknown.adcp_error?.code, unknown.adcp_error?.field], ['REFERENCE_NOT_FOUND', 'brand_id']);
  const found = await handlers.search_brands!({ query: 'electric vehicles' }, {});
  assert.equal(found.brands.map((b: Body) => [b.brand_id, b.relationship_trust, b.claimed_house_domain ?? null]), [['volt_ev', 'inline', null], ['leafy', 'leaf_only', 'voltworks.example']]);
});

test.run();

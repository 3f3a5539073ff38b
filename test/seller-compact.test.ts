import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet, EXAMPLE_ACCOUNTS } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';

/**
 * The reference seller on AdCP 3.2's compact lifecycle and proposal tools (examples/seller/compact.js, proposals.js,
 * commitments.js), white-box: its handlers called directly (the committed set serves 3.0.6 alone; AdCP's grader proves
 * the 3.2 bodies in test/real/grader.test.ts). One business core: a buy made through either surface is read and acted
 * on through the other, and proposals are one store for the compact tools and create_media_buy's `proposal_id`.
 */
type Body = Record<string, any>;
type Handler = (args: unknown, ctx: unknown) => Promise<Body>;
const COMPACT = ['list_products', 'buy_products', 'control_media_buy', 'request_proposals', 'refine_proposals', 'decline_proposals', 'accept_proposal', 'comply_test_controller'];
const { createSeller } = (await import(pathToFileURL(join(repoRoot, 'examples/seller/index.js')).href)) as { createSeller(agent: unknown, options?: unknown): { handlers: Record<string, Handler> } };
const { termsDigest } = (await import(pathToFileURL(join(repoRoot, 'examples/seller/commitments.js')).href)) as { termsDigest(terms: unknown): string };
const { loadProfile } = await committedSet();

async function seller() {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'production', store: { stateDir: tempDir() } });
  // The sandbox's surface on the committed production profile: the compact tools, and proposals through get_products.
  const capabilities = (r?: string): Body => {
    const c = agent.capabilities(r as never) as Body;
    return { ...c, media_buy: { ...c.media_buy, supports_proposals: true } };
  };
  const { handlers } = createSeller({ ...agent, capabilities, tools: (r?: string) => [...agent.tools(r as never), ...COMPACT] }, { accounts: EXAMPLE_ACCOUNTS });
  const call = (tool: string, args: Record<string, unknown>, principal = 'buyer') => handlers[tool]!(args, { principal, release: '3.0' });
  return { agent, call };
}

let keys = 0;
const key = (): string => `k-${String(++keys).padStart(4, '0')}-c0a9ac70-0000-4000`;
const ACCOUNT = { account_id: 'acc_1' };
const code = (b: Body): string | undefined => b.adcp_error?.code;

test('buy_products binds the listed versions; the buy it makes is the one media buy, controlled within its terms and read by get_media_buys', async () => {
  const { agent, call } = await seller();
  const listed = await call('list_products', { account: ACCOUNT, criteria: { product_ids: ['homepage_takeover'] } });
  assert.equal([listed.outcome, listed.products.map((p: Body) => p.product_id)], ['listed', ['homepage_takeover']]);
  assert.equal(await call('list_products', { if_feed_version: listed.feed_version, if_pricing_version: listed.pricing_version }), { outcome: 'unchanged', feed_version: listed.feed_version, pricing_version: listed.pricing_version, cache_scope: 'public' });
  const purchase = { idempotency_key: key(), account: ACCOUNT, feed_version: listed.feed_version, pricing_version: listed.pricing_version, purchases: [{ product_id: 'homepage_takeover', pricing_option_id: 'cpm_fixed', budget: 30000 }], start_time: 'asap', end_time: '2099-01-31T23:59:59Z' };
  const stale = await call('buy_products', { ...purchase, feed_version: 'feed_0000000000000000' });
  assert.equal([code(stale), stale.adcp_error.field], ['REQUOTE_REQUIRED', 'feed_version'], 'an offer read at another version is never bought');
  const bought = await call('buy_products', purchase);
  assert.equal([bought.status, bought.revision, bought.accepted_proposal.proposal_status], ['completed', 1, 'accepted']);
  assert.is(bought.accepted_proposal.terms_digest, termsDigest(bought.accepted_proposal.commercial_terms), 'the digest is over the JCS form of the terms');
  assert.equal(bought.accepted_proposal.commercial_terms.source_feed_version, listed.feed_version);
  assert.equal(bought.purchase_bindings.map((b: Body) => [b.purchase_index, b.product_id]), [[0, 'homepage_takeover']]);
  assert.ok(bought.available_actions.some((a: Body) => a.action === 'decrease_budget' && a.task === 'control_media_buy' && a.mode === 'self_serve'));

  const stalely = await call('control_media_buy', { idempotency_key: key(), account: ACCOUNT, media_buy_id: bought.media_buy_id, revision: 7, daily_budget_cap: 100 });
  assert.is(code(stalely), 'CONFLICT');
  const raise = await call('control_media_buy', { idempotency_key: key(), account: ACCOUNT, media_buy_id: bought.media_buy_id, revision: 1, total_budget: { amount: 90000, currency: 'USD' } });
  assert.equal([code(raise), raise.adcp_error.field], ['INVALID_STATE', 'total_budget'], 'raising spend changes the terms: a proposal, not a control');
  const capped = await call('control_media_buy', { idempotency_key: key(), account: ACCOUNT, media_buy_id: bought.media_buy_id, revision: 1, daily_budget_cap: 100 });
  assert.equal([capped.revision, capped.media_buy_status], [2, bought.media_buy_status]);
  // The facade reads and changes the same buy.
  const read = await call('get_media_buys', { account: ACCOUNT, media_buy_ids: [bought.media_buy_id] });
  assert.equal([read.media_buys[0].revision, read.media_buys[0].status], [2, bought.media_buy_status]);
  const renamed = await call('update_media_buy', { idempotency_key: key(), account: ACCOUNT, media_buy_id: bought.media_buy_id, revision: 2, name: 'Renamed through the facade' });
  assert.is(renamed.revision, 3);
  await agent.close();
});

test('proposals: a draft is finalized into a committed hold and accepted once; declined, expired, draft and unknown snapshots are refused as the spec names them — through accept_proposal and create_media_buy alike', async () => {
  const { agent, call } = await seller();
  const request = (brief: string) => call('request_proposals', { idempotency_key: key(), account: ACCOUNT, brief, criteria: { product_ids: ['run_of_site_display'] } });
  const draft = (await request('Plan a $50,000 display campaign from January 1 through March 31, 2099.')).proposals[0];
  assert.equal([draft.proposal_status, draft.commercial_terms.total_budget, draft.commercial_terms.purchases[0].start_time, draft.commercial_terms.end_time], ['draft', { amount: 50000, currency: 'USD' }, '2099-01-01T00:00:00.000Z', '2099-03-31T23:59:59.000Z']);
  const notCommitted = await call('accept_proposal', { idempotency_key: key(), account: ACCOUNT, proposal_id: draft.proposal_id, proposal_terms_digest: draft.terms_digest });
  assert.is(code(notCommitted), 'PROPOSAL_NOT_COMMITTED');
  const committed = (await call('refine_proposals', { idempotency_key: key(), refinements: [{ proposal_id: draft.proposal_id, action: 'finalize' }] })).results[0].proposal;
  assert.equal([committed.proposal_status, committed.parent_proposal_id], ['committed', draft.proposal_id]);
  assert.is(code(await call('accept_proposal', { idempotency_key: key(), account: ACCOUNT, proposal_id: committed.proposal_id, proposal_terms_digest: 'sha256:other' })), 'CONFLICT');
  assert.is(code(await call('accept_proposal', { idempotency_key: key(), account: ACCOUNT, proposal_id: committed.proposal_id, proposal_terms_digest: committed.terms_digest }, 'another-buyer')), 'PROPOSAL_NOT_FOUND', 'another buyer\'s proposal');
  assert.is(code(await call('refine_proposals', { idempotency_key: key(), refinements: [{ proposal_id: draft.proposal_id, action: 'revise', ask: 'more' }] }, 'another-buyer')), 'PROPOSAL_NOT_FOUND');
  assert.is(code(await call('refine_proposals', { idempotency_key: key(), refinements: [{ proposal_id: committed.proposal_id, action: 'finalize' }] })), 'INVALID_STATE', 'only a draft is finalized');
  assert.equal([committed.insertion_order.io_id, committed.insertion_order.requires_signature], [`io_${committed.proposal_id.slice(5)}`, false]);
  const otherIo = await call('accept_proposal', { idempotency_key: key(), account: ACCOUNT, proposal_id: committed.proposal_id, proposal_terms_digest: committed.terms_digest, io_acceptance: { io_id: 'io_other', accepted_at: '2026-01-01T00:00:00Z', signatory: 'ops' } });
  assert.equal([code(otherIo), otherIo.adcp_error.field], ['INVALID_REQUEST', 'io_acceptance.io_id']);
  const accepted = await call('accept_proposal', { idempotency_key: key(), account: ACCOUNT, proposal_id: committed.proposal_id, proposal_terms_digest: committed.terms_digest });
  assert.equal([accepted.status, accepted.accepted_proposal.proposal_id, accepted.accepted_proposal.terms_digest], ['completed', committed.proposal_id, committed.terms_digest]);
  assert.is(code(await call('accept_proposal', { idempotency_key: key(), account: ACCOUNT, proposal_id: committed.proposal_id, proposal_terms_digest: committed.terms_digest })), 'INVALID_STATE', 'accepted once');

  const declinedDraft = (await request('homepage')).proposals[0];
  const declinedHold = (await call('refine_proposals', { idempotency_key: key(), refinements: [{ proposal_id: declinedDraft.proposal_id, action: 'finalize' }] })).results[0].proposal;
  assert.equal((await call('decline_proposals', { idempotency_key: key(), declines: [{ proposal_id: declinedHold.proposal_id, reason: 'budget_changed' }] })).results, [{ proposal_id: declinedHold.proposal_id, outcome: 'declined' }]);
  const facade = (proposal_id: string) => call('create_media_buy', { idempotency_key: key(), account: ACCOUNT, brand: { domain: 'acme.example' }, proposal_id, total_budget: { amount: 1000, currency: 'USD' }, start_time: 'asap', end_time: '2099-03-31T23:59:59Z' });
  assert.is(code(await facade(declinedHold.proposal_id)), 'INVALID_STATE');
  assert.is(code(await call('refine_proposals', { idempotency_key: key(), refinements: [{ proposal_id: declinedHold.proposal_id, action: 'revise', ask: 'more video' }] })), 'INVALID_STATE', 'a declined snapshot has no successor');

  const expiring = (await call('refine_proposals', { idempotency_key: key(), refinements: [{ proposal_id: (await request('display')).proposals[0].proposal_id, action: 'finalize' }] })).results[0].proposal;
  const lapsed = await call('comply_test_controller', { scenario: 'compact_product_lifecycle_probe', account: { ...ACCOUNT, sandbox: true }, params: { operation: 'expire_proposal', proposal_id: expiring.proposal_id } });
  assert.equal([lapsed.success, lapsed.simulated.expiry_processed], [true, true]);
  assert.is(code(await call('accept_proposal', { idempotency_key: key(), account: ACCOUNT, proposal_id: expiring.proposal_id, proposal_terms_digest: expiring.terms_digest })), 'PROPOSAL_EXPIRED');
  assert.is(code(await facade(expiring.proposal_id)), 'PROPOSAL_EXPIRED', 'the facade keeps the expiry precise');
  assert.is(code(await facade('prop_unknown_proposal_not_found')), 'PROPOSAL_NOT_FOUND');

  // A committed proposal accepted through the facade makes the same buy accept_proposal makes.
  const viaFacade = (await call('refine_proposals', { idempotency_key: key(), refinements: [{ proposal_id: (await request('display')).proposals[0].proposal_id, action: 'finalize' }] })).results[0].proposal;
  const created = await facade(viaFacade.proposal_id);
  const readback = (await call('get_media_buys', { account: ACCOUNT, media_buy_ids: [created.media_buy_id] })).media_buys[0];
  assert.equal([readback.media_buy_id, readback.revision], [created.media_buy_id, 1]);
  await agent.close();
});

test('proposals through get_products: a brief\'s draft keeps its id while refined and finalized, and create_media_buy executes it with the request\'s budget and flight', async () => {
  const { agent, call } = await seller();
  const briefed = await call('get_products', { buying_mode: 'brief', brief: 'Premium display on the homepage, Q2 flight, $50K budget.', account: ACCOUNT });
  const [proposal] = briefed.proposals;
  assert.equal([proposal.proposal_status, proposal.total_budget_guidance], ['draft', { recommended: 50000, currency: 'USD' }]);
  assert.is(proposal.allocations.reduce((s: number, a: Body) => s + a.allocation_percentage, 0), 100);
  assert.ok(proposal.allocations.every((a: Body) => briefed.products.some((p: Body) => p.product_id === a.product_id)), 'the proposal buys products the answer lists');
  // Refined: an ask the seller can read (a budget), one it cannot (a channel it does not sell), one request-wide.
  const refined = await call('get_products', {
    buying_mode: 'refine',
    account: ACCOUNT,
    refine: [
      { scope: 'proposal', proposal_id: proposal.proposal_id, ask: 'Lower the budget to $40,000.' },
      { scope: 'request', ask: 'Frequency cap 3 per day.' },
    ],
  });
  assert.equal([refined.proposals[0].proposal_id, refined.proposals[0].total_budget_guidance.recommended], [proposal.proposal_id, 40000]);
  assert.equal(refined.refinement_applied.map((r: Body) => [r.scope, r.status]), [['proposal', 'applied'], ['request', 'unable']]);
  const unread = await call('get_products', { buying_mode: 'refine', account: ACCOUNT, refine: [{ scope: 'proposal', proposal_id: proposal.proposal_id, ask: 'Shift 60% of budget to CTV.' }] });
  assert.is(unread.refinement_applied[0].status, 'unable');
  const unknown = await call('get_products', { buying_mode: 'refine', account: ACCOUNT, refine: [{ scope: 'proposal', proposal_id: 'prop_nope', action: 'finalize' }] });
  assert.equal([code(unknown), unknown.adcp_error.field], ['PROPOSAL_NOT_FOUND', 'refine[0].proposal_id']);
  // Finalized: committed under the same id, with its hold and insertion order.
  const finalized = (await call('get_products', { buying_mode: 'refine', account: ACCOUNT, refine: [{ scope: 'proposal', proposal_id: proposal.proposal_id, action: 'finalize' }] })).proposals[0];
  assert.equal([finalized.proposal_id, finalized.proposal_status, finalized.total_budget_guidance.recommended], [proposal.proposal_id, 'committed', 40000]);
  assert.ok(finalized.insertion_order.io_id.startsWith('io_'));
  const again = await call('get_products', { buying_mode: 'refine', account: ACCOUNT, refine: [{ scope: 'proposal', proposal_id: proposal.proposal_id, action: 'finalize' }] });
  assert.is(code(again), 'INVALID_STATE', 'a committed proposal is not finalized twice');
  const create = (more: Body) => call('create_media_buy', { idempotency_key: key(), account: ACCOUNT, brand: { domain: 'acme.example' }, proposal_id: proposal.proposal_id, total_budget: { amount: 20000, currency: 'USD' }, start_time: 'asap', end_time: '2099-06-30T23:59:59Z', ...more });
  assert.is(code(await create({ io_acceptance: { io_id: 'io_someone_else', accepted_at: '2026-01-01T00:00:00Z', signatory: 'ops' } })), 'INVALID_REQUEST');
  const bought = await create({ io_acceptance: { io_id: finalized.insertion_order.io_id, accepted_at: '2026-01-01T00:00:00Z', signatory: 'ops' } });
  const read = (await call('get_media_buys', { account: ACCOUNT, media_buy_ids: [bought.media_buy_id] })).media_buys[0];
  assert.is(read.packages.reduce((s: number, p: Body) => s + p.budget, 0), 20000, 'executed with the request\'s budget');
  assert.is(read.end_time, '2099-06-30T23:59:59.000Z');
  assert.is(code(await create({})), 'INVALID_STATE', 'accepted once');
  await agent.close();
});

test.run();

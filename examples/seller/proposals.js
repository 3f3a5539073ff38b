// @ts-check
import { reject } from '../common/errors.js';
import { book, canonicalOffer, commercialTerms, proposalId, termsDigest } from './commitments.js';

/**
 * Proposal negotiation (AdCP 3.2: request_proposals, refine_proposals, decline_proposals, accept_proposal, and
 * create_media_buy with a `proposal_id`, the compatibility facade over the same proposals). Every proposal is an
 * immutable snapshot: a request makes a draft (indicative terms, nothing reserved, fresh for a day); refining makes a
 * successor — a revised draft, or, finalized, a committed hold on the inventory until `expires_at`; a decline ends a
 * snapshot for good; accepting a committed snapshot (its terms named by digest) makes the media buy. A snapshot may
 * only be acted on once and only while it is current: a declined one is INVALID_STATE, one past its hold
 * PROPOSAL_EXPIRED, a draft PROPOSAL_NOT_COMMITTED, and an id this buyer never received PROPOSAL_NOT_FOUND.
 *
 * A proposal belongs to the buyer agent it was issued to (the authenticated principal): refine_proposals and
 * decline_proposals name no account, and no other caller can see, refine, decline or accept it. It is executed under
 * whichever of that buyer's accounts accept_proposal or create_media_buy names. A committed snapshot carries an
 * insertion order (its summary terms; no signature required: accepting through the API is the acceptance), which an
 * `io_acceptance`, when given, must name.
 *
 * A brief names its products (`criteria.product_ids`) or is matched against the catalog; its budget and flight are
 * read from the brief where it states them ("$50,000", "$50K", "from January 1 through March 31, 2099", "Q2"), else
 * the seller proposes its defaults. get_products' proposals (proposal-facade.js) are the same snapshots.
 *
 * @typedef {{ proposal: Record<string, any>, account_id: string, principal: string | undefined, ended?: 'declined' | 'accepted' }} Held
 * @typedef {import('./accounts.js').Account} Account
 */

const DRAFT_TTL_MS = 24 * 3_600_000;
const HOLD_TTL_MS = 72 * 3_600_000;
const DEFAULT_BUDGET = 10_000;
const PUBLISHER = 'Reference publisher (adcp-codegen example)';
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** A budget a text states ("$50,000", "USD 1,000", "$75K", "$1.2M"), if any. */
export function budgetIn(/** @type {string} */ text) {
  const m = /(?:\$|USD\s?)([0-9][0-9,]*(?:\.\d+)?)\s*([km])?\b/i.exec(text);
  if (m === null) return undefined;
  const scale = m[2] === undefined ? 1 : m[2].toLowerCase() === 'k' ? 1_000 : 1_000_000;
  return Number(m[1]?.replace(/,/g, '')) * scale;
}

/** A flight a brief states ("from January 1 through March 31, 2099"; "Q2", the next one not yet begun), if any. */
function flightIn(/** @type {string} */ brief, /** @type {Date} */ now) {
  const q = /\bQ([1-4])(?:\s+(\d{4}))?\b/.exec(brief);
  const m = /from (\w+) (\d{1,2})(?:, (\d{4}))? (?:through|to|until) (\w+) (\d{1,2}), (\d{4})/i.exec(brief);
  if (m === null && q !== null) {
    const quarter = Number(q[1]) - 1;
    let year = q[2] !== undefined ? Number(q[2]) : now.getUTCFullYear();
    if (q[2] === undefined && Date.UTC(year, quarter * 3, 1) <= now.getTime()) year += 1;
    return { start_time: new Date(Date.UTC(year, quarter * 3, 1)).toISOString(), end_time: new Date(Date.UTC(year, quarter * 3 + 3, 0, 23, 59, 59)).toISOString() };
  }
  if (m === null) return undefined;
  const [, m1, d1, y1, m2, d2, y2] = m;
  const month = (/** @type {string} */ name) => MONTHS.indexOf(name.toLowerCase());
  if (month(m1 ?? '') < 0 || month(m2 ?? '') < 0) return undefined;
  const start = Date.UTC(Number(y1 ?? y2), month(m1 ?? ''), Number(d1));
  const end = Date.UTC(Number(y2), month(m2 ?? ''), Number(d2), 23, 59, 59);
  return { start_time: new Date(start).toISOString(), end_time: new Date(end).toISOString() };
}

/** The products sharing the first one's currency (one commitment has one currency). */
function sameCurrency(/** @type {import('./catalog.js').Product[]} */ products) {
  const currency = (/** @type {import('./catalog.js').Product} */ p) => p.pricing_options[0]?.currency ?? 'USD';
  return products.filter((p) => currency(p) === currency(products[0] ?? p));
}

/**
 * @param {{ accounts: ReturnType<typeof import('./accounts.js').createAccounts>, catalog: import('./catalog.js').Catalog,
 *   mediaBuys: ReturnType<typeof import('./media-buys.js').createMediaBuys>, now: () => Date }} deps
 */
export function createProposals(deps) {
  const { accounts, catalog, now } = deps;
  /** @type {Map<string, Held>} */
  const held = new Map();
  /** The products proposals buy, as the offers they are (the buyer need not list them again). */
  const offers = (/** @type {Record<string, any>[]} */ proposals) =>
    [...new Set(proposals.flatMap((p) => p.commercial_terms.purchases.map((/** @type {{ product_id: string }} */ x) => x.product_id)))].map((id) => canonicalOffer(catalog, catalog.product(id, 'proposal'), '3.2'));

  /** A snapshot issued to `principal` (another buyer's is never found), as the caller names it at `field`. */
  const find = (/** @type {string} */ id, /** @type {string | undefined} */ principal, /** @type {string} */ field = 'proposal_id') => {
    const h = held.get(id);
    if (h === undefined || h.principal !== principal) return reject('PROPOSAL_NOT_FOUND', 'No proposal with this id was issued to this buyer', { field, recovery: 'correctable' });
    return h;
  };
  /** Refuses a snapshot that cannot be acted on any more. */
  const current = (/** @type {Held} */ h, /** @type {string} */ field) => {
    if (h.ended !== undefined) reject('INVALID_STATE', `The proposal was ${h.ended}; it cannot be acted on`, { field, details: { proposal_status: h.proposal.proposal_status } });
    if (Date.parse(h.proposal.expires_at) <= now().getTime()) reject('PROPOSAL_EXPIRED', 'The proposal is past its expires_at', { field, recovery: 'correctable' });
  };

  /** Refuses to finalize anything but a draft: a committed snapshot already holds its inventory. */
  const finalizable = (/** @type {Held} */ h, /** @type {string} */ field) => {
    if (h.proposal.proposal_status !== 'draft') reject('INVALID_STATE', `Only a draft is finalized; this proposal is ${h.proposal.proposal_status}`, { field, details: { proposal_status: h.proposal.proposal_status } });
  };

  /** Keeps a new snapshot. */
  const keep = (/** @type {{ account_id: string }} */ account, /** @type {string | undefined} */ principal, /** @type {Record<string, any>} */ proposal) => {
    held.set(proposal.proposal_id, { proposal, account_id: account.account_id, principal });
    return proposal;
  };

  /** A snapshot of terms: its status, lineage and deadline; a committed one, its insertion order. */
  const snapshot = (/** @type {Record<string, any>} */ terms, /** @type {string} */ status, /** @type {Record<string, any>} */ more) => {
    const id = proposalId();
    const expires = new Date(now().getTime() + (status === 'committed' ? HOLD_TTL_MS : DRAFT_TTL_MS)).toISOString();
    const io = {
      io_id: `io_${id.slice('prop_'.length)}`,
      requires_signature: false,
      terms: { advertiser: terms.brand.domain, publisher: PUBLISHER, total_budget: terms.total_budget, flight_start: terms.purchases[0]?.start_time, flight_end: terms.end_time, payment_terms: 'net_30' },
    };
    return {
      proposal_id: id,
      proposal_kind: 'new_media_buy',
      proposal_status: status,
      expires_at: expires,
      ...more,
      commercial_terms: terms,
      terms_digest: termsDigest(terms),
      ...(status === 'committed' ? { insertion_order: io } : {}),
    };
  };

  /**
   * A draft for a brief: the products it names, else those the catalog matches (`candidates`, when the caller has
   * already chosen them), at most three sharing one currency, the budget split evenly.
   * @param {Account} account
   * @param {string | undefined} principal
   * @param {{ brief: string, product_ids?: string[], candidates?: import('./catalog.js').Product[], brand?: { domain: string }, focused?: boolean }} req
   *   `focused`: the alternative plan — 70% of the budget on the first product (front-loaded pacing when there is one).
   * @param {string} field where the products are named in the request
   */
  const draft = (account, principal, req, field) => {
    const chosen = req.product_ids !== undefined ? req.product_ids.map((id, i) => catalog.product(id, `${field}[${i}]`)) : sameCurrency(req.candidates ?? catalog.matching(req.brief)).slice(0, 3);
    if (chosen.length === 0) return undefined;
    const budget = budgetIn(req.brief) ?? DEFAULT_BUDGET;
    const flight = flightIn(req.brief, now()) ?? { start_time: 'asap', end_time: new Date(now().getTime() + 30 * 86_400_000).toISOString() };
    const share = (/** @type {number} */ i) => (req.focused !== true || chosen.length === 1 ? 1 / chosen.length : i === 0 ? 0.7 : 0.3 / (chosen.length - 1));
    const purchases = chosen.map((product, i) => ({
      product_id: product.product_id,
      pricing_option_id: product.pricing_options[0]?.pricing_option_id ?? 'default',
      budget: Math.round(budget * share(i) * 100) / 100,
      ...(req.focused === true && chosen.length === 1 ? { pacing: 'front_loaded' } : {}),
    }));
    const brand = req.brand ?? account.brand;
    const terms = commercialTerms(deps, { brand: { domain: brand.domain }, purchases, ...flight }, field);
    const name = req.focused === true ? `Focused proposal for ${brand.domain}` : `Proposal for ${brand.domain}`;
    return keep(account, principal, snapshot(terms, 'draft', { name, brief_alignment: `Built from the brief: ${String(req.brief).slice(0, 200)}` }));
  };

  /** The successor of a current snapshot: revised (`terms`, else its own) or, finalized, a committed hold. */
  const succeed = (/** @type {Held} */ h, /** @type {boolean} */ finalize, /** @type {Record<string, any> | undefined} */ terms = undefined) => {
    const parent = h.proposal;
    const next = snapshot(terms ?? parent.commercial_terms, finalize ? 'committed' : 'draft', { name: parent.name, parent_proposal_id: parent.proposal_id, ...(parent.brief_alignment !== undefined ? { brief_alignment: parent.brief_alignment } : {}) });
    return keep({ account_id: h.account_id }, h.principal, next);
  };

  /**
   * Accepts a committed snapshot under one of the caller's accounts: the media buy it describes, executed with the
   * caller's budget and flight where it states them (commitments.js `book`).
   * @param {Account} account
   * @param {string | undefined} principal
   * @param {string} id
   * @param {{ digest?: string, io_acceptance?: { io_id?: string }, total_budget?: { amount: number, currency: string }, start_time?: string, end_time?: string }} [execution]
   */
  const accept = (account, principal, id, execution = {}) => {
    const h = find(id, principal);
    current(h, 'proposal_id');
    if (h.proposal.proposal_status !== 'committed') reject('PROPOSAL_NOT_COMMITTED', 'A draft is indicative: finalize it (refine_proposals, action finalize) before accepting', { field: 'proposal_id' });
    if (execution.digest !== undefined && execution.digest !== h.proposal.terms_digest) reject('CONFLICT', 'proposal_terms_digest does not match the committed terms; re-read the proposal', { field: 'proposal_terms_digest' });
    if (execution.io_acceptance !== undefined && execution.io_acceptance.io_id !== h.proposal.insertion_order?.io_id) reject('INVALID_REQUEST', "io_acceptance names another insertion order than the proposal's", { field: 'io_acceptance.io_id' });
    accounts.requireActive(account);
    const committed = book(deps, account, h.proposal, execution);
    h.ended = 'accepted';
    return committed;
  };

  return {
    /** Marks a committed hold lapsed now (the compliance controller's expire_proposal): its expires_at has passed. */
    expire(/** @type {string} */ id) {
      const h = held.get(id);
      if (h === undefined) return undefined;
      const target = new Date(now().getTime() - 1000).toISOString();
      h.proposal = { ...h.proposal, expires_at: target };
      return target;
    },
    accept,
    find,
    current,
    finalizable,
    draft,
    succeed,
    handlers: {
      request_proposals: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const account = accounts.resolve(args.account, ctx.principal);
        const proposal = draft(account, ctx.principal, { brief: args.brief, product_ids: args.criteria?.product_ids, brand: args.brand ?? args.account?.brand }, 'criteria.product_ids');
        if (proposal === undefined) return { outcome: 'no_proposals', reason: 'No product in this catalog answers the brief', suggestions: ['Name products in criteria.product_ids'] };
        // The products the proposal buys, as the offers they are (the buyer need not list them again).
        return { outcome: 'proposed', proposals: [proposal], products: offers([proposal]) };
      },
      refine_proposals: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        // Check every refinement before making any successor: a finalize batch holds everything or nothing, and
        // finalizes nothing else.
        const finalizing = args.refinements.some((/** @type {Record<string, any>} */ r) => r.action === 'finalize');
        const mixed = finalizing ? args.refinements.findIndex((/** @type {Record<string, any>} */ r) => r.action !== 'finalize') : -1;
        if (mixed >= 0) reject('INVALID_REQUEST', 'A finalize batch finalizes every proposal it names: revise in a call of its own', { field: `refinements[${mixed}].action` });
        const sources = args.refinements.map((/** @type {Record<string, any>} */ r, /** @type {number} */ i) => {
          const h = find(r.proposal_id, ctx.principal, `refinements[${i}].proposal_id`);
          current(h, `refinements[${i}].proposal_id`);
          if (r.action === 'finalize') finalizable(h, `refinements[${i}].proposal_id`);
          return { h, r };
        });
        const results = sources.map((/** @type {{ h: Held, r: Record<string, any> }} */ { h, r }) => {
          const parent = h.proposal;
          const budget = typeof r.ask === 'string' ? budgetIn(r.ask) : undefined;
          const terms = budget === undefined ? undefined : { ...parent.commercial_terms, total_budget: { ...parent.commercial_terms.total_budget, amount: budget } };
          const finalize = r.action === 'finalize';
          const successor = succeed(h, finalize, terms);
          return finalize ? { source_proposal_id: parent.proposal_id, outcome: 'finalized', proposal: successor } : { source_proposal_id: parent.proposal_id, outcome: 'revised', proposals: [successor] };
        });
        return { results, products: offers(results.flatMap((/** @type {Record<string, any>} */ x) => x.proposal ?? x.proposals)) };
      },
      decline_proposals: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const found = args.declines.map((/** @type {Record<string, any>} */ d, /** @type {number} */ i) => find(d.proposal_id, ctx.principal, `declines[${i}].proposal_id`));
        return {
          results: found.map((/** @type {Held} */ h) => {
            if (h.ended === 'accepted') return { proposal_id: h.proposal.proposal_id, outcome: 'unable', reason: 'The proposal was accepted; amend or cancel the media buy instead' };
            h.ended = 'declined';
            return { proposal_id: h.proposal.proposal_id, outcome: 'declined' };
          }),
        };
      },
      accept_proposal: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) =>
        accept(accounts.resolve(args.account, ctx.principal), ctx.principal, args.proposal_id, { digest: args.proposal_terms_digest, io_acceptance: args.io_acceptance, total_budget: args.total_budget }),
    },
  };
}

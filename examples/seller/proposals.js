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
 * PROPOSAL_EXPIRED, a draft PROPOSAL_NOT_COMMITTED, and an id this account never received PROPOSAL_NOT_FOUND.
 *
 * A brief names its products (`criteria.product_ids`) or is matched against the catalog; its budget and flight are
 * read from the brief where it states them ("$50,000", "from January 1 through March 31, 2099"), else the seller
 * proposes its defaults.
 *
 * @typedef {{ proposal: Record<string, any>, account_id: string, ended?: 'declined' | 'accepted' }} Held
 * @typedef {import('./accounts.js').Account} Account
 */

const DRAFT_TTL_MS = 24 * 3_600_000;
const HOLD_TTL_MS = 72 * 3_600_000;
const DEFAULT_BUDGET = 10_000;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** A budget a brief states ("$50,000", "USD 1,000"), if any. */
function budgetIn(/** @type {string} */ brief) {
  const m = /(?:\$|USD\s?)([0-9][0-9,]*(?:\.\d+)?)/i.exec(brief);
  return m === null ? undefined : Number(m[1]?.replace(/,/g, ''));
}

/** A flight a brief states ("from January 1 through March 31, 2099"), if any. */
function flightIn(/** @type {string} */ brief) {
  const m = /from (\w+) (\d{1,2})(?:, (\d{4}))? (?:through|to|until) (\w+) (\d{1,2}), (\d{4})/i.exec(brief);
  if (m === null) return undefined;
  const [, m1, d1, y1, m2, d2, y2] = m;
  const month = (/** @type {string} */ name) => MONTHS.indexOf(name.toLowerCase());
  if (month(m1 ?? '') < 0 || month(m2 ?? '') < 0) return undefined;
  const start = Date.UTC(Number(y1 ?? y2), month(m1 ?? ''), Number(d1));
  const end = Date.UTC(Number(y2), month(m2 ?? ''), Number(d2), 23, 59, 59);
  return { start_time: new Date(start).toISOString(), end_time: new Date(end).toISOString() };
}

/**
 * @param {{ accounts: ReturnType<typeof import('./accounts.js').createAccounts>, catalog: import('./catalog.js').Catalog,
 *   mediaBuys: ReturnType<typeof import('./media-buys.js').createMediaBuys>, now: () => Date }} deps
 */
export function createProposals(deps) {
  const { accounts, catalog, now } = deps;
  /** @type {Map<string, Held>} */
  const held = new Map();

  /** A snapshot for `account` (a proposal of another account is never found), its current standing checked. */
  const find = (/** @type {string} */ id, /** @type {Account | undefined} */ account, /** @type {string} */ field = 'proposal_id') => {
    const h = held.get(id);
    if (h === undefined || (account !== undefined && h.account_id !== account.account_id)) return reject('PROPOSAL_NOT_FOUND', 'No proposal with this id for this account', { field });
    return h;
  };
  /** Refuses a snapshot that cannot be acted on any more. */
  const current = (/** @type {Held} */ h, /** @type {string} */ field) => {
    if (h.ended !== undefined) reject('INVALID_STATE', `The proposal was ${h.ended}; it cannot be acted on`, { field, details: { proposal_status: h.proposal.proposal_status } });
    if (Date.parse(h.proposal.expires_at) <= now().getTime()) reject('PROPOSAL_EXPIRED', 'The proposal is past its expires_at', { field, recovery: 'correctable' });
  };

  /** Keeps a new snapshot. */
  const keep = (/** @type {Account | { account_id: string }} */ account, /** @type {Record<string, any>} */ proposal) => {
    held.set(proposal.proposal_id, { proposal, account_id: account.account_id });
    return proposal;
  };

  /** A snapshot of terms: its status, lineage and deadline. */
  const snapshot = (/** @type {Record<string, any>} */ terms, /** @type {string} */ status, /** @type {Record<string, any>} */ more) => ({
    proposal_id: proposalId(),
    proposal_kind: 'new_media_buy',
    proposal_status: status,
    expires_at: new Date(now().getTime() + (status === 'committed' ? HOLD_TTL_MS : DRAFT_TTL_MS)).toISOString(),
    ...more,
    commercial_terms: terms,
    terms_digest: termsDigest(terms),
  });

  /** Accepts a committed snapshot: the media buy it describes. */
  const accept = (/** @type {Account} */ account, /** @type {string} */ id, /** @type {string | undefined} */ digest) => {
    const h = find(id, account);
    current(h, 'proposal_id');
    if (h.proposal.proposal_status !== 'committed') reject('PROPOSAL_NOT_COMMITTED', 'A draft is indicative: finalize it (refine_proposals, action finalize) before accepting', { field: 'proposal_id' });
    if (digest !== undefined && digest !== h.proposal.terms_digest) reject('CONFLICT', 'proposal_terms_digest does not match the committed terms; re-read the proposal', { field: 'proposal_terms_digest' });
    accounts.requireActive(account);
    const committed = book(deps, account, h.proposal);
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
    handlers: {
      request_proposals: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const account = accounts.resolve(args.account, ctx.principal);
        const ids = args.criteria?.product_ids ?? catalog.matching(args.brief).map((p) => p.product_id);
        if (ids.length === 0) return { outcome: 'no_proposals', reason: 'No product in this catalog answers the brief', suggestions: ['Name products in criteria.product_ids'] };
        const budget = budgetIn(args.brief) ?? DEFAULT_BUDGET;
        const flight = flightIn(args.brief) ?? { start_time: 'asap', end_time: new Date(now().getTime() + 30 * 86_400_000).toISOString() };
        const purchases = ids.map((/** @type {string} */ product_id) => {
          const product = catalog.product(product_id, 'criteria.product_ids');
          return { product_id, pricing_option_id: product.pricing_options[0]?.pricing_option_id ?? 'default', budget: Math.round((budget / ids.length) * 100) / 100 };
        });
        const brand = args.brand ?? args.account?.brand ?? account.brand;
        const terms = commercialTerms(deps, { brand: { domain: brand.domain }, purchases, ...flight }, 'criteria.product_ids');
        const proposal = keep(account, snapshot(terms, 'draft', { name: `Proposal for ${brand.domain}`, brief_alignment: `Built from the brief: ${String(args.brief).slice(0, 200)}` }));
        // The products the proposal buys, as the offers they are (the buyer need not list them again).
        return { outcome: 'proposed', proposals: [proposal], products: ids.map((/** @type {string} */ id) => canonicalOffer(catalog, catalog.product(id, 'criteria.product_ids'), '3.2')) };
      },
      refine_proposals: (/** @type {Record<string, any>} */ args) => {
        const offers = (/** @type {Record<string, any>[]} */ proposals) => [...new Set(proposals.flatMap((p) => p.commercial_terms.purchases.map((/** @type {{ product_id: string }} */ x) => x.product_id)))].map((id) => canonicalOffer(catalog, catalog.product(id, 'refinements'), '3.2'));
        // Check every refinement before making any successor: a finalize batch holds everything or nothing.
        const sources = args.refinements.map((/** @type {Record<string, any>} */ r, /** @type {number} */ i) => {
          const h = find(r.proposal_id, undefined, `refinements[${i}].proposal_id`);
          current(h, `refinements[${i}].proposal_id`);
          return { h, r };
        });
        const results = sources.map((/** @type {{ h: Held, r: Record<string, any> }} */ { h, r }) => {
            const parent = h.proposal;
            const budget = typeof r.ask === 'string' ? budgetIn(r.ask) : undefined;
            const terms = budget === undefined ? parent.commercial_terms : { ...parent.commercial_terms, total_budget: { ...parent.commercial_terms.total_budget, amount: budget } };
            const finalize = r.action === 'finalize';
            const successor = keep({ account_id: h.account_id }, snapshot(terms, finalize ? 'committed' : 'draft', { name: parent.name, parent_proposal_id: parent.proposal_id, ...(parent.brief_alignment !== undefined ? { brief_alignment: parent.brief_alignment } : {}) }));
            return finalize ? { source_proposal_id: parent.proposal_id, outcome: 'finalized', proposal: successor } : { source_proposal_id: parent.proposal_id, outcome: 'revised', proposals: [successor] };
        });
        return { results, products: offers(results.flatMap((/** @type {Record<string, any>} */ x) => x.proposal ?? x.proposals)) };
      },
      decline_proposals: (/** @type {Record<string, any>} */ args) => {
        const found = args.declines.map((/** @type {Record<string, any>} */ d, /** @type {number} */ i) => find(d.proposal_id, undefined, `declines[${i}].proposal_id`));
        return {
          results: found.map((/** @type {Held} */ h) => {
            if (h.ended === 'accepted') return { proposal_id: h.proposal.proposal_id, outcome: 'unable', reason: 'The proposal was accepted; amend or cancel the media buy instead' };
            h.ended = 'declined';
            return { proposal_id: h.proposal.proposal_id, outcome: 'declined' };
          }),
        };
      },
      accept_proposal: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => accept(accounts.resolve(args.account, ctx.principal), args.proposal_id, args.proposal_terms_digest),
    },
  };
}

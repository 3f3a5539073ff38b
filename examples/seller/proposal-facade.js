// @ts-check
import { reject } from '../common/errors.js';
import { budgetIn } from './proposals.js';

/**
 * Proposals through the 3.x compatibility facades (get_products and create_media_buy), for a seller declaring
 * `media_buy.supports_proposals`: the same snapshots as request_proposals and refine_proposals (proposals.js), shown
 * in core/proposal.json's shape. A facade proposal keeps the id get_products first gave it while its lineage moves
 * on: refining it (`buying_mode: "refine"`, scope `proposal`) makes a successor snapshot, finalizing it a committed
 * hold with an insertion order, and create_media_buy with that id accepts the lineage's current snapshot. The compact
 * tools see the same snapshots under their own ids (the first one is the facade's id).
 *
 * A brief is answered with two plans over what the brief names among the products get_products returns (at most
 * three, one currency), at the budget and flight the brief states: the budget spread evenly, and focused on the best
 * match. A finalize request finalizes proposals only, all of them atomically. A refinement's `ask` is applied where this seller can read it — a budget
 * ("budget to $60K"), dropping a channel ("drop the display product"), shifting a share of the budget to a channel
 * ("shift 60% of budget to video") — and answered `unable` with the reason where it cannot; a request-scope ask is
 * acknowledged, not acted on.
 *
 * @typedef {import('./accounts.js').Account} Account
 * @typedef {ReturnType<typeof import('./proposals.js').createProposals>} Proposals
 */

/** A channel a refinement's prose names, as AdCP's channel enum spells it. */
const CHANNEL_WORDS = /** @type {[RegExp, string][]} */ ([
  [/\bctv\b|connected tv/i, 'ctv'],
  [/\bvideo\b|\bolv\b/i, 'olv'],
  [/\bdisplay\b/i, 'display'],
  [/\baudio\b|podcast/i, 'streaming_audio'],
  [/\bnative\b/i, 'native'],
  [/\bsocial\b/i, 'social'],
]);

/**
 * @param {{ proposals: Proposals, catalog: import('./catalog.js').Catalog }} deps
 */
export function createProposalFacade({ proposals, catalog }) {
  /** @type {Map<string, string>} a facade id → the current snapshot of its lineage */
  const heads = new Map();

  /** The lineage's current snapshot, as the caller named it at `field`. */
  const head = (/** @type {string} */ id, /** @type {string | undefined} */ principal, /** @type {string} */ field) => proposals.find(heads.get(id) ?? id, principal, field);

  /** A snapshot as core/proposal.json shows it, under its facade id: fixed allocations summing to 100. */
  const view = (/** @type {string} */ id, /** @type {Record<string, any>} */ p) => {
    const terms = p.commercial_terms;
    const total = terms.purchases.reduce((/** @type {number} */ s, /** @type {{ budget: number }} */ x) => s + x.budget, 0);
    const shares = terms.purchases.map((/** @type {{ budget: number }} */ x) => Math.round((x.budget / total) * 10_000) / 100);
    shares[shares.length - 1] = Math.round((100 - shares.slice(0, -1).reduce((/** @type {number} */ s, /** @type {number} */ x) => s + x, 0)) * 100) / 100;
    return {
      proposal_id: id,
      name: p.name,
      description: `${terms.purchases.length} product(s), ${terms.total_budget.currency} ${terms.total_budget.amount}, ${terms.purchases[0].start_time.slice(0, 10)} to ${terms.end_time.slice(0, 10)}`,
      allocations: terms.purchases.map((/** @type {Record<string, any>} */ x, /** @type {number} */ i) => ({ product_id: x.product_id, pricing_option_id: x.pricing_option_id, allocation_percentage: shares[i] })),
      proposal_status: p.proposal_status,
      expires_at: p.expires_at,
      total_budget_guidance: { recommended: terms.total_budget.amount, currency: terms.total_budget.currency },
      ...(p.brief_alignment !== undefined ? { brief_alignment: p.brief_alignment } : {}),
      ...(p.insertion_order !== undefined ? { insertion_order: p.insertion_order } : {}),
    };
  };

  /**
   * Terms revised as an ask reads, or the reason it cannot be read.
   * @returns {{ terms?: Record<string, any>, applied: string[], unable: string[] }}
   */
  const revise = (/** @type {Record<string, any>} */ terms, /** @type {string} */ ask) => {
    /** @type {string[]} */ const applied = [];
    /** @type {string[]} */ const unable = [];
    /** @type {Record<string, any>[]} */
    let purchases = terms.purchases.map((/** @type {Record<string, any>} */ x) => ({ ...x }));
    let total = terms.total_budget.amount;
    const channelsOf = (/** @type {Record<string, any>} */ x) => catalog.product(x.product_id, 'refine').channels;
    const budget = /\bbudget\b[^.]*?(?:to|of)\s+(?:\$|USD\s?)/i.test(ask) ? budgetIn(ask) : undefined;
    if (budget !== undefined) {
      total = budget;
      applied.push(`total budget ${terms.total_budget.currency} ${budget}`);
    }
    for (const [, word] of [...ask.matchAll(/\b(?:drop|omit|remove)\s+(?:the\s+)?(\w+)/gi)]) {
      const channel = CHANNEL_WORDS.find(([re]) => re.test(word ?? ''))?.[1];
      const kept = channel === undefined ? purchases : purchases.filter((x) => !channelsOf(x).includes(channel));
      if (channel === undefined) unable.push(`"${word}" names no channel this seller sells`);
      else if (kept.length === purchases.length) unable.push(`the proposal buys no ${channel} product`);
      else if (kept.length === 0) unable.push(`dropping ${channel} would leave the proposal empty`);
      else {
        purchases = kept;
        applied.push(`${channel} dropped`);
      }
    }
    for (const [, share, target] of [...ask.matchAll(/\bshift\s+(\d{1,3})%\s+(?:of\s+(?:the\s+)?budget\s+)?to\s+(\w+)/gi)]) {
      const channel = CHANNEL_WORDS.find(([re]) => re.test(target ?? ''))?.[1];
      const into = channel === undefined ? [] : purchases.filter((x) => channelsOf(x).includes(channel));
      if (into.length === 0 || into.length === purchases.length) unable.push(`the proposal has no ${channel ?? target} product to shift budget to beside others`);
      else {
        const weight = Number(share) / 100;
        purchases = purchases.map((x) => ({ ...x, share: into.includes(x) ? weight / into.length : (1 - weight) / (purchases.length - into.length) }));
        applied.push(`${share}% to ${channel}`);
      }
    }
    if (applied.length === 0) return { applied, unable: unable.length > 0 ? unable : ['this seller re-prices proposals by budget, channel drops and channel shares; it could not read this ask'] };
    // Budgets follow the shares (even where none were stated), summing to the total.
    const sum = purchases.reduce((/** @type {number} */ s, /** @type {Record<string, any>} */ x) => s + (x.share ?? x.budget), 0);
    const next = purchases.map(({ share, ...x }) => ({ ...x, budget: Math.round((((share ?? x.budget) / sum) * total) * 100) / 100 }));
    return { terms: { ...terms, purchases: next, total_budget: { ...terms.total_budget, amount: total } }, applied, unable };
  };

  return {
    /**
     * get_products in brief mode: a draft over what the brief names among the products returned.
     * @param {Account} account
     * @param {string | undefined} principal
     * @param {Record<string, any>} args
     * @param {import('./catalog.js').Product[]} listed
     */
    brief(account, principal, args, listed) {
      const named = new Set(catalog.matching(args.brief).map((p) => p.product_id));
      const candidates = listed.filter((p) => named.has(p.product_id));
      // Two plans over the same products: the budget spread evenly, and focused on the best match.
      return [false, true].flatMap((focused) => {
        const p = proposals.draft(account, principal, { brief: args.brief, candidates: candidates.length > 0 ? candidates : listed, brand: args.brand, focused }, 'brief');
        if (p === undefined) return [];
        heads.set(p.proposal_id, p.proposal_id);
        return [view(p.proposal_id, p)];
      });
    },

    /**
     * get_products in refine mode: each entry answered in refinement_applied, by position; the proposals refined
     * (their successors under the facade ids) and the products they and the product entries name.
     * @param {string | undefined} principal
     * @param {Record<string, any>[]} refine
     */
    refine(principal, refine) {
      // A finalize batch finalizes proposals and nothing else (refine_finalize_exclusivity), every one or none: each
      // proposal named is checked before any successor is made.
      if (refine.some((r) => r.action === 'finalize')) {
        const other = refine.findIndex((r) => r.scope !== 'proposal' || r.action !== 'finalize');
        if (other >= 0) reject('INVALID_REQUEST', 'A finalize request finalizes proposals only: send other refinements in a call of their own', { field: `refine[${other}]` });
      }
      const named = refine.map((r, i) => {
        if (r.scope !== 'proposal') return undefined;
        const h = head(r.proposal_id, principal, `refine[${i}].proposal_id`);
        proposals.current(h, `refine[${i}].proposal_id`);
        if (r.action === 'finalize') proposals.finalizable(h, `refine[${i}].proposal_id`);
        return h;
      });
      /** @type {Map<string, Record<string, any>>} */ const shown = new Map();
      /** @type {Set<string>} */ const omitted = new Set();
      const applied = refine.map((r, i) => {
        if (r.scope === 'request') return { scope: 'request', status: 'unable', notes: 'Request-wide asks are noted for the account team; this seller refines by proposal and product.' };
        if (r.scope === 'product') {
          if (r.action === 'omit') omitted.add(r.product_id);
          return { scope: 'product', product_id: r.product_id, status: r.action === 'more_like_this' ? 'partial' : 'applied', ...(r.action === 'more_like_this' ? { notes: 'The product is returned; similar products are those get_products lists for the same filters.' } : {}) };
        }
        const h = /** @type {import('./proposals.js').Held} */ (named[i]);
        if (r.action === 'omit') {
          omitted.add(`proposal:${r.proposal_id}`);
          return { scope: 'proposal', proposal_id: r.proposal_id, status: 'applied' };
        }
        const revised = typeof r.ask === 'string' ? revise(h.proposal.commercial_terms, r.ask) : { applied: [], unable: [] };
        const finalize = r.action === 'finalize';
        const successor = revised.terms !== undefined || finalize ? proposals.succeed(h, finalize, revised.terms) : h.proposal;
        heads.set(r.proposal_id, successor.proposal_id);
        shown.set(r.proposal_id, successor);
        const status = revised.unable.length === 0 ? 'applied' : revised.applied.length > 0 || finalize ? 'partial' : 'unable';
        const notes = [...(finalize ? [`committed: firm pricing, inventory held until ${successor.expires_at}`] : []), ...revised.applied, ...revised.unable].join('; ');
        return { scope: 'proposal', proposal_id: r.proposal_id, status, ...(notes !== '' ? { notes } : {}) };
      });
      const views = [...shown].filter(([id]) => !omitted.has(`proposal:${id}`)).map(([id, p]) => view(id, p));
      const productIds = new Set([
        ...refine.filter((r) => r.scope === 'product' && r.action !== 'omit').map((r) => String(r.product_id)),
        ...views.flatMap((v) => v.allocations.map((/** @type {{ product_id: string }} */ a) => a.product_id)),
      ]);
      return { proposals: views, productIds: [...productIds].filter((id) => !omitted.has(id)), applied };
    },

    /**
     * create_media_buy with a proposal_id: accepts the lineage's current snapshot under the caller's account.
     * @param {Account} account
     * @param {string | undefined} principal
     * @param {Record<string, any>} args
     */
    accept(account, principal, args) {
      if (args.proposal_id === undefined) return reject('INVALID_REQUEST', 'proposal_id is required', { field: 'proposal_id' });
      const id = heads.get(args.proposal_id) ?? args.proposal_id;
      return proposals.accept(account, principal, id, { io_acceptance: args.io_acceptance, total_budget: args.total_budget, start_time: args.start_time, end_time: args.end_time });
    },
  };
}

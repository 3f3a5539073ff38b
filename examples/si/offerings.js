// @ts-check
import { randomUUID } from 'node:crypto';
import { declare, priceOf } from './brand.js';
import { productsFor } from './conversation.js';

/**
 * si_get_offering: what a host may promote before it hands a user over — an offering's title, summary and landing
 * page, whether it is still available, and (asked for) the brand's products matching the user's intent. The answer
 * carries an `offering_token` the host passes to si_initiate_session, so the brand recalls what the user was shown;
 * tokens live as long as the answer's `ttl_seconds`. An offering this brand does not have, or one past its end, is
 * answered unavailable with the brand's others as alternatives.
 */

const TTL_SECONDS = 900;

/** @param {{ brand: import('./brand.js').Brand, agentUrl: string, now: () => Date }} deps */
export function createOfferings({ brand, agentUrl, now }) {
  /** @type {Map<string, { offering_id: string, product_ids: string[], expires: number }>} */
  const tokens = new Map();

  return {
    /** The offering a token was issued for, while it is valid. */
    resolve(/** @type {string} */ token) {
      const t = tokens.get(token);
      return t !== undefined && t.expires > now().getTime() ? t : undefined;
    },
    handlers: {
      si_get_offering: (/** @type {Record<string, any>} */ args) => {
        const at = now();
        const offering = brand.offerings.find((o) => o.offering_id === args.offering_id);
        const others = brand.offerings.filter((o) => o.offering_id !== args.offering_id && Date.parse(o.expires_at) > at.getTime()).map((o) => o.offering_id);
        if (offering === undefined || Date.parse(offering.expires_at) <= at.getTime()) {
          return { available: false, unavailable_reason: offering === undefined ? 'not_found' : 'expired', checked_at: at.toISOString(), ...(others.length > 0 ? { alternative_offering_ids: others } : {}) };
        }
        const inOffering = brand.products.filter((p) => offering.product_ids.includes(p.product_id));
        const matching = (typeof args.intent === 'string' ? productsFor({ ...brand, products: inOffering }, args.intent) : []).concat(inOffering).filter((p, i, all) => all.indexOf(p) === i);
        const shown = args.include_products === true ? matching.slice(0, args.product_limit ?? 5) : [];
        const token = `ofr_${randomUUID()}`;
        tokens.set(token, { offering_id: offering.offering_id, product_ids: shown.map((p) => p.product_id), expires: at.getTime() + TTL_SECONDS * 1000 });
        return {
          available: true,
          offering_token: token,
          ttl_seconds: TTL_SECONDS,
          checked_at: at.toISOString(),
          offering: { offering_id: offering.offering_id, title: offering.title, summary: offering.summary, tagline: offering.tagline, expires_at: offering.expires_at, availability_status: 'available', landing_url: offering.landing_url },
          ...(args.include_products === true
            ? {
                matching_products: shown.map((p) => ({ product_id: p.product_id, name: p.name, price: priceOf(p), availability_summary: p.in_stock ? 'In stock' : 'Out of stock', availability_status: p.in_stock ? 'available' : 'sold_out' })),
                total_matching: matching.length,
              }
            : {}),
          sponsored_context: declare(brand, agentUrl, at),
        };
      },
    },
  };
}

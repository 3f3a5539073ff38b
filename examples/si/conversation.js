// @ts-check
import { priceOf } from './brand.js';

/**
 * The brand's side of a conversation: each user message is answered from the brand's product knowledge — the
 * products sharing the most terms with what the user asked, their price and availability — and a message that asks
 * to buy a product in stock turns the session toward a transaction handoff. This is the seam where a team puts its
 * model: the reply must stay within what the brand knows and declares (its sponsored context), which this responder
 * does by construction.
 *
 * @typedef {import('./brand.js').Brand} Brand
 * @typedef {import('./brand.js').BrandProduct} BrandProduct
 */

const BUY = /\b(buy|purchase|order|checkout|check out|add to cart)\b/i;
const words = (/** @type {string} */ text) => text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1).map((w) => (w.length > 3 && w.endsWith('s') ? w.slice(0, -1) : w));

/** The brand's products a text is about, most relevant first. */
export function productsFor(/** @type {Brand} */ brand, /** @type {string} */ text) {
  const asked = new Set(words(text));
  return brand.products
    .map((p, i) => ({ p, i, score: p.terms.filter((t) => asked.has(t)).length + (asked.has(p.product_id) ? 5 : 0) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.p);
}

/**
 * The brand agent's reply to one user message.
 * @param {Brand} brand
 * @param {string} message
 * @returns {{ message: string, products: BrandProduct[], handoff?: BrandProduct }}
 */
export function reply(brand, message) {
  const products = productsFor(brand, message);
  const top = products[0];
  if (top === undefined) {
    const range = brand.products.filter((p) => p.in_stock).map((p) => p.name).join(', ');
    return { message: `${brand.display_name} can help with our outdoor gear: ${range}. What are you planning?`, products: [] };
  }
  if (BUY.test(message) && top.in_stock) {
    return { message: `Great choice: the ${top.name} is ${priceOf(top)} and in stock. I'll hand you over to checkout.`, products: [top], handoff: top };
  }
  const stock = top.in_stock ? 'in stock' : 'back in stock soon';
  const also = products.slice(1, 3).map((p) => `the ${p.name} (${priceOf(p)})`);
  return { message: `The ${top.name} is ${priceOf(top)}, ${stock}.${also.length > 0 ? ` You might also like ${also.join(' and ')}.` : ''}`, products };
}

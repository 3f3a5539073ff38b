// @ts-check
/**
 * What the brand this agent speaks for knows about itself: who it is (the paying principal of every sponsored
 * response), the products a conversation can recommend, the offerings a host can promote, and how its sponsored
 * context must be disclosed. A deployment loads this from its product feed; the default is Acme Outdoor's trail gear.
 *
 * @typedef {{ product_id: string, name: string, price: number, currency: string, terms: string[], url: string, in_stock: boolean }} BrandProduct
 * @typedef {{ offering_id: string, title: string, summary: string, tagline: string, product_ids: string[], expires_at: string, landing_url: string }} Offering
 * @typedef {{ brand: { domain: string }, display_name: string, products: BrandProduct[], offerings: Offering[],
 *   disclosure: { required: boolean, label_text: string } }} Brand
 */

/** @type {Brand} */
export const ACME_OUTDOOR = {
  brand: { domain: 'acmeoutdoor.example' },
  display_name: 'Acme Outdoor',
  disclosure: { required: true, label_text: 'Sponsored by Acme Outdoor' },
  products: [
    { product_id: 'trail_pro_2p', name: 'Trail Pro 2P tent', price: 349, currency: 'USD', terms: ['tent', 'backpacking', 'two', 'person', '2p', 'weigh', 'weight', 'pack', 'camping', 'shelter'], url: 'https://acmeoutdoor.example/trail-pro-2p', in_stock: true },
    { product_id: 'summit_pad', name: 'Summit insulated sleeping pad', price: 129, currency: 'USD', terms: ['sleeping', 'pad', 'camping', 'car', 'autumn', 'insulated', 'warm', 'mattress'], url: 'https://acmeoutdoor.example/summit-pad', in_stock: true },
    { product_id: 'ridge_headlamp', name: 'Ridge 400 headlamp', price: 49, currency: 'USD', terms: ['headlamp', 'light', 'lamp', 'night', 'hiking'], url: 'https://acmeoutdoor.example/ridge-400', in_stock: true },
    { product_id: 'switchback_pack', name: 'Switchback 45L pack', price: 219, currency: 'USD', terms: ['pack', 'backpack', 'bag', 'hiking', 'trip', 'trail', 'road'], url: 'https://acmeoutdoor.example/switchback-45', in_stock: false },
  ],
  offerings: [
    {
      offering_id: 'acme_trail_season',
      title: 'Trail season: tents and sleep systems',
      summary: 'Ask about backpacking tents, sleeping pads and headlamps; 15% off bundles this month.',
      tagline: 'Built for the summit',
      product_ids: ['trail_pro_2p', 'summit_pad', 'ridge_headlamp'],
      expires_at: '2099-12-31T23:59:59Z',
      landing_url: 'https://acmeoutdoor.example/trail-season',
    },
  ],
};

/** A product's display price. */
export const priceOf = (/** @type {BrandProduct} */ p) => `${p.currency === 'USD' ? '$' : `${p.currency} `}${p.price}`;

/**
 * The brand's sponsored-context declaration on a response (si-sponsored-context.json): the brand pays for it, the host
 * may present it (never reason over it or rank it against others), and must disclose it as the brand requires.
 */
export function declare(/** @type {Brand} */ brand, /** @type {string} */ agentUrl, /** @type {Date} */ at) {
  return {
    paying_principal: { brand: brand.brand, display_name: brand.display_name },
    context_use: 'presentation_only',
    disclosure_obligation: { required: brand.disclosure.required, label_text: brand.disclosure.label_text, timing: 'at_first_influenced_output', proximity: 'near_influenced_output' },
    declared_at: at.toISOString(),
    declared_by: { agent_url: agentUrl, role: 'brand_agent' },
  };
}

// @ts-check
/**
 * Where a brand belongs, and how far that can be trusted: AdCP's mutual-assertion model for brand.json
 * (docs/brand-protocol/brand-json, "Distributed brand.json"). A house publishes its portfolio — brands defined inline
 * in its own document, and `brand_refs[]` pointing at children that publish their own Brand Canonical Document; a
 * child names its house with `house_domain`. Identity and relationship are separate questions:
 *
 * - a brand's identity comes from the document that defines it (the house's for an inline brand, the child's own);
 * - its relationship to a house is trust-extending only when both sides assert it (`mutual`), or the house defines the
 *   brand itself (`inline`). One side alone is a claim: the child's (`leaf_only`, with the house it claims) or the
 *   house's (`house_only`); a child claiming no house is `standalone`; one claiming a house whose document this agent
 *   does not hold is `unverifiable`. `managed_by` (an agency or operator relationship) is never a trust edge.
 *
 * @typedef {{ domain: string, name: string }} House
 * @typedef {{ brand_id: string, names: Record<string, string>[], description?: string, industries?: string[], keller_type?: string,
 *   logos?: Record<string, unknown>[], colors?: Record<string, unknown>, fonts?: Record<string, unknown>, tone?: Record<string, unknown>,
 *   tagline?: string, countries?: string[] }} BrandIdentity
 * @typedef {{ kind: 'house', house: House, brands: BrandIdentity[], brand_refs: { domain: string, brand_id?: string }[] }
 *   | { kind: 'leaf', domain: string, brand: BrandIdentity, house_domain?: string, managed_by?: string }} BrandDocument
 * @typedef {{ identity: BrandIdentity, house?: House, trust: 'inline' | 'mutual' | 'leaf_only' | 'house_only' | 'standalone' | 'unverifiable',
 *   claimed_house_domain?: string, verified_at?: string, domain?: string }} ResolvedBrand `domain`: a self-published brand's own
 */

/**
 * The brands a set of documents defines, each with its house and the trust of that relationship.
 * @param {BrandDocument[]} documents
 * @param {Date} at when the resolution is made (`relationship_verified_at` of a mutual edge)
 * @returns {ResolvedBrand[]}
 */
export function resolvePortfolio(documents, at) {
  const houses = new Map(documents.flatMap((d) => (d.kind === 'house' ? [[d.house.domain, d]] : [])));
  /** @type {ResolvedBrand[]} */
  const resolved = [];
  for (const d of documents) {
    if (d.kind === 'house') {
      for (const identity of d.brands) resolved.push({ identity, house: d.house, trust: 'inline' });
      continue;
    }
    const own = { identity: d.brand, domain: d.domain };
    const reciprocates = (/** @type {Extract<BrandDocument, { kind: 'house' }>} */ h) => h.brand_refs.some((r) => r.domain === d.domain && (r.brand_id === undefined || r.brand_id === d.brand.brand_id));
    if (d.house_domain === undefined) {
      // A house naming this leaf in its refs is a one-sided claim; `managed_by` establishes nothing.
      const claimer = [...houses.values()].find(reciprocates);
      resolved.push(claimer !== undefined ? { ...own, house: claimer.house, trust: 'house_only' } : { ...own, trust: 'standalone' });
      continue;
    }
    const house = houses.get(d.house_domain);
    if (house === undefined) resolved.push({ ...own, trust: 'unverifiable', claimed_house_domain: d.house_domain });
    else if (reciprocates(house)) resolved.push({ ...own, house: house.house, trust: 'mutual', verified_at: at.toISOString() });
    else resolved.push({ ...own, trust: 'leaf_only', claimed_house_domain: d.house_domain });
  }
  return resolved;
}

/**
 * A brand document as this agent reads it: a brand.json house portfolio (`house` + `brands[]` + `brand_refs[]`), a
 * Brand Canonical Document (`brand` with an optional `house_domain`), or a test kit's `brand` section (one brand
 * with its `house`: an inline house portfolio of one).
 * @param {Record<string, any>} doc
 * @returns {BrandDocument}
 */
export function readDocument(doc) {
  /** @returns {BrandIdentity} */
  const identity = (/** @type {Record<string, any>} */ b) => {
    const { id, brand_id, names, industry, industries, house: _h, house_domain: _hd, managed_by: _m, url: _u, ...rest } = b;
    return { brand_id: brand_id ?? id, names: names ?? [], ...rest, ...(industries !== undefined || industry !== undefined ? { industries: industries ?? [industry] } : {}) };
  };
  if (Array.isArray(doc.brands) || Array.isArray(doc.brand_refs)) {
    return { kind: 'house', house: doc.house, brands: (doc.brands ?? []).map(identity), brand_refs: doc.brand_refs ?? [] };
  }
  if (doc.house !== undefined && doc.house_domain === undefined && (doc.brand_id !== undefined || doc.id !== undefined)) {
    return { kind: 'house', house: doc.house, brands: [identity(doc)], brand_refs: [] };
  }
  const brand = doc.brand ?? doc;
  return { kind: 'leaf', domain: doc.domain ?? brand.url?.replace(/^https:\/\/|\/.*$/g, '') ?? '', brand: identity(brand), ...(doc.house_domain !== undefined ? { house_domain: doc.house_domain } : {}), ...(doc.managed_by !== undefined ? { managed_by: doc.managed_by } : {}) };
}

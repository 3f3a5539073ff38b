// @ts-check
import { reject } from '../common/errors.js';
import { paginate } from '../common/pagination.js';
import { resolvePortfolio } from './portfolio.js';

/**
 * The brand roster this agent answers for: the brands its documents define (portfolio.js resolves each one's house and
 * how far that relationship can be trusted), their identities (get_brand_identity, section by section) and discovery
 * across them (search_brands). An unknown brand_id is REFERENCE_NOT_FOUND, brands having no code of their own.
 *
 * @typedef {import('./portfolio.js').ResolvedBrand} ResolvedBrand
 */

/** Identity sections a caller may ask for (`fields`); names, the house and the id always come. */
const SECTIONS = ['description', 'industries', 'keller_type', 'logos', 'colors', 'fonts', 'tone', 'tagline'];
const termsOf = (/** @type {string} */ t) => t.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2).map((w) => (w.endsWith('s') && w.length > 3 ? w.slice(0, -1) : w));
const nameOf = (/** @type {ResolvedBrand} */ b) => Object.values(b.identity.names[0] ?? {})[0] ?? b.identity.brand_id;

/** Drops from an identity the sections its response schema refuses (an industry outside AdCP's vocabulary …). */
function servable(/** @type {import('./portfolio.js').BrandIdentity} */ identity, /** @type {Parameters<typeof createRegistry>[0]['fits']} */ fits) {
  const id = /** @type {Record<string, unknown>} */ (identity);
  for (let tries = 0; tries < SECTIONS.length; tries++) {
    const verdict = fits('get_brand_identity', { brand_id: identity.brand_id, house: { domain: 'house.example', name: 'House' }, names: identity.names, ...Object.fromEntries(SECTIONS.filter((s) => id[s] !== undefined).map((s) => [s, id[s]])) });
    if (verdict.ok) return;
    const section = /^\/([a-z_]+)/.exec(verdict.issues[0]?.pointer ?? '')?.[1];
    if (section === undefined || !SECTIONS.includes(section)) throw new Error(`brand ${identity.brand_id}: ${verdict.issues[0]?.pointer} ${verdict.issues[0]?.message}`);
    process.emitWarning(`reference brand agent: brand ${identity.brand_id}'s ${section} cannot be served (${verdict.issues[0]?.message}); left out`);
    delete id[section];
  }
}

/**
 * @param {{ documents: import('./portfolio.js').BrandDocument[], now: () => Date,
 *   fits(tool: string, body: Record<string, unknown>): { ok: true } | { ok: false, issues: { pointer: string, message: string }[] } }} deps
 *   `fits`: whether a body is valid as the served release's response of `tool`
 */
export function createRegistry({ documents, now, fits }) {
  // Each brand's identity reduced, once, to the sections a response can carry.
  /** @type {WeakMap<object, string[] | undefined>} a brand's industries as discovery lists them (AdCP's taxonomy only) */
  const listedIndustries = new WeakMap();
  for (const d of documents) {
    for (const identity of d.kind === 'house' ? d.brands : [d.brand]) {
      servable(identity, fits);
      const listed = identity.industries !== undefined && fits('search_brands', { brands: [{ brand_id: identity.brand_id, names: identity.names, industries: identity.industries }] }).ok;
      listedIndustries.set(identity, listed ? identity.industries : undefined);
    }
  }
  const roster = () => resolvePortfolio(documents, now());
  const find = (/** @type {string} */ id) => roster().find((b) => b.identity.brand_id === id) ?? reject('REFERENCE_NOT_FOUND', `No brand ${JSON.stringify(id)} in this agent's roster`, { field: 'brand_id' });

  return {
    roster,
    handlers: {
      get_brand_identity: (/** @type {Record<string, any>} */ args) => {
        const b = find(args.brand_id);
        const wanted = new Set(Array.isArray(args.fields) ? args.fields : SECTIONS);
        const id = /** @type {Record<string, unknown>} */ (b.identity);
        return {
          brand_id: b.identity.brand_id,
          // The house only when the relationship is trust-extending; otherwise the brand answers for itself, a
          // one-sided claim (either side's) being no house of its.
          house: (b.trust === 'inline' || b.trust === 'mutual') && b.house !== undefined ? b.house : { domain: b.domain ?? b.house?.domain ?? '', name: nameOf(b) },
          names: b.identity.names,
          ...Object.fromEntries(SECTIONS.filter((s) => wanted.has(s) && id[s] !== undefined).map((s) => [s, id[s]])),
          available_fields: SECTIONS.filter((s) => id[s] !== undefined),
        };
      },
      search_brands: (/** @type {Record<string, any>} */ args) => {
        const wanted = new Set(termsOf(args.query));
        const scored = roster()
          .filter((b) => !Array.isArray(args.industries) || args.industries.some((/** @type {string} */ i) => b.identity.industries?.includes(i)))
          .filter((b) => !Array.isArray(args.countries) || b.identity.countries === undefined || args.countries.some((/** @type {string} */ c) => b.identity.countries?.includes(c)))
          .map((b) => ({ b, score: termsOf(`${nameOf(b)} ${b.identity.description ?? ''} ${(b.identity.industries ?? []).join(' ')}`).filter((t, i, all) => wanted.has(t) && all.indexOf(t) === i).length }))
          .filter((x) => x.score > 0 || wanted.size === 0)
          .sort((x, y) => y.score - x.score);
        const { page, pagination } = paginate(scored, args.pagination);
        return {
          brands: page.map(({ b }) => ({
            brand_id: b.identity.brand_id,
            names: b.identity.names,
            ...(b.house !== undefined ? { house: b.house } : {}),
            relationship_trust: b.trust,
            ...(b.verified_at !== undefined ? { relationship_verified_at: b.verified_at } : {}),
            ...(b.claimed_house_domain !== undefined ? { claimed_house_domain: b.claimed_house_domain } : {}),
            ...(b.identity.description !== undefined ? { description: b.identity.description } : {}),
            ...(listedIndustries.get(b.identity) !== undefined ? { industries: listedIndustries.get(b.identity) } : {}),
            ...(b.identity.keller_type !== undefined ? { keller_type: b.identity.keller_type } : {}),
          })),
          pagination,
        };
      },
    },
  };
}

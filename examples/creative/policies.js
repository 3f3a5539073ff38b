// @ts-check
/**
 * The creative policies this ad server enforces before it will serve a creative, from AdCP's policy registry
 * (`creative_security_*`): a creative that breaks one is rejected with one CREATIVE_REJECTED per policy it breaks,
 * each naming the policy (`details.policy_id`), so a buyer can fix them all at once.
 *
 * The checks read what the manifest declares (URLs and their declared kind); fetching and sandboxing the creative's
 * code is what a production ad server adds behind this seam.
 */

/** @type {{ policy_id: string, explain: string, breaks(url: string, asset: Record<string, any>): boolean }[]} */
const POLICIES = [
  {
    policy_id: 'creative_security_https_only',
    explain: 'every URL a creative loads must be https',
    breaks: (url) => url.startsWith('http://'),
  },
  {
    policy_id: 'creative_security_auto_redirect',
    explain: 'a creative may not redirect the page without a user gesture; this script is declared to auto-redirect',
    breaks: (url, asset) => asset.url_type === 'tracker_script' && /auto[-_]?redirect/i.test(url),
  },
];

/** Every URL a manifest's assets name, with the asset naming it. */
function urlsOf(/** @type {Record<string, any>} */ assets) {
  return Object.values(assets).flatMap((a) => (a !== null && typeof a === 'object' && typeof a.url === 'string' ? [{ url: a.url, asset: a }] : []));
}

/** The CREATIVE_REJECTED errors a manifest earns, one per policy broken (none: it may serve). */
export function policyViolations(/** @type {Record<string, any>} */ assets, /** @type {string} */ at) {
  const urls = urlsOf(assets);
  return POLICIES.flatMap((p) => {
    const hit = urls.find(({ url, asset }) => p.breaks(url, asset));
    return hit === undefined ? [] : [{ code: 'CREATIVE_REJECTED', message: `policy ${p.policy_id}: ${p.explain}`, field: at, recovery: 'correctable', details: { policy_id: p.policy_id } }];
  });
}

// @ts-check
import { reject, Rejection } from '../common/errors.js';
import { atLeast } from '../common/releases.js';
import { defectsOf } from './formats.js';
import { banner, displayTag, vastWrapper } from './render.js';

/**
 * build_creative, in the three ways this agent builds (docs/creative/task-reference/build_creative):
 *
 * - **template** (creative-template): a buyer's manifest — or, without one, its brief (`message`) and brand — rendered
 *   into each target capability: an image banner at the capability's size, with the source image, headline and call
 *   to action laid out by the template;
 * - **ad server** (creative-ad-server): a creative of the account's library (`creative_id`) trafficked for a media
 *   buy: the serving tag the publisher runs (a VAST wrapper for video, a script tag for display), whose impressions
 *   this agent counts; the creative is assigned to the buy and package named;
 * - several targets at once (`target_capability_ids`): one manifest per target.
 *
 * A target this agent does not advertise is FORMAT_NOT_SUPPORTED naming the selector; a manifest missing what its
 * format needs is refused naming the asset. An account's builds are billed at the rate card (pricing.js). A 3.2 buyer
 * gets manifests named by canonical `format_kind`, a 3.0 buyer by the capability's named format on this agent.
 *
 * @typedef {import('./library.js').Account} Account
 */

/**
 * @param {{ accounts: ReturnType<typeof import('../common/accounts.js').createAccounts<import('./library.js').CreativeSpace>>,
 *   library: ReturnType<typeof import('./library.js').createLibrary>, pricing: ReturnType<typeof import('./pricing.js').createPricing>,
 *   formats: import('./formats.js').Formats, trackingBase: string, agentUrl: string, now: () => Date }} deps `trackingBase`: where this
 *   ad server counts impressions
 */
export function createBuild({ accounts, library, pricing, formats, trackingBase, agentUrl, now }) {
  /** The manifest a template renders into one image capability. */
  const template = (/** @type {import('./formats.js').Capability} */ cap, /** @type {Record<string, any>} */ source, /** @type {Record<string, any>} */ args) => {
    const { width, height } = cap.format.params;
    const assets = source.assets ?? {};
    const image = assets.image_main ?? assets.image ?? Object.values(assets).find((a) => a?.asset_type === 'image');
    const text = (/** @type {string} */ k) => (typeof assets[k]?.content === 'string' ? assets[k].content : undefined);
    const headline = text('headline') ?? (typeof args.message === 'string' ? args.message.split(/[.!?]/)[0]?.trim().slice(0, 60) : undefined);
    const link = assets.landing_page_url ?? assets.click_url;
    return {
      format_kind: 'image',
      assets: {
        image_main: { asset_type: 'image', url: banner({ width, height, image: image?.url, headline, cta: text('cta') }), width, height, format: 'svg' },
        ...(headline !== undefined ? { headline: { asset_type: 'text', content: headline } } : {}),
        ...(link?.url !== undefined ? { landing_page_url: { asset_type: 'url', url: link.url } } : {}),
      },
      ...(args.brand !== undefined ? { brand: args.brand } : {}),
    };
  };

  /** The serving tag for a library creative, as the manifest of `cap`; the creative is assigned to the buy named. */
  const traffic = (/** @type {import('./formats.js').Capability} */ cap, /** @type {import('./library.js').Creative} */ creative, /** @type {Record<string, any>} */ args) => {
    const query = new URLSearchParams({ c: creative.creative_id, ...(args.media_buy_id !== undefined ? { mb: args.media_buy_id } : {}), ...(args.package_id !== undefined ? { pkg: args.package_id } : {}) });
    const tracking = `${trackingBase}/impression?${query}`;
    if (args.media_buy_id !== undefined && !creative.media_buy_ids.includes(args.media_buy_id)) creative.media_buy_ids.push(args.media_buy_id);
    if (cap.format.format_kind === 'video_vast') {
      const video = Object.values(creative.assets).find((a) => a?.asset_type === 'video' || a?.asset_type === 'vast');
      return {
        format_kind: 'video_vast',
        assets: { vast_tag: { asset_type: 'vast', delivery_type: 'inline', content: vastWrapper({ creativeId: creative.creative_id, mediaUrl: video?.url, clickUrl: creative.assets.landing_page_url?.url, tracking }), vast_version: '4.2', duration_ms: 30000 } },
      };
    }
    const { width, height } = cap.format.params;
    return { format_kind: 'display_tag', assets: { tag_url: { asset_type: 'url', url_type: 'tracker_script', url: tracking }, tag_html: { asset_type: 'html', content: displayTag({ creativeId: creative.creative_id, width, height, tracking }) } } };
  };

  /** One target's manifest. */
  const buildOne = (/** @type {import('./formats.js').Capability} */ cap, /** @type {Record<string, any>} */ args, /** @type {Account} */ account) => {
    if (args.creative_id !== undefined) {
      const creative = library.find(account, args.creative_id);
      if (cap.format.format_kind !== 'video_vast' && cap.format.format_kind !== 'display_tag') reject('FORMAT_NOT_SUPPORTED', `${cap.capability_id} is a template output; a library creative is trafficked as a serving tag (vast_30s, display_tag_300x250)`, { field: 'target_capability_id' });
      if (creative.status !== 'approved') reject('INVALID_STATE', `A ${creative.status} creative cannot be trafficked`, { field: 'creative_id', details: { current_status: creative.status } });
      return traffic(cap, creative, args);
    }
    if (cap.format.format_kind !== 'image') reject('FORMAT_NOT_SUPPORTED', `${cap.capability_id} serves a library creative; name it by creative_id`, { field: 'target_capability_id' });
    const source = args.creative_manifest ?? { assets: {} };
    if (args.creative_manifest === undefined && typeof args.message !== 'string') reject('INVALID_REQUEST', 'A build needs a creative_manifest, a library creative_id or a brief (message)', { field: 'creative_manifest' });
    const manifest = template(cap, source, args);
    const defects = defectsOf(cap, manifest.assets, 'creative_manifest.assets');
    if (defects.length > 0) reject(/** @type {string} */ (defects[0]?.code), /** @type {string} */ (defects[0]?.message), { field: defects[0]?.field });
    return manifest;
  };

  /** A manifest as `release` names its format: canonically from 3.2, by this agent's named format before. */
  const named = (/** @type {Record<string, any>} */ manifest, /** @type {string} */ capabilityId, /** @type {string} */ release) => {
    if (atLeast(release, 3, 2)) return manifest;
    const { format_kind: _kind, ...rest } = manifest;
    return { format_id: { agent_url: agentUrl, id: capabilityId }, ...rest };
  };

  return {
    /** @param {string} release */
    handlers: (release) => ({
      build_creative: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const account = /** @type {Account} */ (accounts.resolve(args.account, ctx.principal));
        const many = Array.isArray(args.target_capability_ids);
        const ids = many ? args.target_capability_ids : [args.target_capability_id ?? args.target_format_id?.id];
        const field = many ? 'target_capability_ids' : 'target_capability_id';
        const unknown = ids.findIndex((/** @type {string | undefined} */ id) => id === undefined || !formats.byId(id)?.operations.includes('build'));
        if (unknown >= 0) {
          return { status: 'failed', errors: [{ code: 'FORMAT_NOT_SUPPORTED', message: `this agent builds no ${JSON.stringify(ids[unknown])}; see creative.supported_formats`, field: many ? `${field}[${unknown}]` : field, recovery: 'correctable' }] };
        }
        try {
          const manifests = ids.map((/** @type {string} */ id) => named(buildOne(/** @type {import('./formats.js').Capability} */ (formats.byId(id)), args, account), id, release));
          const bill = args.account !== undefined ? pricing.build(account, manifests.length, now()) : {};
          return many ? { creative_manifests: manifests, ...bill } : { creative_manifest: manifests[0], ...bill };
        } catch (e) {
          // A build's refusals are its own error arm (build-creative-response.json's BuildCreativeError).
          if (e instanceof Rejection) return { status: 'failed', errors: [e.body()] };
          throw e;
        }
      },
    }),
  };
}

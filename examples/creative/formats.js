// @ts-check
/**
 * The formats this creative agent works with: AdCP 3.2's canonical capability catalog (`creative.supported_formats`,
 * which the profile publishes in get_adcp_capabilities and the agent reads from it): each capability a stable
 * `capability_id` a build or a preview routes by, the canonical format declaration it produces or renders
 * (`format_kind` + `params`, slots included) and the operations it supports. The same catalog is listed to 3.0 buyers
 * as named formats on this agent (`list_creative_formats`, `format_id: { agent_url, id: capability_id }`).
 *
 * Assets are checked against the declaration a creative names: every required slot present with its asset type, an
 * image at the declared size, a native title within its length, a call to action from the declared values. The
 * result is the list of defects (empty: acceptable), each naming the asset it is about.
 *
 * @typedef {{ asset_group_id: string, asset_type: string, required: boolean }} Slot
 * @typedef {{ capability_id: string, format: { format_kind: string, display_name?: string, params: Record<string, any> }, operations: string[] }} Capability
 * @typedef {{ code: string, message: string, field: string }} Defect
 */

/** Format kinds this agent keeps in its library and renders, beyond those it builds (a buyer's hosted video, a zip). */
const LIBRARY_KINDS = new Set(['image', 'display_tag', 'video_vast', 'video_hosted', 'native_in_feed', 'html5', 'audio_hosted']);

/**
 * The catalog as the agent works with it: the profile's `creative.supported_formats` (the profile is the one place
 * the formats are stated; buyers read the same list).
 * @param {Capability[]} catalog
 */
export function createFormats(catalog) {
  return {
    all: () => catalog,
    byId: (/** @type {string} */ id) => catalog.find((c) => c.capability_id === id),
    /** Whether the library takes creatives of this canonical kind. */
    stores: (/** @type {string | undefined} */ kind) => kind !== undefined && LIBRARY_KINDS.has(kind),
    /** The declaration a manifest is checked against: the capability of its size, else the kind's first one. */
    declarationFor(/** @type {string | undefined} */ kind, /** @type {Record<string, any>} */ assets) {
      const ofKind = catalog.filter((c) => c.format.format_kind === kind);
      const image = assets.image_main ?? assets.image;
      return ofKind.find((c) => c.format.params.width === image?.width && c.format.params.height === image?.height) ?? ofKind[0];
    },
  };
}

/** @typedef {ReturnType<typeof createFormats>} Formats */

/**
 * The defects of a manifest's assets against a declaration (none for a kind this agent only stores).
 * @param {Capability | undefined} capability
 * @param {Record<string, any>} assets
 * @param {string} at the field the assets are at, for the defects' `field`
 * @returns {Defect[]}
 */
export function defectsOf(capability, assets, at) {
  if (capability === undefined) return [];
  /** @type {Defect[]} */
  const defects = [];
  const params = capability.format.params;
  for (const slot of /** @type {Slot[]} */ (params.slots)) {
    const asset = assets[slot.asset_group_id] ?? (slot.asset_group_id === 'image_main' ? assets.image : undefined);
    if (asset === undefined) {
      if (slot.required) defects.push({ code: 'INVALID_REQUEST', message: `${nameOf(capability)} needs the ${slot.asset_group_id} asset (${slot.asset_type})`, field: `${at}.${slot.asset_group_id}` });
    } else if (asset.asset_type !== slot.asset_type) {
      defects.push({ code: 'INVALID_REQUEST', message: `${slot.asset_group_id} must be a ${slot.asset_type} asset, not ${asset.asset_type}`, field: `${at}.${slot.asset_group_id}.asset_type` });
    }
  }
  if (capability.format.format_kind === 'native_in_feed') {
    const title = assets.title?.content;
    if (typeof title === 'string' && title.length > params.title_max_chars) defects.push({ code: 'VALIDATION_ERROR', message: `the title is ${title.length} characters; this format allows ${params.title_max_chars}`, field: `${at}.title.content` });
    const main = assets.main_image;
    if (main !== undefined && !params.main_image_sizes.some((/** @type {{ width: number, height: number }} */ s) => s.width === main.width && s.height === main.height)) {
      defects.push({ code: 'VALIDATION_ERROR', message: `main_image is ${main.width}×${main.height}; accepted sizes: ${params.main_image_sizes.map((/** @type {{ width: number, height: number }} */ s) => `${s.width}×${s.height}`).join(', ')}`, field: `${at}.main_image` });
    }
    const cta = assets.cta?.content;
    if (typeof cta === 'string' && !params.cta_values.includes(cta)) defects.push({ code: 'CREATIVE_VALUE_NOT_ALLOWED', message: `call to action ${JSON.stringify(cta)} is not one of ${params.cta_values.join(', ')}`, field: `${at}.cta.content` });
  } else if (capability.format.format_kind === 'image') {
    const main = assets.image_main ?? assets.image;
    if (main?.width !== undefined && (main.width !== params.width || main.height !== params.height)) {
      defects.push({ code: 'VALIDATION_ERROR', message: `the image is ${main.width}×${main.height}; ${nameOf(capability)} needs ${params.width}×${params.height}`, field: `${at}.image_main` });
    }
  }
  for (const [name, asset] of Object.entries(assets)) {
    if (asset?.asset_type === 'pixel_tracker' && asset.event === 'custom' && typeof asset.custom_event_name !== 'string') {
      defects.push({ code: 'INVALID_REQUEST', message: 'a custom pixel tracker needs custom_event_name', field: `${at}.${name}.custom_event_name` });
    }
  }
  return defects;
}

/** How a capability is named to people. */
export const nameOf = (/** @type {Capability} */ c) => c.format.display_name ?? c.capability_id;

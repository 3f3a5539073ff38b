// @ts-check
import { randomUUID } from 'node:crypto';
import { reject, Rejection } from '../common/errors.js';
import { defectsOf } from './formats.js';
import { previewPage, previewUrl } from './render.js';

/**
 * preview_creative: a creative rendered as the publisher's page would show it, from an inline manifest or a library
 * creative, in one request or a batch (up to 50). The renderer is the capability the request names
 * (`target_capability_id`, which must advertise `preview`), else the one the manifest's own format and size select;
 * a manifest missing what its format needs cannot be previewed and says which asset. Each render is either a URL to
 * an HTML page (`output_format: url`, the default: a self-contained data URL a sandboxed iframe loads) or the HTML
 * itself (`html`). Previews expire an hour after they are made.
 *
 * @typedef {import('./library.js').Account} Account
 */

/**
 * @param {{ accounts: ReturnType<typeof import('../common/accounts.js').createAccounts<import('./library.js').CreativeSpace>>,
 *   library: ReturnType<typeof import('./library.js').createLibrary>, formats: import('./formats.js').Formats, now: () => Date }} deps
 */
export function createPreview({ accounts, library, formats, now }) {
  /** One single-mode request → its previews (one per input set, or one default). */
  const single = (/** @type {Record<string, any>} */ req, /** @type {Account} */ account) => {
    const manifest = req.creative_id !== undefined ? library.find(account, req.creative_id) : req.creative_manifest;
    const assets = manifest.assets ?? {};
    const cap = req.target_capability_id !== undefined ? formats.byId(req.target_capability_id) : formats.declarationFor(manifest.format_kind, assets);
    if (req.target_capability_id !== undefined && !cap?.operations.includes('preview')) reject('FORMAT_NOT_SUPPORTED', `this agent previews no ${JSON.stringify(req.target_capability_id)}`, { field: 'target_capability_id' });
    const defects = defectsOf(cap, assets, 'creative_manifest.assets');
    if (defects.length > 0) reject(/** @type {string} */ (defects[0]?.code), /** @type {string} */ (defects[0]?.message), { field: defects[0]?.field });
    const size = { width: cap?.format.params.width ?? 640, height: cap?.format.params.height ?? 360 };
    const inputs = Array.isArray(req.inputs) && req.inputs.length > 0 ? req.inputs : [{ name: 'Default' }];
    return inputs.map((/** @type {Record<string, any>} */ input) => {
      const html = previewPage(assets, size);
      const render =
        req.output_format === 'html'
          ? { render_id: randomUUID(), output_format: 'html', preview_html: html, role: 'primary', dimensions: size }
          : { render_id: randomUUID(), output_format: 'url', preview_url: previewUrl(html), role: 'primary', dimensions: size, embedding: { recommended_sandbox: '', requires_https: false } };
      return { preview_id: `pv_${randomUUID().slice(0, 12)}`, renders: [render], input: { name: input.name ?? 'Default', ...(input.macros !== undefined ? { macros: input.macros } : {}) } };
    });
  };

  return {
    handlers: {
      preview_creative: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const account = /** @type {Account} */ (accounts.resolve(args.account, ctx.principal));
        const expires_at = new Date(now().getTime() + 3_600_000).toISOString();
        if (args.request_type === 'batch') {
          const results = args.requests.map((/** @type {Record<string, any>} */ r) => {
            try {
              return { success: true, creative_id: r.creative_id ?? r.creative_manifest?.creative_id, response: { previews: single(r, account), expires_at } };
            } catch (e) {
              if (!(e instanceof Rejection)) throw e;
              return { success: false, errors: [e.body()] };
            }
          });
          return { response_type: 'batch', results };
        }
        if (args.request_type === 'variant') reject('REFERENCE_NOT_FOUND', 'No served variant with this variant_id', { field: 'variant_id' });
        return { response_type: 'single', previews: single(args, account), expires_at };
      },
    },
  };
}

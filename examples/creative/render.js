// @ts-check
/**
 * What this agent's templates make, as documents: a banner (SVG at the capability's size: the buyer's image, or the
 * brand's colour, under the headline and call to action), the HTML a preview frames a creative in, and the serving
 * tags an ad server hands out for a library creative (a VAST 4 wrapper for video, a script tag for display). Each is
 * returned as a `data:` URL the buyer can load as it is — what a hosted renderer would publish on its CDN, which is
 * where a deployment puts them.
 *
 * Text that reaches markup is escaped; a URL is only ever an https one the buyer supplied or this agent's own.
 */

const escape = (/** @type {string} */ s) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const dataUrl = (/** @type {string} */ type, /** @type {string} */ body) => `data:${type};base64,${Buffer.from(body, 'utf8').toString('base64')}`;
const httpsOnly = (/** @type {unknown} */ url) => (typeof url === 'string' && url.startsWith('https://') ? url : undefined);

/**
 * A banner at `width`×`height`: the source image scaled to cover it, or the brand colour, with the headline and the
 * call to action laid over it.
 * @param {{ width: number, height: number, image?: string, headline?: string, cta?: string, color?: string }} spec
 */
export function banner({ width, height, image, headline, cta, color = '#1f4e3d' }) {
  const size = Math.max(12, Math.round(Math.min(height / 5, width / 16)));
  const src = httpsOnly(image);
  const svg = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<rect width="100%" height="100%" fill="${escape(color)}"/>`,
    src !== undefined ? `<image href="${escape(src)}" width="${width}" height="${height}" preserveAspectRatio="xMidYMid slice"/>` : '',
    headline !== undefined ? `<text x="${Math.round(width * 0.05)}" y="${Math.round(height * 0.45)}" font-family="sans-serif" font-weight="bold" font-size="${size}" fill="#fff">${escape(headline)}</text>` : '',
    cta !== undefined ? `<text x="${Math.round(width * 0.05)}" y="${Math.round(height * 0.8)}" font-family="sans-serif" font-size="${Math.round(size * 0.7)}" fill="#fff">${escape(cta)}</text>` : '',
    '</svg>',
  ].join('');
  return dataUrl('image/svg+xml', svg);
}

/** The HTML page a preview shows a creative's assets in, at its size. */
export function previewPage(/** @type {Record<string, any>} */ assets, /** @type {{ width?: number, height?: number }} */ size) {
  const parts = Object.entries(assets).map(([name, a]) => {
    if (a?.asset_type === 'image') return `<img alt="${escape(name)}" src="${escape(httpsOnly(a.url) ?? (String(a.url).startsWith('data:image/') ? a.url : ''))}" width="${a.width ?? size.width ?? ''}" height="${a.height ?? size.height ?? ''}">`;
    if (a?.asset_type === 'text') return `<p class="${escape(name)}">${escape(String(a.content ?? ''))}</p>`;
    if (a?.asset_type === 'url' && httpsOnly(a.url) !== undefined) return `<a href="${escape(a.url)}">${escape(name)}</a>`;
    if (a?.asset_type === 'vast') return `<video controls width="${size.width ?? 640}" data-vast="${escape(a.url ?? 'inline')}"></video>`;
    return '';
  });
  return `<!doctype html><html><head><meta charset="utf-8"><title>preview</title></head><body style="margin:0">${parts.join('')}</body></html>`;
}

export const previewUrl = (/** @type {string} */ html) => dataUrl('text/html', html);

/** A VAST 4.2 wrapper serving a library video through this ad server (its impression tracked against `tracking`). */
export function vastWrapper(/** @type {{ creativeId: string, mediaUrl?: string, clickUrl?: string, tracking: string }} */ t) {
  const media = httpsOnly(t.mediaUrl);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<VAST version="4.2"><Ad id="' + escape(t.creativeId) + '"><InLine><AdSystem>AdCP reference ad server</AdSystem>',
    `<AdTitle>${escape(t.creativeId)}</AdTitle><Impression><![CDATA[${t.tracking}]]></Impression>`,
    '<Creatives><Creative><Linear><Duration>00:00:30</Duration>',
    media !== undefined ? `<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="1920" height="1080"><![CDATA[${media}]]></MediaFile></MediaFiles>` : '',
    httpsOnly(t.clickUrl) !== undefined ? `<VideoClicks><ClickThrough><![CDATA[${t.clickUrl}]]></ClickThrough></VideoClicks>` : '',
    '</Linear></Creative></Creatives></InLine></Ad></VAST>',
  ].join('');
}

/** A display serving tag: the script the publisher's page runs to fetch the creative from this ad server. */
export const displayTag = (/** @type {{ creativeId: string, width: number, height: number, tracking: string }} */ t) =>
  `<script src="${escape(t.tracking)}" data-creative="${escape(t.creativeId)}" data-size="${t.width}x${t.height}" async></script>`;

/**
 * `$id`/`$ref` resolution. AdCP 3.0/3.1 use rooted ids without a scheme (`/schemas/3.0.6/core/product.json`),
 * 3.2 absolute URLs; WHATWG URL needs a scheme, so rooted ids borrow a placeholder origin and give it back.
 */
const LOCAL_ORIGIN = 'http://adcp-codegen.invalid';

export function resolveUri(base: string, ref: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) return new URL(ref).href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(base)) return new URL(ref, base).href;
  const resolved = new URL(ref, LOCAL_ORIGIN + (base.startsWith('/') ? base : '/' + base)).href;
  return resolved.slice(LOCAL_ORIGIN.length);
}

/** Splits `uri#fragment` into the document URI and the fragment (without `#`). */
export function splitFragment(uri: string): { doc: string; fragment: string } {
  const i = uri.indexOf('#');
  return i < 0 ? { doc: uri, fragment: '' } : { doc: uri.slice(0, i), fragment: uri.slice(i + 1) };
}

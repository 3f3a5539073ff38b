/** RFC 6901 JSON pointers: the one way every stage names a place in a document. */

export function escapeToken(token: string | number): string {
  const text = String(token);
  // Nearly every token is a plain name: escaping is called for every node of every schema walk.
  return text.includes('~') || text.includes('/') ? text.replace(/~/g, '~0').replace(/\//g, '~1') : text;
}

export function unescapeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function joinPointer(base: string, ...tokens: (string | number)[]): string {
  return base + tokens.map((t) => '/' + escapeToken(t)).join('');
}

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split('/').map(unescapeToken);
}

/** Value at `pointer` inside `doc`, or undefined. Only own properties are followed. */
export function getAtPointer(doc: unknown, pointer: string): unknown {
  let node: unknown = doc;
  for (const token of parsePointer(pointer)) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (node !== null && typeof node === 'object') {
      if (!Object.prototype.hasOwnProperty.call(node, token)) return undefined;
      node = (node as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return node;
}

/** The URI fragment form of a pointer (without `#`): each token percent-encoded, so `/$defs/a b` is `/$defs/a%20b`. */
export function fragmentFromPointer(pointer: string): string {
  return pointer.split('/').map(encodeURIComponent).join('/');
}

/** URI fragments hold pointers percent-encoded; `#/$defs/a%20b` names `/$defs/a b`. */
export function pointerFromFragment(fragment: string): string {
  const raw = fragment.startsWith('#') ? fragment.slice(1) : fragment;
  return decodeURIComponent(raw);
}

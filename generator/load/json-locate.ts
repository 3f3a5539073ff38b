/**
 * Where JSON text stops being JSON. Node 20's JSON.parse reports what it found but not where, and a user fixing a
 * 2,000-line profile needs the line and column. A small scanner of the JSON grammar (RFC 8259), iterative so a
 * deeply nested document cannot overflow the stack; returns the offset of the first offending character.
 */
export function locateJsonError(text: string): number {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const literal = (word: string): boolean => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return true;
    }
    return false;
  };
  const string = (): boolean => {
    if (text[i] !== '"') return false;
    i++;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return false;
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else return false;
      } else i++;
    }
    return false;
  };
  const number = (): boolean => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m === null) return false;
    i += m[0].length;
    return true;
  };
  // Each frame: the container kind and whether a value is expected next.
  const stack: ('{' | '[')[] = [];
  let expectValue = true;
  for (;;) {
    ws();
    if (expectValue) {
      const c = text[i];
      if (c === '{' || c === '[') {
        stack.push(c);
        i++;
        ws();
        if (text[i] === (c === '{' ? '}' : ']')) {
          stack.pop();
          i++;
          expectValue = false;
          continue;
        }
        if (c === '{') {
          if (!string()) return i;
          ws();
          if (text[i] !== ':') return i;
          i++;
        }
        continue;
      }
      if (!(string() || number() || literal('true') || literal('false') || literal('null'))) return i;
      expectValue = false;
      continue;
    }
    const top = stack[stack.length - 1];
    if (top === undefined) return i < text.length ? i : -1;
    const c = text[i];
    if (c === ',') {
      i++;
      if (top === '{') {
        ws();
        if (!string()) return i;
        ws();
        if (text[i] !== ':') return i;
        i++;
      }
      expectValue = true;
    } else if ((top === '{' && c === '}') || (top === '[' && c === ']')) {
      stack.pop();
      i++;
    } else return i;
  }
}

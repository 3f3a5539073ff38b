/**
 * A small scanner over the JavaScript Ajv generates, enough to rename the free identifiers that name Ajv's scope
 * values (`validate12`, `schema31`, `pattern4`, …) and to read the property accessors after them. Ajv's codegen
 * writes strings as double-quoted JSON, a few regular-expression literals, no template literals, and one kind of comment
 * (`/*# sourceURL=… *\/`); anything else is reported rather than guessed at.
 */

export type Token =
  | { kind: 'ident'; text: string; afterDot: boolean }
  | { kind: 'string'; text: string }
  | { kind: 'comment'; text: string }
  | { kind: 'other'; text: string };

const IDENT = /[A-Za-z_$][\w$]*/y;
const NUMBER = /[0-9][\w.]*/y;

export function tokenize(code: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let lastSignificant = '';
  const push = (t: Token): void => {
    out.push(t);
    if (t.kind !== 'comment' && !(t.kind === 'other' && /^\s+$/.test(t.text))) lastSignificant = t.text;
  };
  while (i < code.length) {
    const c = code[i]!;
    if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < code.length && code[j] !== c) j += code[j] === '\\' ? 2 : 1;
      if (j >= code.length) throw new Error('unterminated string literal in generated code');
      push({ kind: 'string', text: code.slice(i, j + 1) });
      i = j + 1;
    } else if (c === '`') {
      throw new Error('template literal in Ajv output: the validator emitter does not expect one');
    } else if (c === '/' && code[i + 1] !== '*' && code[i + 1] !== '/' && (lastSignificant === '' || /^[(,=:[!&|?{};]$/.test(lastSignificant))) {
      // A regular-expression literal (Ajv escapes JSON pointer tokens with `.replace(/~/g, "~0")`).
      let j = i + 1;
      let inClass = false;
      while (j < code.length && (inClass || code[j] !== '/')) {
        if (code[j] === '\\') j++;
        else if (code[j] === '[') inClass = true;
        else if (code[j] === ']') inClass = false;
        j++;
      }
      if (j >= code.length) throw new Error('unterminated regular expression literal in generated code');
      j++;
      while (j < code.length && /[a-z]/.test(code[j]!)) j++;
      push({ kind: 'other', text: code.slice(i, j) });
      i = j;
    } else if (c === '/' && code[i + 1] === '*') {
      const j = code.indexOf('*/', i + 2);
      if (j < 0) throw new Error('unterminated comment in generated code');
      push({ kind: 'comment', text: code.slice(i, j + 2) });
      i = j + 2;
    } else if (c === '/' && code[i + 1] === '/') {
      const j = code.indexOf('\n', i);
      const end = j < 0 ? code.length : j;
      push({ kind: 'comment', text: code.slice(i, end) });
      i = end;
    } else if (/[A-Za-z_$]/.test(c)) {
      IDENT.lastIndex = i;
      const m = IDENT.exec(code)!;
      push({ kind: 'ident', text: m[0], afterDot: lastSignificant === '.' });
      i += m[0].length;
    } else if (/[0-9]/.test(c)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(code)!;
      push({ kind: 'other', text: m[0] });
      i += m[0].length;
    } else if (/\s/.test(c)) {
      let j = i;
      while (j < code.length && /\s/.test(code[j]!)) j++;
      push({ kind: 'other', text: code.slice(i, j) });
      i = j;
    } else {
      push({ kind: 'other', text: c });
      i++;
    }
  }
  return out;
}

/** A property path read right after a token: `.enum`, `["a-b"]`, `[0]`; returns keys and how many tokens it spans. */
export function readAccessors(tokens: readonly Token[], start: number): { keys: (string | number)[]; end: number }[] {
  const steps: { keys: (string | number)[]; end: number }[] = [];
  const keys: (string | number)[] = [];
  let i = start;
  for (;;) {
    const t = tokens[i];
    const n1 = tokens[i + 1];
    const n2 = tokens[i + 2];
    if (t?.kind === 'other' && t.text === '.' && n1?.kind === 'ident') {
      keys.push(n1.text);
      i += 2;
    } else if (t?.kind === 'other' && t.text === '[' && n1 !== undefined && n2?.kind === 'other' && n2.text === ']') {
      if (n1.kind === 'string' && n1.text.startsWith('"')) keys.push(JSON.parse(n1.text) as string);
      else if (n1.kind === 'other' && /^(0|[1-9]\d*)$/.test(n1.text)) keys.push(Number(n1.text));
      else break;
      i += 3;
    } else {
      break;
    }
    steps.push({ keys: [...keys], end: i });
  }
  return steps;
}

/** JavaScript source for a JSON value: JSON text, safe inside a script (U+2028/9) and never setting a prototype. */
export function jsValue(value: unknown): string {
  const json = jsonText(value);
  return hasProtoKey(value) ? `JSON.parse(${jsonText(json)})` : json;
}

export function jsonText(value: unknown): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function hasProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasProtoKey);
  if (value !== null && typeof value === 'object') {
    return Object.keys(value).some((k) => k === '__proto__' || hasProtoKey((value as Record<string, unknown>)[k]));
  }
  return false;
}

/** Text inside a block comment: `*\/` cannot end it early, line separators cannot break it. */
export function commentText(text: string): string {
  return text.replace(/\*\//g, '*\\/').replace(/[\u2028\u2029\r\n]/g, ' ');
}

/** A JavaScript identifier fragment from any text. */
export function identFragment(text: string): string {
  const s = text.replace(/[^A-Za-z0-9_$]+/g, '_').replace(/^_+|_+$/g, '');
  return s === '' ? 'x' : s;
}

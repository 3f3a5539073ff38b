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

// Character classes by code, tested per character of megabytes of code (a regular expression per character made
// the scanner a visible share of a cold generation). Same classes as /[A-Za-z_$]/, /[0-9]/, /\s/ and /[a-z]/.
const isIdentStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isLower = (c: number): boolean => c >= 97 && c <= 122;
const isSpace = (c: number): boolean =>
  c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
/** The tokens after which a `/` starts a regular-expression literal (Ajv's code: `(`, `,`, `=`, …). */
const BEFORE_REGEXP = new Set(['', '(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';']);

export function tokenize(code: string): Token[] {
  const out: Token[] = [];
  const n = code.length;
  let i = 0;
  let lastSignificant = '';
  const significant = (t: Token): void => {
    out.push(t);
    lastSignificant = t.text;
  };
  while (i < n) {
    const c = code.charCodeAt(i);
    const next = i + 1 < n ? code.charCodeAt(i + 1) : -1;
    if (c === 34 || c === 39) {
      let j = i + 1;
      while (j < n && code.charCodeAt(j) !== c) j += code.charCodeAt(j) === 92 ? 2 : 1;
      if (j >= n) throw new Error('unterminated string literal in generated code');
      significant({ kind: 'string', text: code.slice(i, j + 1) });
      i = j + 1;
    } else if (c === 96) {
      throw new Error('template literal in Ajv output: the validator emitter does not expect one');
    } else if (c === 47 && next !== 42 && next !== 47 && BEFORE_REGEXP.has(lastSignificant)) {
      // A regular-expression literal (Ajv escapes JSON pointer tokens with `.replace(/~/g, "~0")`).
      let j = i + 1;
      let inClass = false;
      while (j < n && (inClass || code.charCodeAt(j) !== 47)) {
        const d = code.charCodeAt(j);
        if (d === 92) j++;
        else if (d === 91) inClass = true;
        else if (d === 93) inClass = false;
        j++;
      }
      if (j >= n) throw new Error('unterminated regular expression literal in generated code');
      j++;
      while (j < n && isLower(code.charCodeAt(j))) j++;
      significant({ kind: 'other', text: code.slice(i, j) });
      i = j;
    } else if (c === 47 && next === 42) {
      const j = code.indexOf('*/', i + 2);
      if (j < 0) throw new Error('unterminated comment in generated code');
      out.push({ kind: 'comment', text: code.slice(i, j + 2) });
      i = j + 2;
    } else if (c === 47 && next === 47) {
      const j = code.indexOf('\n', i);
      const end = j < 0 ? n : j;
      out.push({ kind: 'comment', text: code.slice(i, end) });
      i = end;
    } else if (isIdentStart(c)) {
      IDENT.lastIndex = i;
      const m = IDENT.exec(code)![0];
      significant({ kind: 'ident', text: m, afterDot: lastSignificant === '.' });
      i += m.length;
    } else if (isDigit(c)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(code)![0];
      significant({ kind: 'other', text: m });
      i += m.length;
    } else if (isSpace(c)) {
      let j = i + 1;
      while (j < n && isSpace(code.charCodeAt(j))) j++;
      // Whitespace is not significant: a `/` after it is judged by the token before it.
      out.push({ kind: 'other', text: code.slice(i, j) });
      i = j;
    } else {
      significant({ kind: 'other', text: code[i]! });
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

export { commentText, jsLiteral, jsonText } from '../../shared/index.js';

/** A JavaScript identifier fragment from any text. */
export function identFragment(text: string): string {
  const s = text.replace(/[^A-Za-z0-9_$]+/g, '_').replace(/^_+|_+$/g, '');
  return s === '' ? 'x' : s;
}

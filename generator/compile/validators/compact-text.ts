import type { Token } from './code.js';

/**
 * Runs of Ajv's tokens as compact-code.ts reads and writes them: a statement's end at bracket depth 0, and the
 * pieces joined back into code with whitespace only where two tokens would otherwise run together.
 */

/** A significant token, and whether a line break preceded it. */
export interface Sig {
  t: Token;
  nl: boolean;
}

/** Pieces of output: a token's text, or a rewritten span (which carries no line breaks of its own). */
export interface Piece {
  text: string;
  /** Index of the original significant token this piece starts at, for its line break. */
  from: number;
}

/** Tokens after which a line break in Ajv's code is kept, so the output keeps one statement per line. */
const LINE_ENDS = new Set([';', '{', '}']);

/** Keywords of JavaScript's restricted productions: a line break after them is meaningful (no ASI change allowed). */
const RESTRICTED = new Set(['return', 'throw', 'break', 'continue', 'yield']);

/** Index of the first `stop` token at bracket depth 0 from i (before `limit`), or undefined. */
export function topLevelEnd(texts: readonly string[], i: number, stop: string, limit = texts.length): number | undefined {
  let depth = 0;
  for (let j = i; j < limit; j++) {
    const t = texts[j]!;
    if (depth === 0 && t === stop) return j;
    if (t === '(' || t === '[' || t === '{') depth++;
    else if (t === ')' || t === ']' || t === '}') {
      depth--;
      if (depth < 0) return undefined;
    }
  }
  return undefined;
}

export function join(pieces: readonly Piece[], sig: readonly Sig[]): string {
  let out = '';
  let prev = '';
  for (const piece of pieces) {
    const lineBreak = sig[piece.from]!.nl;
    const before = sig[piece.from - 1]?.t;
    const joins = piece.text === 'else' || piece.text === ';'; // `} else {` and a stray `;` stay on their line
    if (out !== '' && lineBreak && !joins && (LINE_ENDS.has(prev.slice(-1)) || RESTRICTED.has(prev) || before?.kind === 'comment')) out += '\n';
    else if (out !== '' && needsSpace(prev, piece.text, lineBreak)) out += lineBreak ? '\n' : ' ';
    out += piece.text;
    prev = piece.text;
  }
  return out;
}

export function joinTexts(parts: readonly string[]): string {
  let out = '';
  let prev = '';
  for (const p of parts) {
    if (out !== '' && needsSpace(prev, p, false)) out += ' ';
    out += p;
    prev = p;
  }
  return out;
}

export function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || (c > 127 && /\s/.test(String.fromCharCode(c)));
}

/** Whether two adjacent tokens would run together (or change meaning) without whitespace between them. */
function needsSpace(a: string, b: string, lineBreak: boolean): boolean {
  if (lineBreak && (RESTRICTED.has(a) || b === '++' || b === '--' || b.startsWith('+') || b.startsWith('-'))) return true;
  const last = a.charCodeAt(a.length - 1);
  const first = b.charCodeAt(0);
  if (isWordChar(last) && isWordChar(first)) return true;
  return needsSpaceRare(a, b, String.fromCharCode(last), String.fromCharCode(first));
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c > 127;
}

function needsSpaceRare(a: string, b: string, last: string, first: string): boolean {
  if (/^[0-9]/.test(a) && first === '.') return true;
  if ((last === '+' || last === '-') && first === last) return true;
  if ((last === '<' && first === '!') || (a.endsWith('--') && first === '>')) return true; // `<!--` and `-->` start comments in scripts
  if (last === '/' && (first === '/' || first === '*')) return true;
  return false;
}

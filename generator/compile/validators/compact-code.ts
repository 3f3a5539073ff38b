import { tokenize } from './code.js';
import { CAT_HELPER, FAIL_AT_HELPER, FAIL_CAT_HELPER, FAIL_HELPER, FAIL_TYPE_HELPER, PROPERTY_ERROR_HELPER, PROPERTY_TYPE_HELPER, PUSH_HELPER, RESERVED_NAMES } from './compact.js';
import { errorLiteral, spanText, type ErrorCall } from './compact-errors.js';
import { dropPassThrough, SHORT_NAMES, shortInstancePath, shortLocals } from './compact-locals.js';
import { isSpace, join, topLevelEnd, type Piece, type Sig } from './compact-text.js';

/**
 * One Ajv function's code compacted, token by token (the scanner in code.ts, never a regular expression over code
 * that holds schema strings): its statements rewritten into calls of compact.ts's helpers (that file lists each
 * rewrite), its locals renamed short (compact-locals.ts), whitespace dropped where two tokens cannot run together.
 */

export function compactCode(code: string): string {
  const all = tokenize(code);
  for (const t of all) {
    if (t.kind === 'ident' && !t.afterDot && RESERVED_NAMES.has(t.text)) throw new Error(`Ajv code already uses the name ${t.text}`);
  }
  // Significant tokens, each with whether a line break preceded it.
  let sig: Sig[] = [];
  let nl = false;
  let gap = '';
  for (const t of all) {
    // The scanner gives a run of whitespace as one token of its own, so its first character tells.
    if (t.kind === 'other' && isSpace(t.text.charCodeAt(0))) {
      gap = t.text;
      if (/[\n\r\u2028\u2029]/.test(t.text)) nl = true;
      continue;
    }
    // `++` and `--` are one operator: the scanner gives single characters, and only a space may separate `+ +`.
    const last = sig[sig.length - 1];
    if (!nl && gap === '' && last !== undefined && (t.text === '+' || t.text === '-') && last.t.text === t.text) {
      last.t = { kind: 'other', text: t.text + t.text };
      continue;
    }
    sig.push({ t, nl });
    nl = false;
    gap = '';
  }
  sig = shortInstancePath(dropPassThrough(sig));
  const uses = new Map<string, number>();
  for (const { t } of sig) if (t.kind === 'ident' && !t.afterDot) uses.set(t.text, (uses.get(t.text) ?? 0) + 1);
  const text = rewrite(shortLocals(sig.map((s) => s.t), uses), uses);
  // Re-join with the line breaks of the significant tokens that survived the rewrite (their positions shifted).
  return join(text, sig);
}

function rewrite(texts: readonly string[], uses: ReadonlyMap<string, number>): Piece[] {
  const out: Piece[] = [];
  let i = 0;
  while (i < texts.length) {
    const cat = concatenated(texts, i);
    if (cat !== undefined) {
      // Taken, counted, and the function ends with them (a failing call outside a union: load/ajv-flow.ts).
      const counted = [cat.list === 'vErrors' ? 'errors' : SHORT_NAMES.errors, '=', cat.list, '.', 'length', ';'];
      const fn = texts[cat.end + counted.length];
      const end = fn !== undefined && /^[A-Za-z_$][\w$]*$/.test(fn) ? matchTexts(texts, cat.end, [...counted, fn, '.', 'errors', '=', cat.list, ';', 'return', 'false', ';']) : undefined;
      if (end !== undefined) {
        out.push({ text: `return ${FAIL_CAT_HELPER}(${fn},${cat.list},${cat.callee});`, from: i });
        i = end;
        continue;
      }
      out.push({ text: `${cat.list}=${CAT_HELPER}(${cat.list},${cat.callee});`, from: i });
      i = cat.end;
      continue;
    }
    const push = collected(texts, i, uses);
    if (push !== undefined) {
      out.push({ text: `${push.list}=${PUSH_HELPER}(${push.list},${spanText(texts, push.valueStart, push.valueEnd)});`, from: i });
      i = push.end;
      continue;
    }
    const fail = failed(texts, i);
    if (fail !== undefined) {
      // The one error is a literal the helpers build (its arguments go to FAIL_AT or FAIL_TYPE), or any expression.
      const err = errorLiteral(texts, fail.valueStart);
      const text = err !== undefined && err.end === fail.valueEnd ? failCall(fail.fn, err) : `${FAIL_HELPER}(${fail.fn},${spanText(texts, fail.valueStart, fail.valueEnd)})`;
      out.push({ text: `return ${text};`, from: i });
      i = fail.end;
      continue;
    }
    const err = errorLiteral(texts, i);
    if (err !== undefined) {
      out.push({ text: err.text, from: i });
      i = err.end;
      continue;
    }
    out.push({ text: texts[i]!, from: i });
    i++;
  }
  return out;
}

/**
 * `const errN = <value>;if(vErrors===null){vErrors=[errN];}else{vErrors.push(errN);}` at i, where errN is used
 * nowhere else in the function: Ajv's addError.
 */
function collected(texts: readonly string[], i: number, uses: ReadonlyMap<string, number>): { list: string; valueStart: number; valueEnd: number; end: number } | undefined {
  if (texts[i] !== 'const' || texts[i + 2] !== '=') return undefined;
  const name = texts[i + 1]!;
  if (!/^err\d+$/.test(name) || uses.get(name) !== 3) return undefined;
  const valueStart = i + 3;
  const valueEnd = topLevelEnd(texts, valueStart, ';');
  if (valueEnd === undefined) return undefined;
  const list = texts[valueEnd + 3]!; // vErrors, or its short name
  if (list !== 'vErrors' && list !== SHORT_NAMES.vErrors) return undefined;
  const tail = `;if(${list}===null){${list}=[${name}];}else{${list}.push(${name});}`;
  let j = valueEnd;
  let s = '';
  while (j < texts.length && s.length < tail.length) s += texts[j++];
  return s === tail ? { list, valueStart, valueEnd, end: j } : undefined;
}

/** `FAIL(F,<error>)`, or its shorter form taking the arguments of an error at a run of property names. */
function failCall(fn: string, err: ErrorCall): string {
  const short = err.helper === PROPERTY_TYPE_HELPER ? FAIL_TYPE_HELPER : err.helper === PROPERTY_ERROR_HELPER ? FAIL_AT_HELPER : undefined;
  return short === undefined ? `${FAIL_HELPER}(${fn},${err.text})` : `${short}(${fn},${err.args.join(',')})`;
}

/** `F.errors=[<one value>];return false;` at i (F an identifier): Ajv failing a definition on its first error. */
function failed(texts: readonly string[], i: number): { fn: string; valueStart: number; valueEnd: number; end: number } | undefined {
  const fn = texts[i]!;
  if (!/^[A-Za-z_$][\w$]*$/.test(fn) || texts[i - 1] === '.' || matchTexts(texts, i + 1, ['.', 'errors', '=', '[']) === undefined) return undefined;
  const valueStart = i + 5;
  const valueEnd = topLevelEnd(texts, valueStart, ']');
  if (valueEnd === undefined || valueEnd === valueStart || topLevelEnd(texts, valueStart, ',', valueEnd) !== undefined) return undefined;
  const end = matchTexts(texts, valueEnd + 1, [';', 'return', 'false', ';']);
  return end === undefined ? undefined : { fn, valueStart, valueEnd, end };
}

/**
 * `vErrors=vErrors===null?F.errors:vErrors.concat(F.errors);` at i, F a binding or a member chain of one
 * (`validate_x`, `ref_x.validate`): Ajv taking the errors of a definition it called, which failed.
 */
function concatenated(texts: readonly string[], i: number): { list: string; callee: string; end: number } | undefined {
  const list = texts[i]!;
  if (list !== 'vErrors' && list !== SHORT_NAMES.vErrors) return undefined;
  // The scanner gives operators one character at a time: `===` is three tokens.
  let j = matchTexts(texts, i + 1, ['=', list, '=', '=', '=', 'null', '?']);
  if (j === undefined) return undefined;
  const callee = memberChain(texts, j);
  if (callee === undefined) return undefined;
  j = matchTexts(texts, callee.end, ['.', 'errors', ':', list, '.', 'concat', '(', ...callee.tokens, '.', 'errors', ')', ';']);
  return j === undefined ? undefined : { list, callee: callee.tokens.join(''), end: j };
}

/** The index after `expected` when the tokens from i are exactly those, else undefined. */
function matchTexts(texts: readonly string[], i: number, expected: readonly string[]): number | undefined {
  for (let k = 0; k < expected.length; k++) if (texts[i + k] !== expected[k]) return undefined;
  return i + expected.length;
}

/** `a`, `a.b`, `a.b.c` at i (identifiers joined by dots), stopping before a `.errors`. */
function memberChain(texts: readonly string[], i: number): { tokens: string[]; end: number } | undefined {
  const ident = /^[A-Za-z_$][\w$]*$/;
  if (!ident.test(texts[i] ?? '')) return undefined;
  const tokens = [texts[i]!];
  let j = i + 1;
  while (texts[j] === '.' && ident.test(texts[j + 1] ?? '') && texts[j + 1] !== 'errors') {
    tokens.push('.', texts[j + 1]!);
    j += 2;
  }
  return { tokens, end: j };
}

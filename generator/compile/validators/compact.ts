import { jsonText, tokenize, type Token } from './code.js';

/**
 * Compacts one Ajv function's code, token by token (the scanner in code.ts, never a regular expression
 * over code that holds schema strings), for issue 12's size goal. A quarter of Ajv's standalone output is error
 * objects, and a tenth is whitespace:
 *
 * - An error object literal `{instancePath:…,schemaPath:"…/<keyword>",keyword:"<keyword>",params:…}` becomes
 *   `ERROR(instancePath expr, "…", "<keyword>", params expr)`: the same four properties, in the same order, with the
 *   same values (the schema path is rebuilt as `<path>/<keyword>`, Ajv's own rule for every keyword's error). Where
 *   the instance path is the function's own plus a constant run of plain property names (`P+"/budget/amount"`) and
 *   the schema path follows them through `properties` (`#/properties/budget/properties/amount`), as three errors in
 *   four do, it becomes `PROPERTY_ERROR(P, "/budget/amount", "<keyword>", params expr)`, which rebuilds both paths:
 *   the schema path is not written twice (a twentieth of the packs).
 *   A wrong type there, the most frequent error, is `PROPERTY_TYPE(P, "/budget/amount", "<type>")`.
 * - Ajv's "fail on the first error" statements (`validate.errors=[<error>];return false;`) become
 *   `return FAIL(validate,<error>);`: the same array of one error on the function, the same `false` (`FAIL_AT` and
 *   `FAIL_TYPE` take a property-run error's arguments).
 * - Ajv's "collect an error" statement (`const errN = …; if(vErrors === null){vErrors = [errN];} else
 *   {vErrors.push(errN);}`) becomes `vErrors=PUSH(vErrors,…);`: the same array, pushed or created.
 * - Ajv's "take a called definition's errors" statement (`vErrors = vErrors === null ? f.errors :
 *   vErrors.concat(f.errors);`, run only when `f` failed) becomes `vErrors=CAT(vErrors,f);`: the same array, taken or
 *   concatenated. CAT also notes on each error (`via`) the location of every definition it passed through, innermost
 *   first, one string joined by line feeds (locations hold none: modules.ts): the runtime names the schema that
 *   rejected (`schema_id`) and tells a union's arms apart by it. A valid payload runs it too, for the arms of its
 *   unions that failed before one matched, so it is one string per error, never an array or a property descriptor
 *   (those halved the validation of a valid sync_creatives). Outside a union, where the function then ends with
 *   those errors (`errors=vErrors.length;F.errors=vErrors;return false;`, load/ajv-flow.ts), the four statements
 *   are `return FAIL_CAT(F,vErrors,f);`.
 * - Whitespace between tokens is dropped wherever the two tokens cannot run together; a line break is kept where
 *   Ajv put one after a `;`, `{` or `}`, so a reader still follows one statement per line.
 *
 * The helpers are defined once per pack (`COMPACT_HELPERS`). Nothing here changes what the code computes: every
 * rewrite is a fixed, checked token sequence, and anything unexpected is left as Ajv wrote it.
 */

export const ERROR_HELPER = '$err';
export const PROPERTY_ERROR_HELPER = '$propErr';
export const ITEM_ERROR_HELPER = '$itemErr';
export const PROPERTY_TYPE_HELPER = '$propType';
export const FAIL_HELPER = '$fail';
export const FAIL_AT_HELPER = '$failAt';
export const FAIL_TYPE_HELPER = '$failType';
export const PUSH_HELPER = '$push';
export const CAT_HELPER = '$cat';
export const FAIL_CAT_HELPER = '$failCat';

/** The helpers' definitions, placed once ahead of the definitions that use them. */
export const COMPACT_HELPERS = [
  `function ${ERROR_HELPER}(instancePath, schemaPath, keyword, params) {`,
  '  return { instancePath, schemaPath: schemaPath + "/" + keyword, keyword, params };',
  '}',
  '// An error at a run of property names below the function\'s own path: `/a/b` is `#/properties/a/properties/b`; through',
  '// array items, each `*`: `/a/*/b` is `#/properties/a/items/properties/b`. Each run\'s schema path is made once (a',
  '// rejected call answers as fast as with the path written out).',
  'const $schemaPaths = new Map();',
  'function $schemaPath(names) {',
  '  if (names === "") return "#";',
  '  let path = $schemaPaths.get(names);',
  '  if (path === undefined) $schemaPaths.set(names, (path = "#" + names.replace(/\\/(?!\\*)/g, "/properties/").replace(/\\/\\*/g, "/items")));',
  '  return path;',
  '}',
  `function ${PROPERTY_ERROR_HELPER}(base, names, keyword, params) {`,
  '  return { instancePath: base + names, schemaPath: $schemaPath(names) + "/" + keyword, keyword, params };',
  '}',
  `function ${ITEM_ERROR_HELPER}(instancePath, names, keyword, params) {`,
  '  return { instancePath, schemaPath: $schemaPath(names) + "/" + keyword, keyword, params };',
  '}',
  '// The most frequent of them: a wrong type at a run of property names.',
  `function ${PROPERTY_TYPE_HELPER}(base, names, type) {`,
  `  return ${PROPERTY_ERROR_HELPER}(base, names, "type", { type });`,
  '}',
  '// A definition failing on its first error: `validate.errors = [error]; return false;`; the two most frequent, at a',
  '// run of property names, with their arguments.',
  `function ${FAIL_HELPER}(validate, error) {`,
  '  validate.errors = [error];',
  '  return false;',
  '}',
  `function ${FAIL_AT_HELPER}(validate, base, names, keyword, params) {`,
  `  return ${FAIL_HELPER}(validate, ${PROPERTY_ERROR_HELPER}(base, names, keyword, params));`,
  '}',
  `function ${FAIL_TYPE_HELPER}(validate, base, names, type) {`,
  `  return ${FAIL_HELPER}(validate, ${PROPERTY_TYPE_HELPER}(base, names, type));`,
  '}',
  `function ${PUSH_HELPER}(vErrors, error) {`,
  '  if (vErrors === null) return [error];',
  '  vErrors.push(error);',
  '  return vErrors;',
  '}',
  `function ${CAT_HELPER}(vErrors, callee) {`,
  '  const errors = callee.errors;',
  '  const at = callee.location;',
  '  for (let i = 0; i < errors.length; i++) {',
  '    const e = errors[i];',
  '    e.via = e.via === undefined ? at : e.via + "\\n" + at;',
  '  }',
  '  return vErrors === null ? errors : vErrors.concat(errors);',
  '}',
  '// A called definition failing outside a union ends the caller with its errors (load/ajv-flow.ts).',
  `function ${FAIL_CAT_HELPER}(validate, vErrors, callee) {`,
  `  validate.errors = ${CAT_HELPER}(vErrors, callee);`,
  '  return false;',
  '}',
];

/** The helpers the compacted code calls, in the order the helpers module exports them. */
export const HELPER_NAMES = [ERROR_HELPER, PROPERTY_ERROR_HELPER, ITEM_ERROR_HELPER, PROPERTY_TYPE_HELPER, FAIL_HELPER, FAIL_AT_HELPER, FAIL_TYPE_HELPER, PUSH_HELPER, CAT_HELPER, FAIL_CAT_HELPER] as const;
const HELPERS = new Set<string>(['$schemaPaths', '$schemaPath', 'define', ...HELPER_NAMES]);

/** What a pack calls to initialise its definitions (packs.ts): `const define = definer(exports)`. */
export const DEFINER = 'definer';

/**
 * What every validator pack requires (`validate/support/pack.cjs`): its definitions' initialiser and the error
 * helpers, 3 kB written once, not in each of a set's eighty-odd packs.
 */
export function packSupportModule(): string {
  return [
    '"use strict";',
    '// What every validator pack requires: its definitions\' initialiser (packs.ts) and the error helpers of the',
    '// compacted code (compact.ts). Generated by adcp-codegen from generator/compile/validators/.',
    '// Each definition is initialised on first use: `define` installs a getter that runs it once, then notes where',
    '// the definition lives on its function (what `$cat` notes on the errors passing through it).',
    `function ${DEFINER}(pack) {`,
    '  return (name, location, init) => {',
    '    Object.defineProperty(pack, name, { configurable: true, enumerable: true, get() {',
    '      const unit = {};',
    '      Object.defineProperty(pack, name, { value: unit, enumerable: true });',
    '      init(unit);',
    '      unit.validate.location = location;',
    '      return unit;',
    '    } });',
    '  };',
    '}',
    ...COMPACT_HELPERS,
    `module.exports = { ${[DEFINER, ...HELPER_NAMES].join(', ')} };`,
    '',
  ].join('\n');
}

/** The helpers a piece of compacted code calls (a name followed by its call's parenthesis). */
export function helpersUsed(code: string): string[] {
  return HELPER_NAMES.filter((name) => code.includes(`${name}(`));
}

const ERROR_KEYS = ['instancePath', 'schemaPath', 'keyword', 'params'];

/** Tokens after which a line break in Ajv's code is kept, so the output keeps one statement per line. */
const LINE_ENDS = new Set([';', '{', '}']);

/** Keywords of JavaScript's restricted productions: a line break after them is meaningful (no ASI change allowed). */
const RESTRICTED = new Set(['return', 'throw', 'break', 'continue', 'yield']);

export function compactCode(code: string): string {
  const all = tokenize(code);
  for (const t of all) {
    if (t.kind === 'ident' && !t.afterDot && HELPERS.has(t.text)) throw new Error(`Ajv code already uses the name ${t.text}`);
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

/** Pieces of output: a token's text, or a rewritten span (which carries no line breaks of its own). */
interface Piece {
  text: string;
  /** Index of the original significant token this piece starts at, for its line break. */
  from: number;
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

/** The text of tokens [start, end), error literals inside it rewritten. */
function spanText(texts: readonly string[], start: number, end: number): string {
  const parts: string[] = [];
  let i = start;
  while (i < end) {
    const err = errorLiteral(texts, i);
    if (err !== undefined && err.end <= end) {
      parts.push(err.text);
      i = err.end;
    } else {
      parts.push(texts[i]!);
      i++;
    }
  }
  return joinTexts(parts);
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

/**
 * Ajv's locals of one function, renamed to short names: `errors` (the error count) → `N`, `vErrors` (the error
 * list) → `V`, `_errsK` → `eK`, `validK` → `vK`, `dataK` → `dK`. They are plain variables of the function (never
 * properties: a property read is `.errors`, after a dot, and left alone), so renaming them changes nothing but their
 * spelling. A function whose code already uses one of the short names, or uses a long one as an object key, keeps
 * Ajv's names.
 */
export const SHORT_NAMES = { errors: 'N', vErrors: 'V' } as const;
const NUMBERED: [RegExp, string][] = [
  [/^_errs(\d+)$/, 'e'],
  [/^valid(\d+)$/, 'v'],
  [/^data(\d+)$/, 'd'],
];

function shortName(name: string): string | undefined {
  if (name === 'errors' || name === 'vErrors') return SHORT_NAMES[name];
  for (const [re, prefix] of NUMBERED) {
    const m = re.exec(name);
    if (m !== null) return `${prefix}${m[1]!}`;
  }
  return undefined;
}

function shortLocals(tokens: readonly Token[], uses: ReadonlyMap<string, number>): string[] {
  const texts = tokens.map((t) => t.text);
  const renames = new Map<string, string>();
  for (const name of uses.keys()) {
    const short = shortName(name);
    if (short !== undefined) renames.set(name, short);
  }
  for (const short of renames.values()) if (uses.has(short)) return texts;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== 'ident' || t.afterDot || !renames.has(t.text)) continue;
    const before = texts[i - 1];
    const after = texts[i + 1];
    // An object key (`{errors: …}`) or shorthand property (`{errors}`) would change the object: keep Ajv's names.
    if ((before === '{' || before === ',') && (after === ':' || after === ',' || after === '}')) return texts;
    texts[i] = renames.get(t.text)!;
  }
  return texts;
}

/** A significant token, and whether a line break preceded it. */
interface Sig {
  t: Token;
  nl: boolean;
}

/** The options Ajv passes from a function to every definition it calls, for keywords AdCP's schemas never use. */
const PASS_THROUGH = ['parentData', 'parentDataProperty', 'rootData'];

/**
 * Ajv hands `parentData`, `parentDataProperty` and `rootData` down every call (`f(x,{instancePath:…,parentData:d,
 * parentDataProperty:"k",rootData})`) and destructures them in every head (`rootData=data`), for `$data` references,
 * `removeAdditional`, `useDefaults` and type coercion — options the validators are compiled without (load/ajv.ts):
 * nothing reads them but the next call. Dropping them from heads and calls leaves `{instancePath:…}`: a twentieth of
 * the code. Only when every mention of them in the function is one of those three shapes; otherwise Ajv's text stays.
 */
function dropPassThrough(sig: Sig[]): Sig[] {
  const texts = sig.map((s) => s.t.text);
  const out: Sig[] = [];
  let i = 0;
  while (i < sig.length) {
    const end = passThroughEnd(texts, i);
    if (end === undefined) out.push(sig[i++]!);
    else i = end;
  }
  const left = out.some((s) => s.t.kind === 'ident' && !s.t.afterDot && PASS_THROUGH.includes(s.t.text));
  return left ? sig : out;
}

/**
 * At a `,` opening `parentData…rootData` right before a `}`: the index of that `}`. The three shapes: the head's
 * `,parentData,parentDataProperty,rootData=data}`, a call's `,parentData:X,parentDataProperty:Y,rootData}` (X and Y
 * one token each) and its shorthand `,parentData,parentDataProperty,rootData}`.
 */
function passThroughEnd(texts: readonly string[], i: number): number | undefined {
  if (texts[i] !== ',' || texts[i + 1] !== 'parentData') return undefined;
  let j = i + 2;
  if (texts[j] === ':') j += 2;
  if (texts[j] !== ',' || texts[j + 1] !== 'parentDataProperty') return undefined;
  j += 2;
  if (texts[j] === ':') j += 2;
  if (texts[j] !== ',' || texts[j + 1] !== 'rootData') return undefined;
  j += 2;
  if (texts[j] === '=' && texts[j + 1] === 'data') j += 2;
  return texts[j] === '}' ? j : undefined;
}

/** The function head every Ajv function has: the options it destructures, `instancePath` among them. */
const HEAD = ['function', '*', '(', 'data', ',', '{', 'instancePath', '=', '""'];
export const SHORT_INSTANCE_PATH = 'P';

/**
 * `instancePath`, the most frequent name in Ajv's code, read as the local `P`: the head destructures
 * `{instancePath:P="",…}`, object literals keep their `instancePath` key (`{instancePath:P,…}` for Ajv's
 * shorthand), and every other read is `P`. Only for a function with Ajv's head that does not use `P` already.
 */
function shortInstancePath(sig: Sig[]): Sig[] {
  // The head's options go on (`,parentData,…`) or, once dropPassThrough has run, end (`}`).
  const next = sig[HEAD.length]?.t.text;
  const isHead = HEAD.every((text, i) => text === '*' || sig[i]?.t.text === text) && (next === ',' || next === '}');
  if (!isHead || sig.some((s) => s.t.kind === 'ident' && !s.t.afterDot && s.t.text === SHORT_INSTANCE_PATH)) return sig;
  const ident = (text: string): Token => ({ kind: 'ident', text, afterDot: false });
  const colon: Token = { kind: 'other', text: ':' };
  const out: Sig[] = [];
  const open: string[] = [];
  for (let i = 0; i < sig.length; i++) {
    const s = sig[i]!;
    const text = s.t.text;
    if (text === '(' || text === '[' || text === '{') open.push(text);
    else if (text === ')' || text === ']' || text === '}') open.pop();
    if (s.t.kind !== 'ident' || s.t.afterDot || text !== 'instancePath') {
      out.push(s);
      continue;
    }
    const before = sig[i - 1]?.t.text;
    const after = sig[i + 1]?.t.text;
    const inObject = open[open.length - 1] === '{' && (before === '{' || before === ',');
    if (inObject && after === ':') out.push(s); // a key
    else if (inObject && (after === ',' || after === '}' || (after === '=' && i === HEAD.indexOf('instancePath')))) {
      out.push(s, { t: colon, nl: false }, { t: ident(SHORT_INSTANCE_PATH), nl: false }); // shorthand, or the head's default
    } else if (inObject) {
      throw new Error('instancePath in an unexpected position in Ajv code');
    } else out.push({ t: ident(SHORT_INSTANCE_PATH), nl: s.nl });
  }
  return out;
}

/** An error object literal at i (`{instancePath…}` in an expression position), as a call to the error helper. */
/** An error literal rewritten as a call of one of the helpers: its text, and the helper and arguments it calls. */
interface ErrorCall {
  readonly helper: string;
  readonly args: readonly string[];
  readonly text: string;
  readonly end: number;
}

function errorLiteral(texts: readonly string[], i: number): ErrorCall | undefined {
  if (texts[i] !== '{' || texts[i + 1] !== 'instancePath' || !['[', '=', '(', ','].includes(texts[i - 1] ?? '')) return undefined;
  const close = topLevelEnd(texts, i + 1, '}');
  if (close === undefined) return undefined;
  // Entries split at top-level commas.
  const entries: [number, number][] = [];
  let start = i + 1;
  for (;;) {
    const end = topLevelEnd(texts, start, ',', close);
    entries.push([start, end ?? close]);
    if (end === undefined) break;
    start = end + 1;
  }
  if (entries.length !== ERROR_KEYS.length) return undefined;
  const values: string[] = [];
  for (let k = 0; k < entries.length; k++) {
    const [s, e] = entries[k]!;
    const key = ERROR_KEYS[k]!;
    if (texts[s] !== key) return undefined;
    if (e === s + 1) values.push(key); // shorthand `{instancePath,…}`
    else if (texts[s + 1] === ':' && e > s + 2) values.push(spanText(texts, s + 2, e));
    else return undefined;
  }
  const [path, keyword] = [values[1]!, values[2]!];
  if (!isStringToken(path) || !isStringToken(keyword)) return undefined;
  const p = JSON.parse(path) as string;
  const kw = JSON.parse(keyword) as string;
  if (!p.endsWith(`/${kw}`)) return undefined;
  const at = p.slice(0, -kw.length - 1);
  const call = (helper: string, args: string[]): ErrorCall => ({ helper, args, text: `${helper}(${args.join(',')})`, end: close + 1 });
  const run = propertyRun(values[0]!, at);
  if (run === undefined) return call(ERROR_HELPER, [values[0]!, jsonText(at), keyword, values[3]!]);
  if (run.indexes) return call(ITEM_ERROR_HELPER, [values[0]!, jsonText(run.names), keyword, values[3]!]);
  const type = kw === 'type' ? /^\{type:("[a-z]+")\}$/.exec(values[3]!)?.[1] : undefined;
  return type !== undefined ? call(PROPERTY_TYPE_HELPER, [run.base, jsonText(run.names), type]) : call(PROPERTY_ERROR_HELPER, [run.base, jsonText(run.names), keyword, values[3]!]);
}

/**
 * An instance path expression, the function's own (`P` or `instancePath`) followed by string literals and loop
 * indexes (`P+"/a/"+i0+"/b"`), whose schema path `at` walks the same names through `properties` and each index
 * through `items` (`#/properties/a/items/properties/b`): the base, the run (a `*` for each index) and whether it
 * has one; else undefined.
 */
function propertyRun(instance: string, at: string): { base: string; names: string; indexes: boolean } | undefined {
  // A literal holding `+` is no plain name either: splitting at every `+` loses nothing that could match.
  const [base, ...parts] = instance.split('+');
  if (base !== 'P' && base !== 'instancePath') return undefined;
  let run = '';
  let indexes = false;
  for (const part of parts) {
    if (/^i\d+$/.test(part)) {
      if (!run.endsWith('/')) return undefined;
      run += '*';
      indexes = true;
    } else if (/^"[A-Za-z0-9_/-]*"$/.test(part)) {
      const text = JSON.parse(part) as string;
      if (run.endsWith('*') && !text.startsWith('/')) return undefined;
      run += text;
    } else return undefined;
  }
  if (run === '') return at === '#' ? { base, names: '', indexes } : undefined;
  if (!run.startsWith('/')) return undefined;
  const names = run.slice(1).split('/');
  if (!names.every((n) => n === '*' || PLAIN_NAME.test(n))) return undefined;
  return `#${names.map((n) => (n === '*' ? '/items' : `/properties/${n}`)).join('')}` === at ? { base, names: run, indexes } : undefined;
}

/** Property names as they appear unescaped alike in an instance path and in Ajv's schema paths. */
const PLAIN_NAME = /^[A-Za-z0-9_-]+$/;

function isStringToken(text: string): boolean {
  if (!/^"(?:[^"\\]|\\.)*"$/.test(text)) return false;
  try {
    return typeof JSON.parse(text) === 'string';
  } catch {
    return false;
  }
}

/** Index of the first `stop` token at bracket depth 0 from i (before `limit`), or undefined. */
function topLevelEnd(texts: readonly string[], i: number, stop: string, limit = texts.length): number | undefined {
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

function join(pieces: readonly Piece[], sig: readonly Sig[]): string {
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

function joinTexts(parts: readonly string[]): string {
  let out = '';
  let prev = '';
  for (const p of parts) {
    if (out !== '' && needsSpace(prev, p, false)) out += ' ';
    out += p;
    prev = p;
  }
  return out;
}

function isSpace(c: number): boolean {
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

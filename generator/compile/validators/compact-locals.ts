import type { Token } from './code.js';
import type { Sig } from './compact-text.js';

/**
 * Ajv's names in one function made shorter, each a renaming that changes only spelling: its numbered locals, the
 * options passed down every call that nothing reads, and `instancePath` (compact-code.ts runs them).
 */

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

export function shortLocals(tokens: readonly Token[], uses: ReadonlyMap<string, number>): string[] {
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


/** The options Ajv passes from a function to every definition it calls, for keywords AdCP's schemas never use. */
const PASS_THROUGH = ['parentData', 'parentDataProperty', 'rootData'];

/**
 * Ajv hands `parentData`, `parentDataProperty` and `rootData` down every call (`f(x,{instancePath:…,parentData:d,
 * parentDataProperty:"k",rootData})`) and destructures them in every head (`rootData=data`), for `$data` references,
 * `removeAdditional`, `useDefaults` and type coercion — options the validators are compiled without (load/ajv.ts):
 * nothing reads them but the next call. Dropping them from heads and calls leaves `{instancePath:…}`: a twentieth of
 * the code. Only when every mention of them in the function is one of those three shapes; otherwise Ajv's text stays.
 */
export function dropPassThrough(sig: Sig[]): Sig[] {
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
export function shortInstancePath(sig: Sig[]): Sig[] {
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

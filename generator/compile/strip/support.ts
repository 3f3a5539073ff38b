/**
 * The few run-time helpers every generated strip module shares, as JavaScript source: emitted once per release as
 * `strip/_shared/support.<hash>.cjs`, prepended to the code `compileStrip` evaluates in memory, and evaluated once
 * for the interpreter, so the compiled and interpreted strips use the very same helpers.
 *
 * Calling convention of a generated strip function: `(v, c, d)` — the value, the call's context
 * `{ k: [keys on the path], removed: [], undecided: [] }` and the depth; it returns `v` itself when nothing was
 * removed below it (copy on write), a new object/array otherwise.
 */
export const STRIP_MAX_DEPTH = 256;
/** Union/condition decisions chained on one value before the place counts as undecided (schemas that loop). */
export const STRIP_MAX_HOPS = 32;

/** Names the support source defines, in the order `exports` lists them. */
export const SUPPORT_NAMES = ['MAX_DEPTH', 'MAX_HOPS', 'ABSENT', 'hasOwn', 'has', 'isObj', 'dig', 'at', 'upTo', 'copy', 'put', 'byNames', 'tooDeep', 'entry', 'StripDepthError'] as const;

export const SUPPORT_SOURCE = `const MAX_DEPTH = ${STRIP_MAX_DEPTH};
const MAX_HOPS = ${STRIP_MAX_HOPS};
const hasOwn = Object.prototype.hasOwnProperty;

/** Own properties only: inherited names (constructor, __proto__, toString) are never read as data. */
function has(o, k) {
  return hasOwn.call(o, k);
}

const ABSENT = Symbol("absent");

function isObj(x) {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** v[a][b] through own properties of plain objects, or ABSENT when a step is missing. */
function dig(v, a, b) {
  if (!has(v, a)) return ABSENT;
  const x = v[a];
  if (typeof x !== "object" || x === null || Array.isArray(x) || !has(x, b)) return ABSENT;
  return x[b];
}

function esc(k) {
  const s = String(k);
  return s.indexOf("~") < 0 && s.indexOf("/") < 0 ? s : s.replace(/~/g, "~0").replace(/\\//g, "~1");
}

/** The JSON pointer of the place at depth d (plus key k), built only when something is reported. */
function at(c, d, k) {
  let p = "";
  for (let i = 0; i < d; i++) p += "/" + esc(c.k[i]);
  return k === undefined ? p : p + "/" + esc(k);
}

/** Copy on write: a fresh object holding the own keys of v that come before k. */
function upTo(v, k) {
  const o = {};
  for (const j in v) {
    if (j === k) break;
    if (hasOwn.call(v, j)) put(o, j, v[j]);
  }
  return o;
}

/** Copy on write for open objects: every own key of v, in order (values replaced in place keep their position). */
function copy(v) {
  const o = {};
  for (const j in v) if (hasOwn.call(v, j)) put(o, j, v[j]);
  return o;
}

/** Assignment that cannot reach a prototype: "__proto__" becomes an own data property like any other name. */
function put(o, k, x) {
  if (k === "__proto__") Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
  else o[k] = x;
}

/**
 * Union stage 2, when several branches survive what the schema says: a closed branch that does not know a name
 * some surviving branch declares is out. names: Map name → mask of branches declaring it; patterns: [RegExp, mask].
 */
function byNames(v, m, closed, names, patterns) {
  let out = m;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    let known = names.get(k);
    for (let j = 0; j < patterns.length; j++) if (patterns[j][0].test(k)) known = (known === undefined ? 0 : known) | patterns[j][1];
    if (known === undefined || (known & m) === 0) continue;
    out &= ~(closed & ~known);
  }
  return out;
}

class StripDepthError extends RangeError {
  constructor(pointer) {
    super("payload nests deeper than " + MAX_DEPTH + " levels at " + (pointer === "" ? "the root" : pointer));
    this.name = "StripDepthError";
    this.code = "STRIP_TOO_DEEP";
    this.pointer = pointer;
  }
}

function tooDeep(c, d) {
  throw new StripDepthError(at(c, Math.min(d, 32)));
}

/** The exported StripFn around a root strip function: { value, removed, undecided }. */
function entry(fn) {
  return function strip(data) {
    const c = { k: [], removed: [], undecided: [] };
    const value = fn(data, c, 0);
    return { value, removed: c.removed, undecided: c.undecided };
  };
}
`;

/** The support module as CommonJS. */
export function supportModuleSource(): string {
  return `"use strict";\n// Run-time helpers shared by every deep-strip module of this release.\n${SUPPORT_SOURCE}\n${SUPPORT_NAMES.map((n) => `exports.${n} = ${n};`).join('\n')}\n`;
}

export interface StripSupport {
  MAX_DEPTH: number;
  MAX_HOPS: number;
  ABSENT: symbol;
  has(o: object, k: string): boolean;
  isObj(x: unknown): boolean;
  dig(v: object, a: string, b: string): unknown;
  at(c: StripContext, d: number, k?: string | number): string;
  hasOwn: (this: object, k: string) => boolean;
  upTo(v: Record<string, unknown>, k: string): Record<string, unknown>;
  copy(v: Record<string, unknown>): Record<string, unknown>;
  put(o: Record<string, unknown>, k: string, x: unknown): void;
  byNames(v: object, m: number, closed: number, names: ReadonlyMap<string, number>, patterns: readonly (readonly [RegExp, number])[]): number;
  tooDeep(c: StripContext, d: number): never;
  entry(fn: (v: unknown, c: StripContext, d: number) => unknown): (data: unknown) => { value: unknown; removed: string[]; undecided: string[] };
  StripDepthError: new (pointer: string) => RangeError;
}

export interface StripContext {
  k: (string | number)[];
  removed: string[];
  undecided: string[];
}

let support: StripSupport | undefined;

/** The helpers evaluated once in this process (for the interpreter). */
export function stripSupport(): StripSupport {
  support ??= new Function(`${SUPPORT_SOURCE}\nreturn { ${SUPPORT_NAMES.join(', ')} };`)() as StripSupport;
  return support;
}

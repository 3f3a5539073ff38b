/**
 * The forward analysis of ajv-flow.ts over one function of Ajv's CodeGen tree: which locals are known to hold 0 (the
 * error count and its `_errs` copies), `true` (the `valid` flags) or the count's current value on every path to each
 * point, and the comparisons and conditions that folds (rewritten in place, Ajv's optimizer removes the rest).
 */

/** One of Ajv's CodeGen nodes, as read here (their fields are TypeScript-private, plain properties at run time). */
export interface AstNode {
  readonly constructor: { readonly name: string };
  nodes?: AstNode[];
  else?: AstNode;
  condition?: unknown;
  rhs?: unknown;
  readonly lhs?: unknown;
  readonly name?: { readonly str: string };
  readonly code?: unknown;
  readonly label?: unknown;
}

/**
 * Facts on every path to a point: the `let`/`var` locals holding 0 (the count), those holding `true` (the `valid`
 * flags), and those holding the count's current value; null where no path reaches. Never changed once made: a step
 * that learns or forgets something makes a new one. What a `const` holds is known where it is declared and never
 * changes: it is kept by the walk (`Walk.consts`), not carried along every path (a large function declares hundreds).
 */
interface Facts {
  readonly zero: ReadonlySet<string>;
  readonly truthy: ReadonlySet<string>;
  /** The locals holding the count's current value (`const _errs5 = errors` with no error counted since). */
  readonly same: ReadonlySet<string>;
}

class Unknown extends Error {}

/** Ajv's name for the error count. */
const COUNT = 'errors';

/**
 * Folds one function. The walk only notes its edits; they are made once it is done, so a construct the analysis does
 * not know, met anywhere, leaves the function untouched.
 */
export function foldFunction(fn: AstNode): boolean {
  const edits: (() => void)[] = [];
  try {
    block(fn.nodes ?? [], EMPTY, { edits, breaks: undefined, consts: new Map() });
  } catch (e) {
    if (e instanceof Unknown) return false;
    throw e;
  }
  for (const edit of edits) edit();
  return edits.length > 0;
}

interface Walk {
  /** Where the walk notes its edits; none for a pass over a loop's body that only finds its entry facts. */
  readonly edits: (() => void)[] | undefined;
  /** Facts at the `break`s of the innermost loop. */
  breaks: Facts | null | undefined;
  /** What each `const` declared so far in this walk holds, when known (0 or `true`). */
  readonly consts: Map<string, 0 | true>;
  /** The walk around a loop's body: the constants declared before the loop. */
  readonly outer?: Walk;
}

const EMPTY: Facts = { zero: new Set(), truthy: new Set(), same: new Set() };

function constOf(ctx: Walk | undefined, name: string): 0 | true | undefined {
  for (let w = ctx; w !== undefined; w = w.outer) {
    const v = w.consts.get(name);
    if (v !== undefined) return v;
  }
  return undefined;
}

const both = (a: ReadonlySet<string>, b: ReadonlySet<string>): ReadonlySet<string> => (a === b ? a : new Set([...a].filter((n) => b.has(n))));
const equal = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a === b || (a.size === b.size && [...a].every((n) => b.has(n)));
const plus = (a: ReadonlySet<string>, name: string): ReadonlySet<string> => (a.has(name) ? a : new Set([...a, name]));

function merge(a: Facts | null, b: Facts | null): Facts | null {
  if (a === null) return b;
  if (b === null || a === b) return a;
  return { zero: both(a.zero, b.zero), truthy: both(a.truthy, b.truthy), same: both(a.same, b.same) };
}

function same(a: Facts | null, b: Facts | null): boolean {
  if (a === null || b === null) return a === b;
  return equal(a.zero, b.zero) && equal(a.truthy, b.truthy) && equal(a.same, b.same);
}

function block(nodes: readonly AstNode[], facts: Facts | null, ctx: Walk): Facts | null {
  let f = facts;
  for (const node of nodes) {
    if (f === null) return null; // what follows a return or a break is not reached
    f = statement(node, f, ctx);
  }
  return f;
}

function statement(node: AstNode, f: Facts, ctx: Walk): Facts | null {
  switch (node.constructor.name) {
    case 'Def':
      return assign(node.name!.str, node, f, ctx);
    case 'Assign':
      return isName(node.lhs) ? assign(node.lhs.str, node, f, ctx) : forget(f, node.rhs);
    case 'AssignOp':
      return isName(node.lhs) ? forgetNames(f, [node.lhs.str]) : f;
    case 'AnyCode':
      return forget(f, node.code);
    case 'Return':
    case 'Throw':
      return null;
    case 'Break':
      if (node.label !== undefined || ctx.breaks === undefined) throw new Unknown();
      ctx.breaks = merge(ctx.breaks, f);
      return null;
    case 'If':
      return branch(node, f, ctx);
    case 'ForLoop':
    case 'ForRange':
    case 'ForIter':
      return loop(node, f, ctx);
    default:
      throw new Unknown(); // Func, Try, Label, Else out of place: left as Ajv wrote it
  }
}

/** `name = rhs` (or its declaration): the rhs folded where it is known `true`. */
function assign(name: string, node: AstNode, f: Facts, ctx: Walk): Facts {
  const rhs = node.rhs;
  let out = forgetNames(forget(f, rhs), [name]);
  if (rhs === undefined) return out;
  const value = valueOf(rhs, f, ctx);
  if (value === true && rhs !== true) ctx.edits?.push(() => (node.rhs = true));
  const constant = node.constructor.name === 'Def' && String((node as unknown as { varKind?: unknown }).varKind) === 'const';
  if (constant && (value === 0 || value === true)) ctx.consts.set(name, value);
  else if (value === 0) out = { ...out, zero: plus(out.zero, name) };
  else if (value === true) out = { ...out, truthy: plus(out.truthy, name) };
  // A copy of the count holds its value until the count moves; the count reset to a copy holds that copy's.
  if (name === COUNT) out = { ...out, same: isName(rhs) ? new Set([rhs.str]) : EMPTY.same };
  else if (isName(rhs) && rhs.str === COUNT) out = { ...out, same: plus(out.same, name) };
  return out;
}

function branch(node: AstNode, f: Facts, ctx: Walk): Facts | null {
  const c = valueOf(node.condition, f, ctx);
  const known = c === true ? true : c === false ? false : undefined;
  if (known !== undefined && typeof node.condition !== 'boolean') ctx.edits?.push(() => (node.condition = known));
  const cond = forget(f, node.condition);
  const then = known === false ? null : block(node.nodes ?? [], cond, ctx);
  let other: Facts | null;
  if (known === true) other = null;
  else if (node.else === undefined) other = cond;
  else if (node.else.constructor.name === 'If') other = branch(node.else, cond, ctx);
  else if (node.else.constructor.name === 'Else') other = block(node.else.nodes ?? [], cond, ctx);
  else throw new Unknown();
  return merge(then, other);
}

/** A loop's body runs any number of times: its entry facts are those that hold before it and after each pass. */
function loop(node: AstNode, f: Facts, ctx: Walk): Facts | null {
  const parts = node as unknown as { iteration?: unknown; from?: unknown; to?: unknown; iterable?: unknown };
  let entry = f;
  for (const part of [parts.iteration, parts.from, parts.to, parts.iterable]) if (part !== undefined) entry = forget(entry, part);
  // The loop's own variable (`i0`, the key of a `for…in`) holds neither fact.
  entry = forgetNames(entry, loopNames(node));
  for (let pass = 0; ; pass++) {
    if (pass > 16) throw new Unknown();
    const dry: Walk = { edits: undefined, breaks: null, consts: new Map(), outer: ctx };
    const next = merge(entry, block(node.nodes ?? [], entry, dry))!;
    if (same(next, entry)) break;
    entry = next;
  }
  const inner: Walk = { edits: ctx.edits, breaks: null, consts: new Map(), outer: ctx };
  const out = block(node.nodes ?? [], entry, inner);
  return merge(merge(entry, out), inner.breaks ?? null);
}

function loopNames(node: AstNode): string[] {
  const n = (node as unknown as { name?: { str?: string } }).name;
  return typeof n?.str === 'string' ? [n.str] : [];
}

/**
 * What an expression is known to hold: 0 (the literal, or a local known to), `true` (the literal, a flag known
 * to, `a === b` of two known zeros, or of the count and a copy of its current value), `false` (`!flag` of a flag
 * known true); undefined otherwise.
 */
function valueOf(expr: unknown, f: Facts, ctx: Walk): 0 | true | false | undefined {
  if (expr === true || expr === false || expr === 0) return expr;
  if (expr === undefined || expr === null) return undefined;
  const text = String(expr).trim();
  const zero = (t: string): boolean => t === '0' || f.zero.has(t) || constOf(ctx, t) === 0;
  const truthy = (t: string): boolean => f.truthy.has(t) || constOf(ctx, t) === true;
  if (text === 'true') return true;
  if (zero(text)) return 0;
  if (truthy(text)) return true;
  const not = /^!\(?([A-Za-z_$][\w$]*)\)?$/.exec(text);
  if (not !== null && truthy(not[1]!)) return false;
  const eq = /^([A-Za-z_$][\w$]*|0) === ([A-Za-z_$][\w$]*|0)$/.exec(text);
  if (eq === null) return undefined;
  const [, a, b] = eq as unknown as [string, string, string];
  if (zero(a) && zero(b)) return true;
  return (a === COUNT && f.same.has(b)) || (b === COUNT && f.same.has(a)) ? true : undefined;
}

/** The locals an expression may assign (`x = …`, `x++`): a superset, never fewer; read once per expression. */
const assignedIn = new WeakMap<object, readonly string[]>();
const ASSIGNED = /([A-Za-z_$][\w$]*)\s*(?:=(?!=)|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_$][\w$]*)/g;

function assigned(expr: unknown): readonly string[] {
  if (expr === undefined || expr === null || typeof expr === 'boolean' || typeof expr === 'number') return [];
  const cached = typeof expr === 'object' ? assignedIn.get(expr) : undefined;
  if (cached !== undefined) return cached;
  const text = String(expr);
  const out: string[] = [];
  if (text.includes('=') || text.includes('++') || text.includes('--')) {
    ASSIGNED.lastIndex = 0;
    for (let m = ASSIGNED.exec(text); m !== null; m = ASSIGNED.exec(text)) {
      // A property (`validate.errors = …`) is no local.
      if (m[1] !== undefined && text[m.index - 1] === '.') continue;
      out.push(m[1] ?? m[2]!);
    }
  }
  if (typeof expr === 'object') assignedIn.set(expr, out);
  return out;
}

/** The facts without those of every local an expression may assign. */
function forget(f: Facts, expr: unknown): Facts {
  return forgetNames(f, assigned(expr));
}

function forgetNames(f: Facts, list: readonly string[]): Facts {
  const hit = list.some((n) => f.zero.has(n) || f.truthy.has(n) || f.same.has(n) || (n === COUNT && f.same.size > 0));
  if (!hit) return f;
  const drop = new Set(list);
  const keep = (s: ReadonlySet<string>): ReadonlySet<string> => new Set([...s].filter((n) => !drop.has(n)));
  return { zero: keep(f.zero), truthy: keep(f.truthy), same: drop.has(COUNT) ? EMPTY.same : keep(f.same) };
}

export function isName(x: unknown): x is { readonly str: string } {
  return typeof x === 'object' && x !== null && (x as { constructor: { name: string } }).constructor.name === 'Name' && typeof (x as { str?: unknown }).str === 'string';
}

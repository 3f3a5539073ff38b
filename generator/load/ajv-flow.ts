import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';

/**
 * Ajv's `allErrors: false` code, folded where its error count is known (issue 31's bytes). Ajv guards every step of
 * a function with flags recomputed from the count — `const _errs5 = errors; … var valid0 = _errs5 === errors;
 * if (valid0) { …` — because a failing `$ref` only adds the callee's errors and lets the flags skip the rest of the
 * function. Two changes, both in the build-time Ajv of the validators alone (never the run-time Ajv the differential
 * tests compare them with):
 *
 * 1. A failing `$ref` (or hoisted subschema) outside a union, `not`, `if` or `contains` — where Ajv's own errors
 *    return at once (`reportError`: neither `allErrors` nor `compositeRule`) — returns at once too, with the same
 *    errors: Ajv's flags (`if (errors === 0)` between keyword groups, a `valid` flag between properties, a `break`
 *    out of items) would have skipped everything after it to the function's `validate.errors = vErrors; return
 *    errors === 0`, which is what it now does itself. Not inside an `if`'s `then` or `else`, whose failure Ajv
 *    follows with the `if` keyword's own error.
 * 2. Then, on Ajv's own syntax tree (its CodeGen nodes, before it renders them), a forward analysis of which locals
 *    are known to hold 0 (the count, and the `_errs` copies of it), `true` (the `valid` flags) or the count's
 *    current value (a copy made since the count last moved) on every path to each point: outside a union's arms the
 *    count is 0 wherever the code is reached. A comparison of two such zeros, or of the count with such a copy, is
 *    `true`, a flag known true passes, and Ajv's own optimizer then drops the branches that cannot run and the
 *    locals nobody reads. Inside a union's arms the count moves (their errors are collected) and little is folded. Anything the analysis does not know (a nested function, a label, a `try`) leaves the function as Ajv
 *    wrote it.
 *
 * Verdicts and errors are unchanged by construction, and checked: 0 disagreements with run-time Ajv over both
 * storyboard corpora and the examples, and every error object equal to Ajv's (test/validators-compact.test.ts).
 */

// Ajv's code generator and keyword context: not in its typed entry points, read from its CommonJS build (as
// hoisted-keyword.ts does).
const require = createRequire(import.meta.url);
const codegen = require('ajv/dist/compile/codegen') as { CodeGen: { prototype: CodeGenLike }; _: (s: TemplateStringsArray, ...v: unknown[]) => unknown };
const validateModule = require('ajv/dist/compile/validate') as { KeywordCxt: { prototype: KeywordCxtLike } };
const names = require('ajv/dist/compile/names').default as { vErrors: unknown };

interface CodeGenLike {
  optimize(n?: number): void;
  readonly _extScope: object;
  readonly _root: AstNode;
  assign(lhs: unknown, rhs: unknown): CodeGenLike;
  return(value: unknown): CodeGenLike;
}

interface KeywordCxtLike {
  failResult(condition: unknown, successAction?: () => void, failAction?: () => void): void;
  readonly keyword: string;
  readonly allErrors?: boolean;
  readonly gen: CodeGenLike;
  readonly it: { readonly compositeRule?: boolean; readonly errSchemaPath: string; readonly validateName: unknown; readonly self: { readonly scope: object } };
}

/** One of Ajv's CodeGen nodes, as read here (their fields are TypeScript-private, plain properties at run time). */
interface AstNode {
  readonly constructor: { readonly name: string };
  nodes?: AstNode[];
  else?: AstNode;
  condition?: unknown;
  rhs?: unknown;
  readonly lhs?: unknown;
  readonly name?: { readonly str: string };
  readonly code?: unknown;
  readonly label?: unknown;
  readonly names?: Record<string, number>;
}

/** The Ajv instances (by their value scope, which every CodeGen of theirs holds) whose code is folded. */
const folded = new WeakSet<object>();
/** The keywords whose failing call returns at once outside a union: `$ref`, and the hoisted subschema's. */
const calling = new Set<string>(['$ref']);

let installed = false;

/** Folds the control flow of every function `ajv` compiles from now on; `keywords`: more keywords calling a function. */
export function foldControlFlow(ajv: Ajv, keywords: readonly string[] = []): void {
  for (const k of keywords) calling.add(k);
  folded.add((ajv as unknown as { scope: object }).scope);
  if (installed) return;
  installed = true;
  const { _ } = codegen;
  const failResult = validateModule.KeywordCxt.prototype.failResult;
  validateModule.KeywordCxt.prototype.failResult = function (this: KeywordCxtLike, condition, successAction, failAction) {
    if (
      failAction !== undefined &&
      calling.has(this.keyword) &&
      this.allErrors !== true &&
      this.it.compositeRule !== true &&
      !inConditionBranch(this.it.errSchemaPath) &&
      folded.has(this.it.self.scope)
    ) {
      const addErrors = failAction;
      // Ajv's returnErrors, after the callee's errors are taken as Ajv takes them.
      failAction = () => {
        addErrors();
        this.gen.assign(_`${this.it.validateName}.errors`, names.vErrors);
        this.gen.return(false);
      };
    }
    failResult.call(this, condition, successAction, failAction);
  };
  const optimize = codegen.CodeGen.prototype.optimize;
  codegen.CodeGen.prototype.optimize = function (this: CodeGenLike, n?: number) {
    optimize.call(this, n);
    if (!folded.has(this._extScope)) return;
    let changed = false;
    for (const node of this._root.nodes ?? []) if (node.constructor.name === 'Func') changed = foldFunction(node) || changed;
    if (changed) optimize.call(this, n);
  };
}

/** Keywords whose next segment of a schema path is a name (a property's, a definition's), not a keyword. */
const NAMING = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies', 'dependentSchemas']);

/**
 * Whether a schema path runs through an `if`'s `then` or `else`: a branch that fails adds the `if` keyword's own error
 * after the branch's (Ajv's if.ts, even with `allErrors` off), so a call failing there must let the branch end as
 * Ajv wrote it.
 */
function inConditionBranch(errSchemaPath: string): boolean {
  const segments = errSchemaPath.replace(/^#/, '').split('/').filter((x) => x !== '');
  for (let i = 0; i < segments.length; i++) {
    if (NAMING.has(segments[i]!)) i++;
    else if (segments[i] === 'then' || segments[i] === 'else') return true;
  }
  return false;
}

/** Facts on every path to a point: the locals holding 0, and those holding `true`; null where no path reaches. */
interface Facts {
  readonly zero: Set<string>;
  readonly truthy: Set<string>;
  /** The locals holding the count's current value (`const _errs5 = errors` with no error counted since). */
  readonly same: Set<string>;
}

class Unknown extends Error {}

/** Ajv's name for the error count. */
const COUNT = 'errors';

/** Folds one function: a dry run first, so a construct the analysis does not know leaves it untouched. */
function foldFunction(fn: AstNode): boolean {
  try {
    block(fn.nodes ?? [], empty(), { rewrite: false, breaks: undefined });
  } catch (e) {
    if (e instanceof Unknown) return false;
    throw e;
  }
  const ctx: Walk = { rewrite: true, breaks: undefined, changed: false };
  block(fn.nodes ?? [], empty(), ctx);
  return ctx.changed === true;
}

interface Walk {
  readonly rewrite: boolean;
  /** Facts at the `break`s of the innermost loop. */
  breaks: Facts | null | undefined;
  changed?: boolean;
}

const empty = (): Facts => ({ zero: new Set(), truthy: new Set(), same: new Set() });
const clone = (f: Facts): Facts => ({ zero: new Set(f.zero), truthy: new Set(f.truthy), same: new Set(f.same) });
const both = (a: ReadonlySet<string>, b: ReadonlySet<string>): Set<string> => new Set([...a].filter((n) => b.has(n)));
const equal = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...a].every((n) => b.has(n));

function merge(a: Facts | null, b: Facts | null): Facts | null {
  if (a === null) return b === null ? null : clone(b);
  if (b === null) return clone(a);
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
      return isName(node.lhs) ? assign(node.lhs.str, node, f, ctx) : forget(f, String(node.rhs));
    case 'AssignOp':
      return isName(node.lhs) ? forgetNames(f, [node.lhs.str]) : f;
    case 'AnyCode':
      return forget(f, String(node.code));
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

/** `name = rhs` (or its declaration): the rhs folded where both sides of a comparison are known zeros. */
function assign(name: string, node: AstNode, f: Facts, ctx: Walk): Facts {
  const rhs = node.rhs;
  let out = forget(f, rhs === undefined ? '' : String(rhs));
  out = forgetNames(out, [name]);
  if (rhs === undefined) return out;
  const value = valueOf(rhs, f);
  if (value === true && rhs !== true && ctx.rewrite) {
    node.rhs = true;
    ctx.changed = true;
  }
  if (value === 0) out.zero.add(name);
  else if (value === true) out.truthy.add(name);
  // A copy of the count holds its value until the count moves; the count reset to a copy holds that copy's.
  if (name === COUNT) {
    out.same.clear();
    if (isName(rhs)) out.same.add(rhs.str);
  } else if (isName(rhs) && rhs.str === COUNT) out.same.add(name);
  return out;
}

function branch(node: AstNode, f: Facts, ctx: Walk): Facts | null {
  const c = valueOf(node.condition, f);
  const known = c === true ? true : c === false ? false : undefined;
  if (known !== undefined && typeof node.condition !== 'boolean' && ctx.rewrite) {
    node.condition = known;
    ctx.changed = true;
  }
  const cond = forget(f, String(node.condition));
  const then = known === false ? null : block(node.nodes ?? [], clone(cond), ctx);
  let other: Facts | null;
  if (known === true) other = null;
  else if (node.else === undefined) other = clone(cond);
  else if (node.else.constructor.name === 'If') other = branch(node.else, clone(cond), ctx);
  else if (node.else.constructor.name === 'Else') other = block(node.else.nodes ?? [], clone(cond), ctx);
  else throw new Unknown();
  return merge(then, other);
}

/** A loop's body runs any number of times: its entry facts are those that hold before it and after each pass. */
function loop(node: AstNode, f: Facts, ctx: Walk): Facts | null {
  const parts = node as unknown as { iteration?: unknown; from?: unknown; to?: unknown; iterable?: unknown };
  const head = [parts.iteration, parts.from, parts.to, parts.iterable].filter((x) => x !== undefined).map(String).join(';');
  let entry = forget(f, head);
  // The loop's own variable (`i0`, the key of a `for…in`) holds neither fact.
  entry = forgetNames(entry, loopNames(node));
  for (let pass = 0; ; pass++) {
    if (pass > 16) throw new Unknown();
    const dry: Walk = { rewrite: false, breaks: null };
    const next = merge(entry, block(node.nodes ?? [], clone(entry), dry));
    if (same(next, entry)) break;
    entry = next!;
  }
  const inner: Walk = { rewrite: ctx.rewrite, breaks: null };
  const out = block(node.nodes ?? [], clone(entry), inner);
  if (inner.changed === true) ctx.changed = true;
  return merge(merge(entry, out), inner.breaks ?? null);
}

function loopNames(node: AstNode): string[] {
  const n = (node as unknown as { name?: { str?: string } }).name;
  return typeof n?.str === 'string' ? [n.str] : [];
}

/**
 * What an expression is known to hold: 0 (the literal, or a local known to), `true` (the literal, a flag known
 * to, or `a === b` of two known zeros), `false` (`!flag` of a flag known true); undefined otherwise.
 */
function valueOf(expr: unknown, f: Facts): 0 | true | false | undefined {
  if (expr === true || expr === false || expr === 0) return expr;
  if (expr === undefined || expr === null) return undefined;
  const text = String(expr).trim();
  const zero = (t: string): boolean => t === '0' || f.zero.has(t);
  if (text === 'true') return true;
  if (zero(text)) return 0;
  if (f.truthy.has(text)) return true;
  const not = /^!\(?([A-Za-z_$][\w$]*)\)?$/.exec(text);
  if (not !== null && f.truthy.has(not[1]!)) return false;
  const eq = /^([A-Za-z_$][\w$]*|0) === ([A-Za-z_$][\w$]*|0)$/.exec(text);
  if (eq !== null && zero(eq[1]!) && zero(eq[2]!)) return true;
  if (eq !== null && ((eq[1] === COUNT && f.same.has(eq[2]!)) || (eq[2] === COUNT && f.same.has(eq[1]!)))) return true;
  return undefined;
}

/** The facts without those of every local an expression may assign (`x = …`, `x++`): a superset, never fewer. */
function forget(f: Facts, text: string): Facts {
  const assigned: string[] = [];
  const re = /([A-Za-z_$][\w$]*)\s*(?:=(?!=)|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_$][\w$]*)/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    // A property (`validate.errors = …`) is no local.
    if (m[1] !== undefined && text[m.index - 1] === '.') continue;
    assigned.push(m[1] ?? m[2]!);
  }
  return forgetNames(f, assigned);
}

function forgetNames(f: Facts, list: readonly string[]): Facts {
  if (list.length === 0) return f;
  const out = clone(f);
  for (const n of list) {
    out.zero.delete(n);
    out.truthy.delete(n);
    out.same.delete(n);
    if (n === COUNT) out.same.clear();
  }
  return out;
}

function isName(x: unknown): x is { readonly str: string } {
  return typeof x === 'object' && x !== null && (x as { constructor: { name: string } }).constructor.name === 'Name' && typeof (x as { str?: unknown }).str === 'string';
}

import { createRequire } from 'node:module';
import type { Ajv } from 'ajv';
import { foldFunction, isName, type AstNode } from './ajv-fold.js';

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
 * 2. Then, on Ajv's own syntax tree (its CodeGen nodes, before it renders them), a forward analysis (ajv-fold.ts)
 *    of which locals are known to hold 0 (the count, and the `_errs` copies of it), `true` (the `valid` flags) or
 *    the count's current value (a copy made since the count last moved) on every path to each point: outside a
 *    union's arms the count is 0 wherever the code is reached. A comparison of two such zeros, or of the count with
 *    such a copy, is `true`, a flag known true passes, and Ajv's own node optimizer then drops the branches that
 *    cannot run, and `sweep` the locals nobody reads. Inside a union's arms the count moves (their errors are
 *    collected) and little is folded. Anything the analysis does not know (a nested function, a label, a `try`)
 *    leaves the function as Ajv wrote it.
 *
 * Verdicts and errors are unchanged, and checked: test/ajv-flow.test.ts compiles schemas with every such keyword
 * plainly and folded, test/real/ajv-flow.test.ts runs run-time Ajv plainly and folded over the storyboards and the
 * recall corpus of both releases, and both require the same verdict and every error object the same.
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
  readonly _constants: object;
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
  codegen.CodeGen.prototype.optimize = function (this: CodeGenLike, n = 1) {
    if (!folded.has(this._extScope)) return optimize.call(this, n);
    // Ajv's optimize, its names counted in one walk (namesOf).
    const root = this._root as unknown as OptimizableRoot;
    while (n-- > 0) {
      root.optimizeNodes();
      root.optimizeNames(namesOf(this._root), this._constants);
    }
    let changed = false;
    for (const node of this._root.nodes ?? []) if (node.constructor.name === 'Func') changed = foldFunction(node) || changed;
    if (changed) sweep(this._root);
  };
}

interface OptimizableRoot {
  optimizeNodes(): unknown;
  optimizeNames(names: Record<string, number>, constants: object): unknown;
}

/** Ajv's own locals the folding leaves unread: its count's copies and its flags. */
const FLAG = /^(?:_errs|valid|_valid)\d+$/;

/**
 * After folding: Ajv's own node optimizer (the `if (true)` blocks opened, the `if (false)` ones and empty branches
 * dropped), then the count's copies and the flags nobody reads any more, declared or assigned from a value without
 * effects, dropped — what Ajv's name optimizer would do, without its re-count of every name of the function at each
 * level (a second full `optimize` cost a cold generation ~0.3 s).
 */
function sweep(root: AstNode): void {
  for (let pass = 0; pass < 4; pass++) {
    (root as unknown as { optimizeNodes(): unknown }).optimizeNodes();
    if (!drop(root, namesOf(root))) return;
  }
}

/** The expressions an Ajv block node reads besides its children's (`get names` of If, ForLoop, ForRange, ForIter). */
const BLOCK_EXPRESSIONS = ['condition', 'iteration', 'from', 'to', 'iterable'] as const;
/** The expressions an Ajv leaf node reads (`get names` of Def, Assign, AnyCode, Throw); an assignment's left side too, unless a plain name. */
const LEAF_EXPRESSIONS = ['rhs', 'code', 'error'] as const;
/** The blocks an Ajv block node carries beside its children (If's `else`, Try's `catch` and `finally`). */
const BLOCK_BRANCHES = ['else', 'catch', 'finally'] as const;

/**
 * How often each name of a tree is read, as Ajv's `names` getters count it (an assignment's plain left side is not a
 * read; a leaf answers for itself), into one table: Ajv's getter builds a table per block and copies it into its
 * parent's at every level, and that copying was half a second of a cold generation.
 */
function namesOf(node: AstNode, into: Record<string, number> = {}): Record<string, number> {
  const parts = node as unknown as Readonly<Record<string, unknown>>;
  if (node.nodes === undefined) {
    // A leaf's getter, without its copy of the table (Assign's): Def, Assign and AssignOp, AnyCode, Throw.
    for (const key of LEAF_EXPRESSIONS) addNamesOf(parts[key], into);
    if (node.lhs !== undefined && !isName(node.lhs)) addNamesOf(node.lhs, into);
    return into;
  }
  for (const child of node.nodes) namesOf(child, into);
  for (const key of BLOCK_EXPRESSIONS) addNamesOf(parts[key], into);
  for (const key of BLOCK_BRANCHES) {
    const branch = parts[key] as AstNode | undefined;
    if (branch !== undefined) namesOf(branch, into);
  }
  return into;
}

/** An expression's names (Ajv's `_Code` and `Name` keep theirs) added to `into`; anything else reads none. */
function addNamesOf(expr: unknown, into: Record<string, number>): void {
  const names = typeof expr === 'object' && expr !== null ? (expr as { names?: Record<string, number> }).names : undefined;
  for (const n in names) into[n] = (into[n] ?? 0) + (names[n] ?? 0);
}

/** Drops the declarations and assignments of unread flags whose value has no effect; whether it dropped any. */
function drop(node: AstNode, reads: Readonly<Record<string, number>>): boolean {
  let dropped = false;
  const nodes = node.nodes;
  if (nodes !== undefined) {
    for (let i = nodes.length - 1; i >= 0; i--) {
      const child = nodes[i]!;
      const kind = child.constructor.name;
      const name = kind === 'Def' ? child.name?.str : kind === 'Assign' && isName(child.lhs) ? child.lhs.str : undefined;
      if (name !== undefined && FLAG.test(name) && (reads[name] ?? 0) === 0 && pure(child.rhs)) {
        nodes.splice(i, 1);
        dropped = true;
      } else if (drop(child, reads)) dropped = true;
    }
  }
  if (node.else !== undefined && drop(node.else, reads)) dropped = true;
  return dropped;
}

/** A value whose computation has no effect: a literal, a name, or a comparison of two of them. */
function pure(rhs: unknown): boolean {
  if (rhs === undefined || rhs === null || typeof rhs === 'boolean' || typeof rhs === 'number') return true;
  return /^(?:[A-Za-z_$][\w$]*|\d+)(?: === (?:[A-Za-z_$][\w$]*|\d+))?$/.test(String(rhs).trim());
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

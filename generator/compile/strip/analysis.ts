import { escapeToken, getAtPointer, pointerFromFragment, isPlainObject } from '../../shared/index.js';
import { type JsonSchema, type SchemaFile, resolveUri, splitFragment } from '../../load/index.js';
import { ANNOTATIONS, isPrimitive, schemaPred, type PredNav, type Pred, type Primitive } from './predicates.js';

export type { Pred, Primitive } from './predicates.js';

/**
 * What deep-strip knows about a schema, shared by the compiler (compile-strip.ts, which turns it into straight-line
 * JS) and the interpreter (strip-interpret.ts, which evaluates it while it walks a value). Both ask this module the
 * same questions, so they cannot disagree about semantics; only the compiler caches the answers per shape.
 *
 * The unit is a *shape*: the set of schema nodes that all apply to one place in a value (a `$ref`, its siblings,
 * `allOf` members, the chosen `anyOf`/`oneOf` branch, the applicable `then`/`else`). Semantics, in short:
 *
 * - **Merged names.** Every name declared by any member of a shape is known there, and the shape is closed when any
 *   member is (`additionalProperties: false` / `unevaluatedProperties: false`). Strict draft-07 validation is
 *   narrower: `additionalProperties: false` in one `allOf` member rejects names its siblings declare, so such a
 *   payload fails validation whether or not we strip. We keep those names anyway: they are not fields from a newer
 *   release but the schema's own (its types include them), and dropping declared data silently is worse than the
 *   validator's honest error. This is exactly what `unevaluatedProperties: false` accepts.
 * - **Unions.** A branch is chosen from what the schema says: `type`, `const`/`enum` on a property (which covers
 *   OpenAPI `discriminator`s, whose branches carry the tag as const/enum) and `required`; only when several branches
 *   survive, by declared names (a closed branch that does not know a name another surviving branch declares is
 *   out). No survivor or several: the place is *undecided*, nothing is stripped there or below. Unions whose
 *   branches add nothing to stripping (`oneOf: [{required: [a]}, {required: [b]}]`) need no choice at all.
 * - **if/then/else.** Validation applies `then` when the value matches `if`, else `else`; we evaluate `if` (the
 *   keywords AdCP uses in conditions: type, const, enum, required, properties, pattern, contains, allOf, anyOf,
 *   oneOf, not, $ref) and merge the applicable branch. An `if` we cannot evaluate makes the place undecided, but
 *   only when `then`/`else` would change what is stripped. Draft-07 `dependencies` (schema form) and
 *   `dependentSchemas` apply when their property is present. The names a decided condition reads (the `if`'s
 *   properties and required names, the dependency's property) are known, so stripping never flips the condition:
 *   stripping stays idempotent. Decisions that lead back to the same place on the same value (a branch that is
 *   `$ref: "#"`) are bounded; past the bound the place is undecided.
 * - Only `properties`, `patternProperties`, `additionalProperties`/`unevaluatedProperties` (schemas),
 *   `items`/`prefixItems`/`additionalItems` lead deeper; `not`, `contains`, `propertyNames` never strip.
 * - `patternProperties` names are known; a declared name also takes the pattern schemas it matches. A name that is
 *   declared nowhere but matches patterns is stripped by each matching pattern schema in turn.
 */

export type Resolver = (ref: string, baseId: string) => { readonly schema: JsonSchema; readonly uri: string; readonly file?: SchemaFile };

/** One schema node, named by where it lives. */
export interface SchemaNode {
  /** `<document id>#<pointer>`: the identity shapes are keyed by. */
  readonly uri: string;
  readonly base: string;
  readonly pointer: string;
  readonly schema: JsonSchema;
  readonly file?: SchemaFile;
}

/** A set of schema nodes applying together to one place, with the unions/conditions already decided. */
export interface Shape {
  readonly origins: readonly SchemaNode[];
  /** group id → chosen branch index. */
  readonly resolved: ReadonlyMap<string, number>;
  /** Canonical key: equal keys strip identically. */
  readonly key: string;
}

export interface BranchEvidence {
  /** JSON types the branch admits; undefined: any. */
  readonly types?: readonly string[];
  readonly required: readonly string[];
  /** `not: {required}` (alone or under anyOf/oneOf): a value holding every name of one of these sets is not it. */
  readonly forbidden: readonly (readonly string[])[];
  /**
   * Discriminating properties, one or two levels deep (`kind`, `budget_allocation/mode`): the path and the
   * primitive values the branch admits there. Kept only where branches differ.
   */
  readonly tags: readonly (readonly [readonly string[], readonly Primitive[]])[];
  readonly closed: boolean;
}

export interface Branch {
  readonly next: Shape;
  readonly evidence?: BranchEvidence;
}

export interface UnionGroup {
  readonly kind: 'anyOf' | 'oneOf';
  readonly id: string;
  readonly branches: readonly Branch[];
  /** Stage 2 (declared names), when the union has at most 30 branches: name → bit mask of branches knowing it. */
  readonly names?: readonly (readonly [string, number])[];
  readonly patterns?: readonly (readonly [string, number])[];
  /** OpenAPI `discriminator.propertyName` beside the union, when declared: the tag tried first. */
  readonly discriminator?: string;
}
export interface IfGroup {
  readonly kind: 'if';
  readonly id: string;
  /** [then, else]; undefined `pred`: the condition cannot be evaluated here. */
  readonly branches: readonly [Branch, Branch];
  readonly pred?: Pred;
}
export interface DependencyGroup {
  readonly kind: 'dependency';
  readonly id: string;
  readonly property: string;
  /** [present, absent] */
  readonly branches: readonly [Branch, Branch];
}
export type Group = UnionGroup | IfGroup | DependencyGroup;

export interface ObjectPlan {
  readonly closed: boolean;
  /** Declared names in a deterministic order, each with the shape of its value (undefined: nothing to strip below). */
  readonly names: readonly (readonly [string, Shape | undefined])[];
  readonly patterns: readonly { readonly source: string; readonly child?: Shape }[];
  /** For names declared nowhere, when the shape is open. */
  readonly additional?: Shape;
}
export interface ArrayPlan {
  readonly prefix: readonly (Shape | undefined)[];
  readonly rest?: Shape;
}

export type Plan =
  | { readonly kind: 'dispatch'; readonly group: Group }
  | { readonly kind: 'shape'; readonly object?: ObjectPlan; readonly array?: ArrayPlan };

/** Keywords whose presence makes a schema node matter to stripping (everything else is a constraint or data). */
const STRIP_KEYWORDS = [
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'anyOf',
  'oneOf',
  'if',
  'dependencies',
  'dependentSchemas',
] as const;

const MAX_REF_CHAIN = 64;

interface Members {
  readonly members: SchemaNode[];
  readonly groups: PendingGroup[];
  /** Names decided conditions read (`if` properties/required, `dependencies` keys): known, so never stripped. */
  readonly conditionNames: string[];
  /** Owners of decided conditions (if/dependencies): a canonical shape keeps them, and so their names. */
  readonly conditionOwners: SchemaNode[];
}
interface PendingGroup {
  readonly kind: Group['kind'];
  readonly id: string;
  readonly owner: SchemaNode;
  readonly branches: readonly (SchemaNode | undefined)[];
  readonly property?: string;
}

interface BranchFacts {
  readonly types?: readonly string[];
  readonly required: readonly string[];
  readonly forbidden: readonly (readonly string[])[];
  /** JSON of the property path → admitted primitive values (undefined: unconstrained). */
  readonly tags: ReadonlyMap<string, Primitive[] | undefined>;
  readonly closed: boolean;
}

interface StaticView {
  readonly closed: boolean;
  readonly names: Map<string, SchemaNode[]>;
  readonly patterns: { source: string; re: RegExp; node: SchemaNode }[];
  readonly additional: SchemaNode[];
  readonly items: { prefix: SchemaNode[][]; rest: SchemaNode[] } | undefined;
}

const own = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

export class StripAnalyzer {
  private readonly nodes = new Map<string, SchemaNode>();
  private readonly refs = new Map<string, SchemaNode>();
  private readonly strippableMemo = new Map<string, boolean>();
  private readonly regexps = new Map<string, RegExp>();
  private readonly preds = new Map<string, Pred | null>();
  private readonly factsMemo = new Map<string, BranchFacts>();
  /** Files whose nodes the analysis looked at since the last `takeTouched()`. */
  private touched = new Set<SchemaFile>();

  constructor(private readonly resolver: Resolver) {}

  // ── nodes ─────────────────────────────────────────────────────────────────────────────────────────────────────

  root(schema: JsonSchema, base: string, file?: SchemaFile): SchemaNode {
    return this.intern(base, '', schema, file);
  }

  private intern(base: string, pointer: string, schema: JsonSchema, file?: SchemaFile): SchemaNode {
    const uri = `${base}#${pointer}`;
    let n = this.nodes.get(uri);
    if (n === undefined) {
      n = { uri, base, pointer, schema, file };
      this.nodes.set(uri, n);
    }
    return n;
  }

  child(node: SchemaNode, ...tokens: (string | number)[]): SchemaNode | undefined {
    let schema: unknown = node.schema;
    let pointer = node.pointer;
    for (const t of tokens) {
      if (schema === null || typeof schema !== 'object') return undefined;
      if (Array.isArray(schema)) {
        const i = typeof t === 'number' ? t : /^(0|[1-9]\d*)$/.test(t) ? Number(t) : -1;
        if (i < 0 || i >= schema.length) return undefined;
        schema = schema[i];
      } else {
        if (!own(schema, String(t))) return undefined;
        schema = (schema as Record<string, unknown>)[String(t)];
      }
      pointer += '/' + escapeToken(t);
    }
    if (typeof schema !== 'boolean' && !isPlainObject(schema)) return undefined;
    return this.intern(node.base, pointer, schema as JsonSchema, node.file);
  }

  private deref(node: SchemaNode): SchemaNode | undefined {
    const s = node.schema;
    if (!isPlainObject(s) || typeof s.$ref !== 'string') return undefined;
    const key = `${node.base}\0${s.$ref}`;
    let target = this.refs.get(key);
    if (target === undefined) {
      const r = this.resolver(s.$ref, node.base);
      const hash = r.uri.indexOf('#');
      const base = hash < 0 ? r.uri : r.uri.slice(0, hash);
      const pointer = hash < 0 ? '' : r.uri.slice(hash + 1);
      target = this.intern(base, pointer, r.schema, r.file);
      this.refs.set(key, target);
    }
    return target;
  }

  private touch(node: SchemaNode): void {
    if (node.file !== undefined) this.touched.add(node.file);
  }

  takeTouched(): SchemaFile[] {
    const out = [...this.touched];
    this.touched = new Set();
    return out;
  }

  regexp(source: string): RegExp {
    let re = this.regexps.get(source);
    if (re === undefined) {
      re = new RegExp(source, 'u');
      this.regexps.set(source, re);
    }
    return re;
  }

  // ── shapes ────────────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * A canonical shape. Two shapes that would strip the same way should get the same key, so that functions are
   * shared: a node that is only a `$ref` (plus annotations) stands for its target; the origins are reduced to the
   * fewest nodes whose members still hold every strip-relevant keyword and every pending group (a node reached
   * through another's `$ref`/`allOf`, or one whose only content was a union now decided, drops out); decisions
   * about groups no longer reached are forgotten. Undefined when nothing is left.
   */
  shape(origins: readonly SchemaNode[], resolved: ReadonlyMap<string, number> = new Map(), home = ''): Shape | undefined {
    const collapsed = origins.map((o) => this.collapse(o));
    const first = this.flatten(collapsed, resolved);
    const candidates = new Map<string, SchemaNode>();
    for (const m of first.members) if (direct(m)) candidates.set(m.uri, m);
    for (const g of first.groups) candidates.set(g.owner.uri, g.owner);
    for (const o of first.conditionOwners) candidates.set(o.uri, o);
    if (candidates.size === 0) return undefined;
    // The given nodes that hold candidates through their own `$ref`/`allOf` come first, so an entry stays itself.
    const covers = [...new Map(collapsed.map((o) => [o.uri, o])).values()]
      .filter((o) => this.flatten([o], undefined).members.some((m) => candidates.has(m.uri)))
      .sort(byUri);
    let kept: SchemaNode[] = [];
    for (const k of [...covers, ...[...candidates.values()].sort(byUri)]) {
      if (kept.some((o) => o.uri === k.uri) || this.reaches(kept, k, resolved)) continue;
      kept = [...kept.filter((o) => !this.reaches([k], o, resolved)), k];
    }
    kept.sort(byUri);
    const encountered = new Set<string>();
    this.flatten(kept, resolved, false, encountered);
    const res = [...resolved.entries()].filter(([id]) => encountered.has(id)).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const single = kept.length === 1 && res.length === 0;
    const key = JSON.stringify(single ? [kept[0]!.uri] : [home, kept.map((n) => n.uri), res]);
    return { origins: kept, resolved: new Map(res), key };
  }

  private collapse(o: SchemaNode): SchemaNode {
    for (let i = 0; i < MAX_REF_CHAIN; i++) {
      const s = o.schema;
      if (!isPlainObject(s) || typeof s.$ref !== 'string' || own(s, 'allOf') || STRIP_KEYWORDS.some((k) => own(s, k))) break;
      o = this.deref(o)!;
    }
    return o;
  }

  /** Whether `target` is a member of the flattening of `from` (other than being one of them). */
  private reaches(from: readonly SchemaNode[], target: SchemaNode, resolved: ReadonlyMap<string, number>): boolean {
    const others = from.filter((f) => f.uri !== target.uri);
    return others.length > 0 && this.flatten(others, resolved).members.some((m) => m.uri === target.uri);
  }

  /**
   * The members of a shape: its nodes, followed through `$ref` and `allOf`, with decided groups replaced by their
   * chosen branch. `resolved` undefined: every group stays pending (used for static facts).
   */
  private flatten(origins: readonly SchemaNode[], resolved: ReadonlyMap<string, number> | undefined, all = false, encountered?: Set<string>): Members {
    const members: SchemaNode[] = [];
    const groups: PendingGroup[] = [];
    const seen = new Set<string>();
    const visit = (node: SchemaNode | undefined): void => {
      if (node === undefined || seen.has(node.uri)) return;
      seen.add(node.uri);
      this.touch(node);
      const s = node.schema;
      if (!isPlainObject(s)) return;
      members.push(node);
      if (typeof s.$ref === 'string') visit(this.deref(node));
      if (Array.isArray(s.allOf)) s.allOf.forEach((_, i) => visit(this.child(node, 'allOf', i)));
      for (const kind of ['anyOf', 'oneOf'] as const) {
        const arr = s[kind];
        if (!Array.isArray(arr)) continue;
        const g: PendingGroup = { kind, id: `${node.uri}/${kind}`, owner: node, branches: arr.map((_, i) => this.child(node, kind, i)) };
        pend(g);
      }
      if (own(s, 'if') && (own(s, 'then') || own(s, 'else'))) {
        pend({ kind: 'if', id: `${node.uri}/if`, owner: node, branches: [this.child(node, 'then'), this.child(node, 'else')] });
      }
      for (const kw of ['dependencies', 'dependentSchemas'] as const) {
        const deps = s[kw];
        if (!isPlainObject(deps)) continue;
        for (const name of Object.keys(deps)) {
          if (Array.isArray(deps[name])) continue;
          const id = `${node.uri}/${kw}/${escapeToken(name)}`;
          pend({ kind: 'dependency', id, owner: node, branches: [this.child(node, kw, name), undefined], property: name });
        }
      }
    };
    const conditionNames: string[] = [];
    const conditionOwners: SchemaNode[] = [];
    const pend = (g: PendingGroup): void => {
      const chosen = resolved?.get(g.id);
      if (chosen !== undefined) {
        encountered?.add(g.id);
        const before = conditionNames.length;
        if (g.kind === 'dependency') conditionNames.push(g.property!);
        if (g.kind === 'if') conditionNames.push(...ifNames((g.owner.schema as Record<string, unknown>).if));
        if (conditionNames.length > before) conditionOwners.push(g.owner);
      }
      if (all) g.branches.forEach(visit);
      else if (chosen !== undefined) visit(g.branches[chosen]);
      else groups.push(g);
    };
    origins.forEach(visit);
    return { members, groups, conditionNames, conditionOwners };
  }

  /** Names, patterns, closure, additional and item schemas of a list of members (no groups). */
  private staticView(members: readonly SchemaNode[]): StaticView {
    let closed = false;
    const names = new Map<string, SchemaNode[]>();
    const patterns: StaticView['patterns'] = [];
    const additional: SchemaNode[] = [];
    let items: StaticView['items'];
    const tuples: { prefix: (SchemaNode | undefined)[]; rest?: SchemaNode }[] = [];
    const plainItems: SchemaNode[] = [];
    for (const m of members) {
      const s = m.schema as Record<string, unknown>;
      if (s.additionalProperties === false || s.unevaluatedProperties === false) closed = true;
      if (isPlainObject(s.properties)) {
        for (const name of Object.keys(s.properties)) {
          const c = this.child(m, 'properties', name);
          let list = names.get(name);
          if (list === undefined) names.set(name, (list = []));
          if (c !== undefined) list.push(c);
        }
      }
      if (isPlainObject(s.patternProperties)) {
        for (const source of Object.keys(s.patternProperties)) {
          const c = this.child(m, 'patternProperties', source);
          if (c !== undefined) patterns.push({ source, re: this.regexp(source), node: c });
        }
      }
      for (const kw of ['additionalProperties', 'unevaluatedProperties'] as const) {
        if (isPlainObject(s[kw])) additional.push(this.child(m, kw)!);
      }
      if (Array.isArray(s.prefixItems)) {
        tuples.push({ prefix: s.prefixItems.map((_, i) => this.child(m, 'prefixItems', i)), rest: this.child(m, 'items') });
      } else if (Array.isArray(s.items)) {
        tuples.push({ prefix: s.items.map((_, i) => this.child(m, 'items', i)), rest: this.child(m, 'additionalItems') });
      } else if (own(s, 'items')) {
        const c = this.child(m, 'items');
        if (c !== undefined) plainItems.push(c);
      }
    }
    // A declared name also takes every pattern schema it matches.
    for (const [name, list] of names) for (const p of patterns) if (p.re.test(name)) list.push(p.node);
    if (tuples.length > 0 || plainItems.length > 0) {
      const width = Math.max(0, ...tuples.map((t) => t.prefix.length));
      const prefix: SchemaNode[][] = [];
      for (let i = 0; i < width; i++) {
        const at: SchemaNode[] = [...plainItems];
        for (const t of tuples) {
          const n = i < t.prefix.length ? t.prefix[i] : t.rest;
          if (n !== undefined) at.push(n);
        }
        prefix.push(at);
      }
      const rest: SchemaNode[] = [...plainItems];
      for (const t of tuples) if (t.rest !== undefined) rest.push(t.rest);
      items = { prefix, rest };
    }
    return { closed, names, patterns, additional, items };
  }

  // ── strippable: can anything ever be removed under this node? ───────────────────────────────────────────────

  strippable(node: SchemaNode): boolean {
    return this.strippableIn(node, new Set()).value;
  }

  private strippableIn(node: SchemaNode, inProgress: Set<string>): { value: boolean; cyclic: boolean } {
    const memo = this.strippableMemo.get(node.uri);
    if (memo !== undefined) return { value: memo, cyclic: false };
    if (inProgress.has(node.uri)) return { value: false, cyclic: true };
    inProgress.add(node.uri);
    let cyclic = false;
    let value = false;
    const { members } = this.flatten([node], undefined, true);
    const view = this.staticView(members);
    const children: SchemaNode[] = [...[...view.names.values()].flat(), ...view.patterns.map((p) => p.node), ...view.additional];
    if (view.items !== undefined) children.push(...view.items.prefix.flat(), ...view.items.rest);
    if (view.closed) value = true;
    else {
      for (const c of children) {
        const r = this.strippableIn(c, inProgress);
        cyclic ||= r.cyclic;
        if (r.value) {
          value = true;
          break;
        }
      }
    }
    inProgress.delete(node.uri);
    // A `false` found while a cycle was open may be premature; only settled answers are remembered.
    if (value || !cyclic) this.strippableMemo.set(node.uri, value);
    return { value, cyclic: cyclic && !value };
  }

  /** The shape of a value all of `nodes` apply to, or undefined when nothing can be stripped there. */
  private childShape(nodes: readonly SchemaNode[], home: string): Shape | undefined {
    if (!nodes.some((n) => this.strippable(n))) return undefined;
    return this.shape(nodes, new Map(), home);
  }

  // ── plans ─────────────────────────────────────────────────────────────────────────────────────────────────────

  /** What to do at a place of this shape: decide a group first, or strip by the merged view. */
  plan(shape: Shape, home = ''): Plan {
    const { members, groups, conditionNames } = this.flatten(shape.origins, shape.resolved);
    const view = this.staticView(members);
    // A decided condition must read the same after stripping (idempotence): the names it tests stay.
    for (const name of conditionNames) if (!view.names.has(name)) view.names.set(name, []);
    const mayClose = view.closed || groups.some((g) => g.branches.some((b) => b !== undefined && this.staticView(this.flatten([b], undefined, true).members).closed));
    for (const g of groups) {
      if (!g.branches.some((b) => b !== undefined && !this.redundant(b, view, mayClose))) continue;
      return { kind: 'dispatch', group: this.groupPlan(g, shape, view, home) };
    }
    const object: ObjectPlan = {
      closed: view.closed,
      names: [...view.names].map(([name, nodes]) => [name, this.childShape(nodes, home)] as const),
      patterns: view.patterns.map((p) => ({ source: p.source, child: this.childShape([p.node], home) })),
      additional: view.closed ? undefined : this.childShape(view.additional, home),
    };
    const array: ArrayPlan | undefined =
      view.items === undefined ? undefined : { prefix: view.items.prefix.map((nodes) => this.childShape(nodes, home)), rest: this.childShape(view.items.rest, home) };
    return { kind: 'shape', object, array: array !== undefined && (array.rest !== undefined || array.prefix.some((p) => p !== undefined)) ? array : undefined };
  }

  /** A branch that, merged into this shape, would change nothing that is stripped. */
  private redundant(branch: SchemaNode, view: StaticView, mayClose: boolean): boolean {
    const b = this.staticView(this.flatten([branch], undefined, true).members);
    if (b.closed && !view.closed) return false;
    for (const [name, nodes] of b.names) {
      if (mayClose && !view.names.has(name) && !view.patterns.some((p) => p.re.test(name))) return false;
      if (!view.closed && !view.names.has(name) && view.additional.some((n) => this.strippable(n))) return false;
      if (nodes.some((n) => this.strippable(n))) return false;
    }
    for (const p of b.patterns) if (mayClose || this.strippable(p.node)) return false;
    if (b.additional.some((n) => this.strippable(n))) return false;
    if (b.items !== undefined && [...b.items.prefix.flat(), ...b.items.rest].some((n) => this.strippable(n))) return false;
    return true;
  }

  private groupPlan(g: PendingGroup, shape: Shape, view: StaticView, home: string): Group {
    const next = (i: number, branch: SchemaNode | undefined): Branch => {
      const resolved = new Map(shape.resolved);
      resolved.set(g.id, i);
      const origins = branch === undefined ? shape.origins : [...shape.origins, branch];
      // A decided group always yields a shape (the resolved marker keeps it distinct), possibly with no origins left.
      const s = this.shape(origins, resolved, home) ?? { origins: [], resolved, key: JSON.stringify([home, [], [...resolved]]) };
      return { next: s };
    };
    if (g.kind === 'if') {
      const ifNode = this.child(g.owner, 'if')!;
      return { kind: 'if', id: g.id, branches: [next(0, g.branches[0]), next(1, g.branches[1])], pred: this.pred(ifNode) };
    }
    if (g.kind === 'dependency') {
      return { kind: 'dependency', id: g.id, property: g.property!, branches: [next(0, g.branches[0]), next(1, undefined)] };
    }
    const facts = g.branches.map((b) => this.branchFacts(b));
    const tags = discriminatingTags(facts.map((f) => f.tags));
    const disc = (g.owner.schema as Record<string, unknown>).discriminator;
    const plan: UnionGroup = {
      kind: g.kind,
      id: g.id,
      discriminator: isPlainObject(disc) && typeof disc.propertyName === 'string' ? disc.propertyName : undefined,
      branches: g.branches.map((b, i) => {
        const f = facts[i]!;
        return { ...next(i, b), evidence: { types: f.types, required: f.required, forbidden: f.forbidden, tags: tags[i]!, closed: view.closed || f.closed } };
      }),
    };
    if (g.branches.length > 30) return plan;
    // Stage 2: which branches know each name the shape itself does not declare.
    const masks = new Map<string, number>();
    const patterns: [string, number][] = [];
    g.branches.forEach((b, i) => {
      if (b === undefined) return;
      const bv = this.staticView(this.flatten([b], undefined, true).members);
      for (const name of bv.names.keys()) if (!view.names.has(name)) masks.set(name, (masks.get(name) ?? 0) | (1 << i));
      for (const p of bv.patterns) patterns.push([p.source, 1 << i]);
    });
    return { ...plan, names: [...masks], patterns };
  }

  /** What a union branch says about the values it admits (a fact of the branch node alone, so it is cached). */
  private branchFacts(branch: SchemaNode | undefined): BranchFacts {
    if (branch === undefined) return { required: [], forbidden: [], tags: new Map(), closed: false };
    let facts = this.factsMemo.get(branch.uri);
    if (facts !== undefined) return facts;
    const { members } = this.flatten([branch], undefined);
    let types: Set<string> | undefined;
    const required = new Set<string>();
    const forbidden: string[][] = [];
    const narrow = (ts: Iterable<string>): void => {
      const next = new Set(ts);
      if (next.has('integer')) next.add('number');
      types = types === undefined ? next : new Set([...types].filter((t) => next.has(t)));
    };
    for (const m of members) {
      const s = m.schema as Record<string, unknown>;
      if (typeof s.type === 'string') narrow([s.type]);
      else if (Array.isArray(s.type)) narrow(s.type.filter((t): t is string => typeof t === 'string'));
      if (own(s, 'const')) narrow([jsonType(s.const)]);
      if (Array.isArray(s.enum)) narrow(s.enum.map(jsonType));
      if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') required.add(r);
      if (isPlainObject(s.not)) forbidden.push(...requiredSets(s.not));
    }
    if (members.length === 0 && branch.schema === false) types = new Set();
    const sv = this.staticView(members);
    const tags = new Map<string, Primitive[] | undefined>();
    for (const [name, nodes] of sv.names) {
      tags.set(JSON.stringify([name]), this.allowedValues(nodes));
      const inner = this.staticView(this.flatten(nodes, undefined).members);
      for (const [sub, subNodes] of inner.names) tags.set(JSON.stringify([name, sub]), this.allowedValues(subNodes));
    }
    facts = { types: types === undefined ? undefined : [...types].sort(), required: [...required], forbidden, tags, closed: sv.closed };
    this.factsMemo.set(branch.uri, facts);
    return facts;
  }

  /** The primitive values every one of `nodes` admits (const/enum), or undefined when unconstrained or not primitive. */
  private allowedValues(nodes: readonly SchemaNode[]): Primitive[] | undefined {
    let allowed: Primitive[] | undefined;
    for (const m of this.flatten(nodes, undefined).members) {
      const s = m.schema as Record<string, unknown>;
      let vals: unknown[] | undefined;
      if (own(s, 'const')) vals = [s.const];
      else if (Array.isArray(s.enum)) vals = s.enum;
      if (vals === undefined) continue;
      if (!vals.every(isPrimitive)) return undefined;
      const v = vals as Primitive[];
      allowed = allowed === undefined ? [...v] : allowed.filter((x) => v.includes(x));
    }
    return allowed;
  }

  // ── if conditions ─────────────────────────────────────────────────────────────────────────────────────────────

  /** The `if` schema as a predicate, or undefined when it uses keywords this evaluator does not know. */
  pred(node: SchemaNode): Pred | undefined {
    if (!this.preds.has(node.uri)) this.preds.set(node.uri, schemaPred(node, this.predNav, 0) ?? null);
    return this.preds.get(node.uri) ?? undefined;
  }

  private readonly predNav: PredNav = {
    child: (node, ...tokens) => this.child(node, ...tokens),
    deref: (node) => this.deref(node),
    touch: (node) => this.touch(node),
  };
}

/** The top-level names an `if` schema tests: its properties and required names. */
function ifNames(schema: unknown): string[] {
  if (!isPlainObject(schema)) return [];
  const out = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
  if (Array.isArray(schema.required)) for (const r of schema.required) if (typeof r === 'string') out.push(r);
  return out;
}

/** Keywords a member holds directly that decide what is stripped (groups aside). */
function direct(m: SchemaNode): boolean {
  const s = m.schema as Record<string, unknown>;
  for (const k of DIRECT_KEYWORDS) if (own(s, k) && !(k === 'additionalProperties' && s[k] === true)) return true;
  return false;
}
const DIRECT_KEYWORDS = ['properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'items', 'prefixItems', 'additionalItems'];

function byUri(a: SchemaNode, b: SchemaNode): number {
  return a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;
}

/** Keep, per branch, only the const/enum paths whose admitted values differ between branches. */
function discriminatingTags(all: readonly ReadonlyMap<string, Primitive[] | undefined>[]): [string[], Primitive[]][][] {
  const paths = new Set<string>();
  for (const tags of all) for (const [p, v] of tags) if (v !== undefined) paths.add(p);
  const out: [string[], Primitive[]][][] = all.map(() => []);
  for (const path of [...paths].sort()) {
    const sets = all.map((tags) => tags.get(path));
    // Evidence only where at least two branches pin the path to different values.
    const pinned = sets.filter((s): s is Primitive[] => s !== undefined);
    if (pinned.every((s) => sameValues(s, pinned[0]!))) continue;
    sets.forEach((s, i) => {
      if (s !== undefined) out[i]!.push([JSON.parse(path) as string[], s]);
    });
  }
  return out;
}

/** `not: {required: [...]}`, or `not: {anyOf|oneOf: [{required}, ...]}`: the name sets that exclude a value. */
function requiredSets(not: Record<string, unknown>): string[][] {
  const names = (s: unknown): string[] | undefined => {
    if (!isPlainObject(s) || !Array.isArray(s.required) || !s.required.every((n) => typeof n === 'string')) return undefined;
    return Object.keys(s).every((k) => k === 'required' || ANNOTATIONS.has(k)) ? (s.required as string[]) : undefined;
  };
  const alone = names(not);
  if (alone !== undefined) return [alone];
  const keys = Object.keys(not).filter((k) => !ANNOTATIONS.has(k));
  if (keys.length !== 1 || (keys[0] !== 'anyOf' && keys[0] !== 'oneOf') || !Array.isArray(not[keys[0]])) return [];
  const sets = (not[keys[0]] as unknown[]).map(names);
  // oneOf under not: excluded when exactly one set is present — only safe to use when the sets cannot overlap.
  if (sets.some((x) => x === undefined)) return [];
  if (keys[0] === 'oneOf' && sets.length > 1) return [];
  return sets as string[][];
}

function sameValues(a: readonly Primitive[], b: readonly Primitive[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** A resolver for one in-memory schema: references into itself (`#/definitions/x`, or by its own `$id`). */
export function localResolver(root: JsonSchema, base: string): Resolver {
  return (ref, from) => {
    const { doc, fragment } = splitFragment(ref.startsWith('#') ? `${from}${ref}` : resolveUri(from === '' ? base : from, ref));
    if (doc !== base) throw new Error(`cannot resolve $ref ${JSON.stringify(ref)}: pass a resolver for schemas outside this one`);
    const pointer = pointerFromFragment(fragment);
    const schema = getAtPointer(root, pointer);
    if (typeof schema !== 'boolean' && !isPlainObject(schema)) throw new Error(`$ref ${JSON.stringify(ref)} does not resolve`);
    return { schema: schema as JsonSchema, uri: `${base}#${pointer}` };
  };
}


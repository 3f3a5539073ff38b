import { isPlainObject } from '../../shared/index.js';
import type { JsonSchema, SchemaFile } from '../../load/index.js';
import { flatten, staticView, type PendingGroup, type StaticView } from './applicators.js';
import { BranchEvidence, discriminatingTags } from './evidence.js';
import type { ArrayPlan, Branch, Group, ObjectPlan, Plan, Shape, UnionGroup } from './plan.js';
import { schemaPred, type Pred } from './predicates.js';
import { SchemaNodes, type Resolver, type SchemaNode } from './schema-nodes.js';

/**
 * What deep-strip knows about a schema, shared by the compiler (compile.ts and codegen.ts, which turn it into
 * straight-line JS) and the interpreter (interpret.ts, which evaluates it while it walks a value). Both ask this module the
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
 *
 * The pieces: schema-nodes.ts names and interns nodes and follows `$ref`s; applicators.ts flattens the nodes that
 * apply together and their static view; evidence.ts reads what a union branch admits; predicates.ts turns an `if`
 * into a predicate; plan.ts holds what this module decides (shapes and plans).
 */

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

export class StripAnalyzer {
  readonly nodes: SchemaNodes;
  private readonly strippableMemo = new Map<string, boolean>();
  private readonly preds = new Map<string, Pred | null>();
  private readonly evidence: BranchEvidence;

  constructor(resolver: Resolver, resolved?: (node: object) => ReturnType<Resolver> | undefined) {
    this.nodes = new SchemaNodes(resolver, resolved);
    this.evidence = new BranchEvidence(this.nodes);
  }

  root(schema: JsonSchema, base: string, file?: SchemaFile): SchemaNode {
    return this.nodes.root(schema, base, file);
  }

  child(node: SchemaNode, ...tokens: (string | number)[]): SchemaNode | undefined {
    return this.nodes.child(node, ...tokens);
  }

  takeTouched(): SchemaFile[] {
    return this.nodes.takeTouched();
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
    const first = flatten(this.nodes, collapsed, resolved);
    const candidates = new Map<string, SchemaNode>();
    for (const m of first.members) if (direct(m)) candidates.set(m.uri, m);
    for (const g of first.groups) candidates.set(g.owner.uri, g.owner);
    for (const o of first.conditionOwners) candidates.set(o.uri, o);
    if (candidates.size === 0) return undefined;
    // The given nodes that hold candidates through their own `$ref`/`allOf` come first, so an entry stays itself.
    const covers = [...new Map(collapsed.map((o) => [o.uri, o])).values()]
      .filter((o) => flatten(this.nodes, [o], undefined).members.some((m) => candidates.has(m.uri)))
      .sort(byUri);
    let kept: SchemaNode[] = [];
    for (const k of [...covers, ...[...candidates.values()].sort(byUri)]) {
      if (kept.some((o) => o.uri === k.uri) || this.reaches(kept, k, resolved)) continue;
      kept = [...kept.filter((o) => !this.reaches([k], o, resolved)), k];
    }
    kept.sort(byUri);
    const encountered = new Set<string>();
    flatten(this.nodes, kept, resolved, false, encountered);
    const res = [...resolved.entries()].filter(([id]) => encountered.has(id)).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const single = kept.length === 1 && res.length === 0;
    const key = JSON.stringify(single ? [kept[0]!.uri] : [home, kept.map((n) => n.uri), res]);
    return { origins: kept, resolved: new Map(res), key };
  }

  private collapse(o: SchemaNode): SchemaNode {
    for (let i = 0; i < MAX_REF_CHAIN; i++) {
      const s = o.schema;
      if (!isPlainObject(s) || typeof s.$ref !== 'string' || Object.hasOwn(s, 'allOf') || STRIP_KEYWORDS.some((k) => Object.hasOwn(s, k))) break;
      o = this.nodes.deref(o)!;
    }
    return o;
  }

  /** Whether `target` is a member of the flattening of `from` (other than being one of them). */
  private reaches(from: readonly SchemaNode[], target: SchemaNode, resolved: ReadonlyMap<string, number>): boolean {
    const others = from.filter((f) => f.uri !== target.uri);
    return others.length > 0 && flatten(this.nodes, others, resolved).members.some((m) => m.uri === target.uri);
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
    const { members } = flatten(this.nodes, [node], undefined, true);
    const view = staticView(this.nodes, members);
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
    const { members, groups, conditionNames } = flatten(this.nodes, shape.origins, shape.resolved);
    const view = staticView(this.nodes, members);
    // A decided condition must read the same after stripping (idempotence): the names it tests stay.
    for (const name of conditionNames) if (!view.names.has(name)) view.names.set(name, []);
    const mayClose = view.closed || groups.some((g) => g.branches.some((b) => b !== undefined && staticView(this.nodes, flatten(this.nodes, [b], undefined, true).members).closed));
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
    const b = staticView(this.nodes, flatten(this.nodes, [branch], undefined, true).members);
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
    const facts = g.branches.map((b) => this.evidence.facts(b));
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
      const bv = staticView(this.nodes, flatten(this.nodes, [b], undefined, true).members);
      for (const name of bv.names.keys()) if (!view.names.has(name)) masks.set(name, (masks.get(name) ?? 0) | (1 << i));
      for (const p of bv.patterns) patterns.push([p.source, 1 << i]);
    });
    return { ...plan, names: [...masks], patterns };
  }

  // ── if conditions ─────────────────────────────────────────────────────────────────────────────────────────────

  /** The `if` schema as a predicate, or undefined when it uses keywords this evaluator does not know. */
  pred(node: SchemaNode): Pred | undefined {
    if (!this.preds.has(node.uri)) this.preds.set(node.uri, schemaPred(node, this.nodes, 0) ?? null);
    return this.preds.get(node.uri) ?? undefined;
  }
}

/** Keywords a member holds directly that decide what is stripped (groups aside). */
function direct(m: SchemaNode): boolean {
  const s = m.schema as Record<string, unknown>;
  for (const k of DIRECT_KEYWORDS) if (Object.hasOwn(s, k) && !(k === 'additionalProperties' && s[k] === true)) return true;
  return false;
}
const DIRECT_KEYWORDS = ['properties', 'patternProperties', 'additionalProperties', 'unevaluatedProperties', 'items', 'prefixItems', 'additionalItems'];

function byUri(a: SchemaNode, b: SchemaNode): number {
  return a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0;
}

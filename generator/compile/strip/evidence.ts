import { isPlainObject } from '../../shared/index.js';
import { flatten, staticView } from './applicators.js';
import { ANNOTATIONS, isPrimitive, type Primitive } from './predicates.js';
import type { SchemaNode, SchemaNodes } from './schema-nodes.js';

/**
 * What a union branch says about the values it admits, the evidence deep-strip chooses an `anyOf`/`oneOf` branch by
 * (docs/strip.md): the JSON types it admits, its `required` names, the name sets a `not: {required}` forbids, the
 * `const`/`enum` values it pins a property to one or two levels deep (OpenAPI discriminators included), and whether
 * it is closed. Facts of the branch node alone, so they are cached per node.
 */
export interface BranchFacts {
  readonly types?: readonly string[];
  readonly required: readonly string[];
  readonly forbidden: readonly (readonly string[])[];
  /** JSON of the property path → admitted primitive values (undefined: unconstrained). */
  readonly tags: ReadonlyMap<string, Primitive[] | undefined>;
  readonly closed: boolean;
}

export class BranchEvidence {
  private readonly memo = new Map<string, BranchFacts>();

  constructor(private readonly nodes: SchemaNodes) {}

  /** What a union branch says about the values it admits (a fact of the branch node alone, so it is cached). */
  facts(branch: SchemaNode | undefined): BranchFacts {
    if (branch === undefined) return { required: [], forbidden: [], tags: new Map(), closed: false };
    let facts = this.memo.get(branch.uri);
    if (facts !== undefined) return facts;
    const { members } = flatten(this.nodes, [branch], undefined);
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
      if (Object.hasOwn(s, 'const')) narrow([jsonType(s.const)]);
      if (Array.isArray(s.enum)) narrow(s.enum.map(jsonType));
      if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') required.add(r);
      if (isPlainObject(s.not)) forbidden.push(...requiredSets(s.not));
    }
    if (members.length === 0 && branch.schema === false) types = new Set();
    const sv = staticView(this.nodes, members);
    const tags = new Map<string, Primitive[] | undefined>();
    for (const [name, nodes] of sv.names) {
      tags.set(JSON.stringify([name]), this.allowedValues(nodes));
      const inner = staticView(this.nodes, flatten(this.nodes, nodes, undefined).members);
      for (const [sub, subNodes] of inner.names) tags.set(JSON.stringify([name, sub]), this.allowedValues(subNodes));
    }
    facts = { types: types === undefined ? undefined : [...types].sort(), required: [...required], forbidden, tags, closed: sv.closed };
    this.memo.set(branch.uri, facts);
    return facts;
  }

  /** The primitive values every one of `nodes` admits (const/enum), or undefined when unconstrained or not primitive. */
  private allowedValues(nodes: readonly SchemaNode[]): Primitive[] | undefined {
    let allowed: Primitive[] | undefined;
    for (const m of flatten(this.nodes, nodes, undefined).members) {
      const s = m.schema as Record<string, unknown>;
      let vals: unknown[] | undefined;
      if (Object.hasOwn(s, 'const')) vals = [s.const];
      else if (Array.isArray(s.enum)) vals = s.enum;
      if (vals === undefined) continue;
      if (!vals.every(isPrimitive)) return undefined;
      const v = vals as Primitive[];
      allowed = allowed === undefined ? [...v] : allowed.filter((x) => v.includes(x));
    }
    return allowed;
  }
}

/** Keep, per branch, only the const/enum paths whose admitted values differ between branches. */
export function discriminatingTags(all: readonly ReadonlyMap<string, Primitive[] | undefined>[]): [string[], Primitive[]][][] {
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

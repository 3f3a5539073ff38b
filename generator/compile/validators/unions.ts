import { fragmentFromPointer, getAtPointer, isPlainObject, subschemas } from '../../shared/index.js';
import type { ResolvedRef, SchemaFile, SchemaGraph } from '../../load/index.js';

/**
 * Discriminated unions, for error messages only. When every branch of a `oneOf`/`anyOf` pins the same property to
 * constants (`pricing_model: { const: "cpm" }`), a failed union can tell the buyer which values that property
 * accepts instead of listing every branch's errors. The OpenAPI `discriminator.propertyName` annotation names the
 * property when present; otherwise the property every branch pins is used. Verdicts are untouched: the hint only
 * rides along in the union error's `params`.
 */
export interface UnionHint {
  /** `branches[i]`: the values branch i accepts for the property (so a value selects its branch's errors). */
  readonly params: {
    readonly property: string;
    readonly allowedValues: readonly unknown[];
    readonly branches: readonly (readonly unknown[])[];
    /**
     * `names[i]`: the properties branch i declares (null: any name may be its, through `patternProperties` or an
     * `additionalProperties` schema). A caller's field a branch does not declare would be dropped by the deep-strip,
     * so the runtime counts it against that branch when the discriminator chose none (runtime/issues/union-arms.ts).
     */
    readonly names?: readonly (readonly string[] | null)[];
  };
  /**
   * `refs[i]`: for a branch that is only a `$ref`, the URI of its target (`<file $id>#<pointer>`), whose compiled
   * function the union's code calls; the emitter hands it to the runtime so the selected branch can be re-run
   * alone to get its own errors (Ajv's errors from a called definition do not say which branch they came from).
   */
  readonly refs: readonly (string | undefined)[];
}

/**
 * One union compiled into a unit: how many arms it has (every failed union's error carries it, so the runtime can
 * tell that the errors before it are exactly one failure per arm, in arm order: runtime/issue-tree.ts), and its
 * discriminator when it has one.
 */
export interface UnionSite {
  readonly arms: number;
  readonly hint?: UnionHint;
  /**
   * For a union without a discriminator: the properties each arm declares (as `UnionHint` `names`), so the runtime
   * counts a caller's field an arm would drop against it (get_products' and get_signals' responses under one `anyOf`:
   * the caller's `products` speak for the first).
   */
  readonly names?: readonly (readonly string[] | null)[];
}

/** The unions compiled into one unit, keyed by the `schemaPath` Ajv writes in their errors. */
export function unionHints(location: { readonly file: SchemaFile; readonly pointer: string }, graph: SchemaGraph): Map<string, UnionSite> {
  const out = new Map<string, UnionSite>();
  const root = getAtPointer(location.file.schema, location.pointer);
  const visit = (node: unknown, errPath: string, isRoot: boolean): void => {
    if (!isPlainObject(node)) return;
    if (!isRoot && typeof node.$ref === 'string') return; // compiled as another unit
    for (const kw of ['oneOf', 'anyOf'] as const) {
      const branches = node[kw];
      if (!Array.isArray(branches)) continue;
      const hint = discriminate(node, branches, graph);
      const names = hint === undefined ? armNames(node, branches, graph) : undefined;
      out.set(`${errPath}/${kw}`, hint !== undefined ? { arms: branches.length, hint } : names !== undefined ? { arms: branches.length, names } : { arms: branches.length });
    }
    for (const sub of subschemas(node)) {
      visit(sub.schema, `${errPath}${fragmentFromPointer(sub.pointer)}`, false);
    }
  };
  visit(root, '#', true);
  return out;
}

/**
 * Where a `{ $ref }` node lands, as the release's schema graph resolved it once at load (the same target every
 * other compiler reads); undefined for a node without a reference or a dangling one.
 */
function targetOf(graph: SchemaGraph, node: Record<string, unknown>): ResolvedRef | undefined {
  return typeof node.$ref === 'string' ? graph.referenceAt(node)?.target : undefined;
}

function discriminate(node: Record<string, unknown>, branches: unknown[], graph: SchemaGraph): UnionHint | undefined {
  if (branches.length < 2) return undefined;
  const pinned = branches.map((b) => pinnedValues(b, graph, 0));
  const declared = isPlainObject(node.discriminator) && typeof node.discriminator.propertyName === 'string' ? node.discriminator.propertyName : undefined;
  const candidates = declared !== undefined ? [declared] : [...(pinned[0]?.keys() ?? [])].sort();
  for (const property of candidates) {
    if (!pinned.every((p) => p.has(property))) continue;
    const allowed: unknown[] = [];
    for (const p of pinned) for (const v of p.get(property)!) if (!allowed.some((a) => JSON.stringify(a) === JSON.stringify(v))) allowed.push(v);
    const refs = branches.map((b) => {
      if (!isPlainObject(b) || Object.keys(b).some((k) => k !== '$ref' && k !== 'description' && k !== 'title')) return undefined;
      const t = targetOf(graph, b);
      return t === undefined ? undefined : `${t.file.id}#${t.pointer}`;
    });
    const names = armNames(node, branches, graph);
    const known = names !== undefined ? { names } : {};
    return { params: { property, allowedValues: allowed, branches: pinned.map((p) => p.get(property)!), ...known }, refs };
  }
  return undefined;
}

/** Properties a branch pins to constants (const or enum), following `$ref` and `allOf`. */
function pinnedValues(schema: unknown, graph: SchemaGraph, depth: number): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  if (!isPlainObject(schema) || depth > 8) return out;
  if (typeof schema.$ref === 'string') return pinnedValues(targetOf(graph, schema)?.schema, graph, depth + 1);
  if (isPlainObject(schema.properties)) {
    for (const [name, prop] of Object.entries(schema.properties)) {
      if (!isPlainObject(prop)) continue;
      if ('const' in prop) out.set(name, [prop.const]);
      else if (Array.isArray(prop.enum)) out.set(name, prop.enum);
      else {
        // `{ "$ref": "…/enums/x.json" }` whose target is a const: still a pinned value.
        const t = targetOf(graph, prop)?.schema;
        if (isPlainObject(t) && 'const' in t) out.set(name, [t.const]);
      }
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) for (const [k, v] of pinnedValues(part, graph, depth + 1)) if (!out.has(k)) out.set(k, v);
  }
  return out;
}


/**
 * The properties each arm of the union in `node` declares, with those `node` itself declares beside the union (an
 * arm `{ required: ["packages"] }` of create_media_buy's request keeps the request's own fields); null: unknown, or
 * nothing declared. Undefined when no two arms differ.
 */
function armNames(node: Record<string, unknown>, branches: readonly unknown[], graph: SchemaGraph): (string[] | null)[] | undefined {
  const own = declaredNames(node, graph, 0);
  if (own === null) return undefined;
  const names = branches.map((b) => {
    const n = declaredNames(b, graph, 0);
    if (n === null) return null;
    for (const name of own) n.add(name);
    // A branch declaring nothing says nothing of the caller's fields.
    return n.size === 0 ? null : [...n].sort();
  });
  const texts = new Set(names.map((n) => JSON.stringify(n)));
  return names.some((n) => n !== null) && texts.size > 1 ? names : undefined;
}

/** The property names a branch declares, following `$ref` and `allOf`; null when any name may be declared. */
function declaredNames(schema: unknown, graph: SchemaGraph, depth: number): Set<string> | null {
  if (!isPlainObject(schema) || depth > 8) return null;
  if (typeof schema.$ref === 'string') return declaredNames(targetOf(graph, schema)?.schema, graph, depth + 1);
  if (schema.patternProperties !== undefined || isPlainObject(schema.additionalProperties)) return null;
  const out = new Set<string>(isPlainObject(schema.properties) ? Object.keys(schema.properties) : []);
  if (Array.isArray(schema.allOf)) {
    for (const part of schema.allOf) {
      const inner = declaredNames(part, graph, depth + 1);
      if (inner === null) return null;
      for (const n of inner) out.add(n);
    }
  }
  return out;
}

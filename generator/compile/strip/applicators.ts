import { escapeToken, isPlainObject } from '../../shared/index.js';
import type { Group } from './plan.js';
import type { SchemaNode, SchemaNodes } from './schema-nodes.js';

/**
 * Which schema nodes apply together at one place of a value, in JSON Schema's applicator vocabulary: `$ref` and
 * `allOf` members always apply (flattened); `anyOf`/`oneOf`, `if`/`then`/`else` and schema `dependencies` /
 * `dependentSchemas` apply conditionally (pending groups, until the analysis decides them). The static view of the
 * members is what they declare together: names, patterns, closure, additional and item schemas.
 */
export interface Members {
  readonly members: SchemaNode[];
  readonly groups: PendingGroup[];
  /** Names decided conditions read (`if` properties/required, `dependencies` keys): known, so never stripped. */
  readonly conditionNames: string[];
  /** Owners of decided conditions (if/dependencies): a canonical shape keeps them, and so their names. */
  readonly conditionOwners: SchemaNode[];
}
export interface PendingGroup {
  readonly kind: Group['kind'];
  readonly id: string;
  readonly owner: SchemaNode;
  readonly branches: readonly (SchemaNode | undefined)[];
  readonly property?: string;
}

export interface StaticView {
  readonly closed: boolean;
  readonly names: Map<string, SchemaNode[]>;
  readonly patterns: { source: string; re: RegExp; node: SchemaNode }[];
  readonly additional: SchemaNode[];
  readonly items: { prefix: SchemaNode[][]; rest: SchemaNode[] } | undefined;
}

/**
 * The members of a shape: its nodes, followed through `$ref` and `allOf`, with decided groups replaced by their
 * chosen branch. `resolved` undefined: every group stays pending (used for static facts).
 */
export function flatten(nodes: SchemaNodes, origins: readonly SchemaNode[], resolved: ReadonlyMap<string, number> | undefined, all = false, encountered?: Set<string>): Members {
  const members: SchemaNode[] = [];
  const groups: PendingGroup[] = [];
  const seen = new Set<string>();
  const visit = (node: SchemaNode | undefined): void => {
    if (node === undefined || seen.has(node.uri)) return;
    seen.add(node.uri);
    nodes.touch(node);
    const s = node.schema;
    if (!isPlainObject(s)) return;
    members.push(node);
    if (typeof s.$ref === 'string') visit(nodes.deref(node));
    if (Array.isArray(s.allOf)) s.allOf.forEach((_, i) => visit(nodes.child(node, 'allOf', i)));
    for (const kind of ['anyOf', 'oneOf'] as const) {
      const arr = s[kind];
      if (!Array.isArray(arr)) continue;
      const g: PendingGroup = { kind, id: `${node.uri}/${kind}`, owner: node, branches: arr.map((_, i) => nodes.child(node, kind, i)) };
      pend(g);
    }
    if (Object.hasOwn(s, 'if') && (Object.hasOwn(s, 'then') || Object.hasOwn(s, 'else'))) {
      pend({ kind: 'if', id: `${node.uri}/if`, owner: node, branches: [nodes.child(node, 'then'), nodes.child(node, 'else')] });
    }
    for (const kw of ['dependencies', 'dependentSchemas'] as const) {
      const deps = s[kw];
      if (!isPlainObject(deps)) continue;
      for (const name of Object.keys(deps)) {
        if (Array.isArray(deps[name])) continue;
        const id = `${node.uri}/${kw}/${escapeToken(name)}`;
        pend({ kind: 'dependency', id, owner: node, branches: [nodes.child(node, kw, name), undefined], property: name });
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
export function staticView(nodes: SchemaNodes, members: readonly SchemaNode[]): StaticView {
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
        const c = nodes.child(m, 'properties', name);
        let list = names.get(name);
        if (list === undefined) names.set(name, (list = []));
        if (c !== undefined) list.push(c);
      }
    }
    if (isPlainObject(s.patternProperties)) {
      for (const source of Object.keys(s.patternProperties)) {
        const c = nodes.child(m, 'patternProperties', source);
        if (c !== undefined) patterns.push({ source, re: nodes.regexp(source), node: c });
      }
    }
    for (const kw of ['additionalProperties', 'unevaluatedProperties'] as const) {
      if (isPlainObject(s[kw])) additional.push(nodes.child(m, kw)!);
    }
    if (Array.isArray(s.prefixItems)) {
      tuples.push({ prefix: s.prefixItems.map((_, i) => nodes.child(m, 'prefixItems', i)), rest: nodes.child(m, 'items') });
    } else if (Array.isArray(s.items)) {
      tuples.push({ prefix: s.items.map((_, i) => nodes.child(m, 'items', i)), rest: nodes.child(m, 'additionalItems') });
    } else if (Object.hasOwn(s, 'items')) {
      const c = nodes.child(m, 'items');
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

/** The top-level names an `if` schema tests: its properties and required names. */
function ifNames(schema: unknown): string[] {
  if (!isPlainObject(schema)) return [];
  const out = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
  if (Array.isArray(schema.required)) for (const r of schema.required) if (typeof r === 'string') out.push(r);
  return out;
}

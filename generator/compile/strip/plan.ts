import type { Pred, Primitive } from './predicates.js';
import type { SchemaNode } from './schema-nodes.js';

/**
 * What the analysis (analysis.ts) decides for one place of a value, and what the compiler (codegen.ts) and the
 * interpreter (interpret.ts) both execute: a *shape* (the schema nodes applying there, with the unions and
 * conditions already decided) and its *plan* (decide a group first, or strip by the merged object/array view).
 */
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

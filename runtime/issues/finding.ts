/**
 * A finding: one issue of one validator run and what the collection needs to get past it (issue-tree.ts makes them
 * from Ajv's errors, issue-collect.ts probes past them), with the small JSON and pointer helpers both use.
 */
import type { Issue } from '../artifacts/contract.js';
import { jsonOf } from './issue-text.js';
import { isObject } from '../wire/json-copy.js';
import { unescapeToken } from '../wire/pointer.js';

/** At most this many issues stand for a union whose arms cannot be told apart (the closest's), never the cascade. */
export const MAX_BRANCH_ISSUES = 3;

/** One issue of one validator run, and what getting past it needs; never sent as such (issues() makes the Issue). */
export interface Finding {
  readonly issue: Issue;
  /** Ajv's params for the error (copied): limits, patterns, allowed values, for the repairs. */
  readonly params: Readonly<Record<string, unknown>>;
  /** The definition whose schema rejected (`core/brand-ref.json`, `…#/definitions/x`), when known. */
  readonly location?: string;
  /** Ajv's schema path inside that definition. */
  readonly schemaPath: string;
  /** A union no arm of which matched, its arms told apart: each arm's findings (its first failure). */
  readonly arms?: readonly (readonly Finding[])[];
  /** That union's identity within a run: the definitions its error passed through, its schema and instance paths. */
  readonly union?: string;
  /** The properties each of those arms declares (null: unknown), when the generator listed them. */
  readonly armNames?: readonly (readonly string[] | null)[];
  /** A discriminated union whose discriminator is missing or names no arm: what an arm needs, and where. */
  readonly pick?: {
    readonly property: string;
    readonly branches: readonly (readonly unknown[])[];
    readonly at: string;
    /** The properties each arm declares (null: unknown), when the generator listed them. */
    readonly names?: readonly (readonly string[] | null)[];
  };
  /**
   * A property that conditions switch on, missing (every condition applied vacuously): the values they test it for,
   * and its object. The finding's `union` is the switch's identity, which its branches' findings are `within`.
   */
  readonly conditions?: { readonly property: string; readonly values: readonly unknown[]; readonly at: string };
  /** Named as another shape's (union-arms.ts): the same defect met later as the caller's own takes its place. */
  readonly alternative?: true;
  /** Named after every other finding of the collection (what a missing switch's values would require). */
  readonly later?: true;
  /** Found in the arm a discriminated union's value selected (or a condition's branch): that union's identity. */
  readonly within?: string;
}

export function findingKey(f: Finding): string {
  const i = f.issue;
  return `${i.pointer}\0${i.keyword}\0${i.missingProperty ?? ''}\0${i.additionalProperty ?? ''}\0${f.union ?? ''}`;
}

/**
 * The issues a finding stands for when nothing is probed: a union's closest arm by the depth its first failure
 * reached (ties to the first arm), then the union itself.
 */
export function flatten(findings: readonly Finding[]): Finding[] {
  return findings.flatMap((f) => (f.arms === undefined ? [f] : [...flatten(closestArm(f.arms)).slice(0, MAX_BRANCH_ISSUES), f]));
}

export function closestArm(arms: readonly (readonly Finding[])[]): readonly Finding[] {
  let best: readonly Finding[] = [];
  let bestDepth = -Infinity;
  for (const arm of arms) {
    const d = arm.length === 0 ? -Infinity : reach(arm[0]!);
    if (d > bestDepth) {
      best = arm;
      bestDepth = d;
    }
  }
  return best;
}

/** How far into the payload an arm's first failure got: its pointer's depth; a wrong type there counts for less. */
export function reach(f: Finding): number {
  return depth(f.issue.pointer) - (f.issue.keyword === 'type' ? 0.5 : 0);
}

export function within(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}/`);
}

export function depth(pointer: string): number {
  let n = 0;
  for (let i = 0; i < pointer.length; i++) if (pointer.charCodeAt(i) === 47) n++;
  return n;
}

/** The other items of the array holding the value at `pointer` ([] when no array holds it). */
export function siblingsOf(data: unknown, pointer: string): unknown[] {
  const cut = pointer.lastIndexOf('/');
  if (cut < 0) return [];
  const parent = valueAt(data, pointer.slice(0, cut));
  const index = pointer.slice(cut + 1);
  return Array.isArray(parent) ? parent.filter((_, i) => String(i) !== index) : [];
}

/** The value at an RFC 6901 pointer, own properties only; iterative, so any depth is fine. */
export function valueAt(data: unknown, pointer: string): unknown {
  if (pointer === '') return data;
  let node = data;
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescapeToken(raw);
    if (Array.isArray(node)) node = /^(0|[1-9]\d*)$/.test(token) ? node[Number(token)] : undefined;
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

export function isScalar(v: unknown): v is string | number | boolean | null {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return jsonOf(a) === jsonOf(b);
}

/** The findings a union made (its summary, or its selected arm's), among findings and inside their arms. */
export function findWithin(findings: readonly Finding[], union: string): Finding[] {
  const out: Finding[] = [];
  for (const f of findings) {
    if (f.union === union || f.within === union) out.push(f);
    else for (const arm of f.arms ?? []) out.push(...findWithin(arm, union));
    if (out.length > 0) return out;
  }
  return out;
}

/** A union by its identity, among findings and inside their arms. */
export function locate(findings: readonly Finding[], union: string): Finding | undefined {
  for (const f of findings) {
    if (f.union === union) return f;
    for (const arm of f.arms ?? []) {
      const inner = locate(arm, union);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

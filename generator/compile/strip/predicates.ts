import type { SchemaNode } from './schema-nodes.js';
import { isPlainObject } from '../../shared/index.js';

/**
 * `if` conditions as predicates deep-strip can decide: the keywords AdCP conditions use (type, const, enum,
 * required, properties, pattern, contains, allOf, anyOf, oneOf, not, $ref). `schemaPred` builds one at build time;
 * `evalPred` (the interpreter) and codegen.ts's `predExpr` (the compiler) decide it the same way.
 */

export type Pred =
  | { readonly k: 'true' }
  | { readonly k: 'false' }
  | { readonly k: 'and' | 'or' | 'one'; readonly ps: readonly Pred[] }
  | { readonly k: 'not'; readonly p: Pred }
  | { readonly k: 'type'; readonly types: readonly string[] }
  | { readonly k: 'eq'; readonly values: readonly Primitive[] }
  | { readonly k: 'required'; readonly names: readonly string[] }
  | { readonly k: 'prop'; readonly name: string; readonly p: Pred }
  | { readonly k: 'pattern'; readonly source: string }
  | { readonly k: 'contains'; readonly p: Pred };

export type Primitive = string | number | boolean | null;

/** How a predicate builder moves through schemas (the analyzer's nodes, `$ref`s and input tracking). */
export interface PredNav {
  child(node: SchemaNode, ...tokens: (string | number)[]): SchemaNode | undefined;
  deref(node: SchemaNode): SchemaNode | undefined;
  touch(node: SchemaNode): void;
}

/** Keywords an `if` may carry that do not constrain (or that this evaluator may ignore). */
export const ANNOTATIONS = new Set(['$schema', '$id', '$comment', 'title', 'description', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', 'format', 'discriminator', 'definitions', '$defs']);

const MAX_REF_CHAIN = 64;

/** The schema at `node` as a predicate, or undefined when it uses keywords this evaluator does not know. */
export function schemaPred(node: SchemaNode, nav: PredNav, depth: number): Pred | undefined {
  if (depth > MAX_REF_CHAIN) return undefined;
  nav.touch(node);
  const s = node.schema;
  if (s === true) return { k: 'true' };
  if (s === false) return { k: 'false' };
  if (!isPlainObject(s)) return undefined;
  const ps: Pred[] = [];
  for (const key of Object.keys(s)) {
    if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue;
    const v = s[key];
    let p: Pred | undefined;
    switch (key) {
      case 'type':
        p = typeof v === 'string' ? { k: 'type', types: [v] } : Array.isArray(v) && v.every((t) => typeof t === 'string') ? { k: 'type', types: v as string[] } : undefined;
        break;
      case 'const':
        p = isPrimitive(v) ? { k: 'eq', values: [v] } : undefined;
        break;
      case 'enum':
        p = Array.isArray(v) && v.every(isPrimitive) ? { k: 'eq', values: v as Primitive[] } : undefined;
        break;
      case 'required':
        p = Array.isArray(v) && v.every((n) => typeof n === 'string') ? { k: 'required', names: v as string[] } : undefined;
        break;
      case 'pattern':
        p = typeof v === 'string' ? { k: 'pattern', source: v } : undefined;
        break;
      case 'properties': {
        if (!isPlainObject(v)) return undefined;
        for (const name of Object.keys(v)) {
          const c = nav.child(node, 'properties', name);
          const cp = c === undefined ? undefined : schemaPred(c, nav, depth + 1);
          if (cp === undefined) return undefined;
          ps.push({ k: 'prop', name, p: cp });
        }
        continue;
      }
      case 'contains': {
        const c = nav.child(node, 'contains');
        const cp = c === undefined ? undefined : schemaPred(c, nav, depth + 1);
        p = cp === undefined ? undefined : { k: 'contains', p: cp };
        break;
      }
      case 'not': {
        const c = nav.child(node, 'not');
        const cp = c === undefined ? undefined : schemaPred(c, nav, depth + 1);
        p = cp === undefined ? undefined : { k: 'not', p: cp };
        break;
      }
      case 'allOf':
      case 'anyOf':
      case 'oneOf': {
        if (!Array.isArray(v)) return undefined;
        const list: Pred[] = [];
        for (let i = 0; i < v.length; i++) {
          const c = nav.child(node, key, i);
          const cp = c === undefined ? undefined : schemaPred(c, nav, depth + 1);
          if (cp === undefined) return undefined;
          list.push(cp);
        }
        p = { k: key === 'allOf' ? 'and' : key === 'anyOf' ? 'or' : 'one', ps: list };
        break;
      }
      case '$ref': {
        const t = nav.deref(node);
        p = t === undefined ? undefined : schemaPred(t, nav, depth + 1);
        break;
      }
      default:
        return undefined;
    }
    if (p === undefined) return undefined;
    ps.push(p);
  }
  return ps.length === 1 ? ps[0] : { k: 'and', ps };
}

export function isPrimitive(v: unknown): v is Primitive {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** JSON Schema truth of a predicate, the same way compiled predicates decide (codegen.ts). */
export function evalPred(p: Pred, v: unknown): boolean {
  switch (p.k) {
    case 'true':
      return true;
    case 'false':
      return false;
    case 'and':
      return p.ps.every((q) => evalPred(q, v));
    case 'or':
      return p.ps.some((q) => evalPred(q, v));
    case 'one':
      return p.ps.filter((q) => evalPred(q, v)).length === 1;
    case 'not':
      return !evalPred(p.p, v);
    case 'type':
      return p.types.some((t) => hasType(v, t));
    case 'eq':
      return p.values.some((x) => x === v);
    case 'required':
      return !isObj(v) || p.names.every((n) => Object.hasOwn(v, n));
    case 'prop':
      return !isObj(v) || !Object.hasOwn(v, p.name) || evalPred(p.p, (v as Record<string, unknown>)[p.name]);
    case 'pattern':
      return typeof v !== 'string' || new RegExp(p.source, 'u').test(v);
    case 'contains':
      return !Array.isArray(v) || v.some((x) => evalPred(p.p, x));
  }
}

function isObj(v: unknown): v is object {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function hasType(v: unknown, t: string): boolean {
  switch (t) {
    case 'object':
      return isObj(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    default:
      return false;
  }
}

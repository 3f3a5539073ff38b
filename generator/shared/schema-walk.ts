import { escapeToken } from './json-pointer.js';

/**
 * Which keywords hold subschemas, in the drafts AdCP uses (draft-07 canonical, 2020-12 MCP projection).
 * Everything else — const, default, enum, examples, `x-*`, descriptions — is data and is never walked.
 */
export const SINGLE_SCHEMA_KEYWORDS = [
  'additionalProperties',
  'additionalItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const;
export const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas'] as const;
export const SCHEMA_ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;

export interface SubschemaVisit {
  readonly schema: unknown;
  /** Pointer of the subschema relative to the walked root. */
  readonly pointer: string;
  /** The keyword (and for maps/arrays, the key or index) that holds it. */
  readonly keyword: string;
  readonly key?: string | number;
}

/** The direct subschemas of one schema node, in a deterministic order. */
export function subschemas(node: unknown, pointer = ''): SubschemaVisit[] {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return [];
  const s = node as Record<string, unknown>;
  const out: SubschemaVisit[] = [];
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(s, k);
  for (const keyword of SINGLE_SCHEMA_KEYWORDS) {
    if (has(keyword) && isSchema(s[keyword])) out.push({ schema: s[keyword], pointer: `${pointer}/${keyword}`, keyword });
  }
  if (has('items')) {
    const items = s.items;
    if (Array.isArray(items)) items.forEach((item, i) => out.push({ schema: item, pointer: `${pointer}/items/${i}`, keyword: 'items', key: i }));
    else if (isSchema(items)) out.push({ schema: items, pointer: `${pointer}/items`, keyword: 'items' });
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = s[keyword];
    if (has(keyword) && isPlainObject(map)) {
      for (const key of Object.keys(map)) {
        out.push({ schema: map[key], pointer: `${pointer}/${keyword}/${escapeToken(key)}`, keyword, key });
      }
    }
  }
  if (has('dependencies') && isPlainObject(s.dependencies)) {
    for (const key of Object.keys(s.dependencies)) {
      const dep = s.dependencies[key];
      if (!Array.isArray(dep) && isSchema(dep)) {
        out.push({ schema: dep, pointer: `${pointer}/dependencies/${escapeToken(key)}`, keyword: 'dependencies', key });
      }
    }
  }
  for (const keyword of SCHEMA_ARRAY_KEYWORDS) {
    const arr = s[keyword];
    if (has(keyword) && Array.isArray(arr)) {
      arr.forEach((item, i) => out.push({ schema: item, pointer: `${pointer}/${keyword}/${i}`, keyword, key: i }));
    }
  }
  return out;
}

/** Depth-first over a schema and all its subschemas (no `$ref` following). */
export function walkSchema(root: unknown, visit: (schema: unknown, pointer: string) => void, pointer = ''): void {
  visit(root, pointer);
  for (const sub of subschemas(root, pointer)) walkSchema(sub.schema, visit, sub.pointer);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function isSchema(v: unknown): boolean {
  return typeof v === 'boolean' || isPlainObject(v);
}

/**
 * A copy of a schema without the keywords `drop` names, at schema positions only (never inside `properties` names,
 * `enum`/`const` values or other data). Values that hold no subschema are shared with the input, not copied; the
 * input is never mutated. `copied` sees every object node of the copy with its pointer, as it is made.
 */
export function copySchemaWithout(
  schema: unknown,
  drop: (keyword: string) => boolean,
  copied?: (copy: Record<string, unknown>, pointer: string) => void,
  pointer = '',
): unknown {
  if (!isPlainObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  copied?.(out, pointer);
  const subs = new Map<string, unknown>();
  for (const sub of subschemas(schema)) subs.set(sub.pointer, copySchemaWithout(sub.schema, drop, copied, pointer + sub.pointer));
  for (const key of Object.keys(schema)) {
    if (drop(key)) continue;
    defineOwn(out, key, rebuild(schema[key], `/${escapeToken(key)}`, subs));
  }
  return out;
}

/** Rebuilds a keyword's value, substituting the already-copied subschemas found at their pointers. */
function rebuild(value: unknown, pointer: string, subs: Map<string, unknown>): unknown {
  if (subs.has(pointer)) return subs.get(pointer);
  if (Array.isArray(value)) {
    if (!value.some((_, i) => subs.has(`${pointer}/${i}`))) return value;
    return value.map((v, i) => (subs.has(`${pointer}/${i}`) ? subs.get(`${pointer}/${i}`) : v));
  }
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (!keys.some((k) => subs.has(`${pointer}/${escapeToken(k)}`))) return value;
    const out: Record<string, unknown> = {};
    for (const k of keys) {
      const p = `${pointer}/${escapeToken(k)}`;
      defineOwn(out, k, subs.has(p) ? subs.get(p) : value[k]);
    }
    return out;
  }
  return value;
}

/** Sets an own data property, even for `__proto__` (plain assignment would set the prototype). */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

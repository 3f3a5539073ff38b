import type { JsonSchema, JsonSchemaObject, Release } from '../load/index.js';
import { joinPointer, isPlainObject } from '../shared/index.js';
import { APPLIES_WHEN_LISTS } from './project.js';

/** What the projection reads (project.ts), stated for it: not a misspelling. */
const PROJECTION_INPUTS = new Set(Object.values(APPLIES_WHEN_LISTS).map((field) => `/capabilities/media_buy/${field}`));

/** A capability key a release does not define, where the profile states it. */
export interface UndeclaredCapability {
  /** RFC 6901 pointer into the profile file (`/capabilities/media_buy/colour`). */
  readonly pointer: string;
  readonly key: string;
}

/**
 * The capability keys a profile states that the release's get_adcp_capabilities response does not define. AdCP's
 * capability objects are mostly open (`additionalProperties` unstated), so `"colour": "blue"` passes the schema and
 * would be advertised to every buyer as written; a misspelt `suported_protocols` is the usual cause. A key counts as
 * defined when any branch of the object's schema (`allOf`/`anyOf`/`oneOf`/`if`-`then`-`else`, through `$ref`) names
 * it in `properties`, matches its `patternProperties`, or gives `additionalProperties` a schema (a map); an object
 * whose schema names no property at all is free-form (`ext`) and is not looked into. The lists the projection's
 * x-adcp-applies-when clauses read (project.ts) are stated for it, and not reported.
 */
export function undeclaredCapabilities(capabilities: unknown, release: Release): UndeclaredCapability[] {
  const tool = release.tools.get('get_adcp_capabilities');
  const file = tool === undefined ? undefined : release.schemas.byPath.get(tool.responseSchema);
  if (file === undefined) return [];
  const found: UndeclaredCapability[] = [];
  const target = (node: JsonSchemaObject): JsonSchema | undefined => release.graph.referenceAt(node)?.target?.schema;
  walk(capabilities, [file.schema], '/capabilities', found, target);
  return found.filter((u) => !PROJECTION_INPUTS.has(u.pointer));
}

type Deref = (node: JsonSchemaObject) => JsonSchema | undefined;

/** Every object schema a value must satisfy at once or in some branch, `$ref`s followed (each node once). */
function branches(schemas: readonly JsonSchema[], deref: Deref): JsonSchemaObject[] {
  const out: JsonSchemaObject[] = [];
  const seen = new Set<object>();
  const visit = (s: JsonSchema | undefined): void => {
    if (!isPlainObject(s) || seen.has(s)) return;
    seen.add(s);
    out.push(s);
    if (typeof s.$ref === 'string') visit(deref(s));
    for (const k of ['allOf', 'anyOf', 'oneOf'] as const) if (Array.isArray(s[k])) for (const b of s[k] as JsonSchema[]) visit(b);
    for (const k of ['then', 'else'] as const) visit(s[k] as JsonSchema | undefined);
  };
  for (const s of schemas) visit(s);
  return out;
}

function walk(value: unknown, schemas: readonly JsonSchema[], pointer: string, found: UndeclaredCapability[], deref: Deref): void {
  const all = branches(schemas, deref);
  if (Array.isArray(value)) {
    const items = all.flatMap((s) => (isPlainObject(s.items) ? [s.items as JsonSchema] : Array.isArray(s.prefixItems) ? (s.prefixItems as JsonSchema[]) : []));
    if (items.length > 0) value.forEach((v, i) => walk(v, items, joinPointer(pointer, i), found, deref));
    return;
  }
  if (!isPlainObject(value)) return;
  const named = all.filter((s) => isPlainObject(s.properties));
  if (named.length === 0) return; // free-form: nothing to compare with
  for (const [key, v] of Object.entries(value)) {
    const at = joinPointer(pointer, key);
    const declared = named.flatMap((s) => (Object.prototype.hasOwnProperty.call(s.properties, key) ? [(s.properties as Record<string, JsonSchema>)[key]!] : []));
    const patterned = all.flatMap((s) => (isPlainObject(s.patternProperties) ? Object.entries(s.patternProperties as Record<string, JsonSchema>).filter(([p]) => new RegExp(p, 'u').test(key)).map(([, sub]) => sub) : []));
    const mapped = all.flatMap((s) => (isPlainObject(s.additionalProperties) ? [s.additionalProperties as JsonSchema] : []));
    const under = [...declared, ...patterned, ...(declared.length + patterned.length === 0 ? mapped : [])];
    if (under.length === 0) {
      found.push({ pointer: at, key });
      continue;
    }
    walk(v, under, at, found, deref);
  }
}

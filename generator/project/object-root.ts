import { CodegenError, getAtPointer, pointerFromFragment, isPlainObject } from '../shared/index.js';
import type { JsonSchemaObject } from '../load/index.js';

/**
 * MCP requires every advertised inputSchema and outputSchema to be rooted at `"type": "object"`
 * (`@modelcontextprotocol/sdk`'s ListToolsResultSchema rejects the whole tools/list otherwise). Some AdCP 3.2
 * projections root a schema in `allOf`/`oneOf` alone. Saying `"type": "object"` there changes nothing that
 * validates exactly when the schema already forces an object: an `allOf` member does, or every `oneOf`/`anyOf` arm
 * does (following local `$ref`s). Anything else is an error naming the document (`file`) and the pointer.
 */
export function objectRooted(doc: JsonSchemaObject, file: string): JsonSchemaObject {
  if (doc.type === 'object') return doc;
  if (doc.type !== undefined) throw new CodegenError(file, '/type', `MCP tools/list schemas must be objects at the root; this one has type ${JSON.stringify(doc.type)}`);
  if (!forcesObject(doc, doc, new Set())) {
    throw new CodegenError(file, '', 'MCP tools/list schemas must be objects at the root; this root has no "type" and cannot be proven to admit objects only (no allOf member, nor every oneOf/anyOf arm, is an object)');
  }
  // `type` placed after the identifying keywords, before the rest: the document reads as it did.
  const out: Record<string, unknown> = {};
  for (const k of ['$schema', '$id']) if (k in doc) out[k] = doc[k];
  out.type = 'object';
  for (const [k, v] of Object.entries(doc)) if (!(k in out)) out[k] = v;
  return out as JsonSchemaObject;
}

/** Whether every instance `node` admits is an object. Conservative: unknown means no. */
function forcesObject(node: unknown, doc: JsonSchemaObject, following: Set<string>): boolean {
  if (!isPlainObject(node)) return false;
  if (node.type === 'object' || (Array.isArray(node.type) && node.type.length === 1 && node.type[0] === 'object')) return true;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#') && !following.has(node.$ref)) {
    following.add(node.$ref);
    const target = getAtPointer(doc, pointerFromFragment(node.$ref.slice(1)));
    const forced = forcesObject(target, doc, following);
    following.delete(node.$ref);
    if (forced) return true;
  }
  if (Array.isArray(node.allOf) && node.allOf.some((m) => forcesObject(m, doc, following))) return true;
  for (const k of ['oneOf', 'anyOf'] as const) {
    const arms = node[k];
    if (Array.isArray(arms) && arms.length > 0 && arms.every((m) => forcesObject(m, doc, following))) return true;
  }
  return false;
}

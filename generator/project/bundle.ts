import { escapeToken, fragmentFromPointer, isPlainObject } from '../shared/index.js';
import type { JsonSchemaObject, Release, SchemaFile, SchemaReference } from '../load/index.js';

/** `$defs` key of a bundled file, as the AdCP MCP projection names them: `external:core/product.json`. */
export function externalKey(path: string): string {
  return `external:${path}`;
}

/**
 * A self-contained tools/list schema for a release that ships no MCP projection (AdCP 3.0/3.1): the tool's
 * canonical schema at the root, every file it reaches under `$defs["external:<path>"]`, and every `$ref` rewritten
 * to a local pointer — the same shape as the 3.2 MCP projection, so overlays and projection treat both alike.
 * Nested `$id`s are dropped: they would change the base URI that the local refs resolve against.
 */
export function bundleSchema(release: Release, rootPath: string): JsonSchemaObject {
  const root = release.schemas.byPath.get(rootPath);
  if (root === undefined) throw new Error(`${release.label}: no schema at ${rootPath}`);
  const included = new Map<string, SchemaFile>([[root.id, root]]);
  const queue: SchemaFile[] = [root];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of release.graph.dependencies(file)) {
      if (!included.has(target.id)) {
        included.set(target.id, target);
        queue.push(target);
      }
    }
  }
  const local = (reference: SchemaReference): string => {
    const target = reference.target;
    if (target === undefined) throw new Error(`${release.label}/${reference.from.path}#${reference.pointer}: dangling $ref ${JSON.stringify(reference.ref)}`);
    const prefix = target.file.id === root.id ? '#' : `#/$defs/${escapeToken(externalKey(target.file.path))}`;
    return prefix + fragmentFromPointer(target.pointer);
  };
  const rewrite = (file: SchemaFile, dropId: boolean): JsonSchemaObject => {
    const refsAt = new Map(release.graph.references(file).map((r) => [r.pointer, r]));
    return rewriteRefs(file.schema, '', refsAt, local, dropId) as JsonSchemaObject;
  };
  const defs: Record<string, JsonSchemaObject> = {};
  for (const file of [...included.values()].filter((f) => f !== root).sort((a, b) => (a.path < b.path ? -1 : 1))) {
    defs[externalKey(file.path)] = rewrite(file, true);
  }
  const bundled = rewrite(root, false);
  if (Object.keys(defs).length === 0) return bundled;
  const existing = isPlainObject(bundled.$defs) ? bundled.$defs : {};
  return { ...bundled, $defs: { ...existing, ...defs } };
}

/** Copies `node`, replacing each `$ref` found at a pointer in `refsAt` and dropping `$id`/`$schema` when asked. */
function rewriteRefs(node: unknown, pointer: string, refsAt: ReadonlyMap<string, SchemaReference>, to: (reference: SchemaReference) => string, dropId: boolean): unknown {
  if (Array.isArray(node)) return node.map((v, i) => rewriteRefs(v, `${pointer}/${i}`, refsAt, to, dropId));
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  const ref = refsAt.get(pointer);
  for (const [key, value] of Object.entries(node)) {
    if (dropId && pointer === '' && (key === '$id' || key === '$schema')) continue;
    const child = `${pointer}/${escapeToken(key)}`;
    const v = key === '$ref' && ref !== undefined && value === ref.ref ? to(ref) : rewriteRefs(value, child, refsAt, to, dropId);
    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

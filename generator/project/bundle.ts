import { escapeToken, collectRefs, isPlainObject } from '../shared/index.js';
import type { JsonSchemaObject, Release, SchemaFile } from '../load/index.js';

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
    for (const { ref } of collectRefs(file.schema)) {
      const target = release.schemas.resolve(ref, file.id).file;
      if (!included.has(target.id)) {
        included.set(target.id, target);
        queue.push(target);
      }
    }
  }
  const local = (file: SchemaFile, ref: string): string => {
    const target = release.schemas.resolve(ref, file.id);
    const prefix = target.file.id === root.id ? '#' : `#/$defs/${escapeToken(externalKey(target.file.path))}`;
    return prefix + target.pointer.split('/').map((t) => encodeURIComponent(t).replace(/%2F/gi, '/').replace(/%7E/gi, '~')).join('/');
  };
  const rewrite = (file: SchemaFile, node: JsonSchemaObject, dropId: boolean): JsonSchemaObject => {
    const refsAt = new Map(collectRefs(node).map((r) => [r.pointer, r.ref]));
    return rewriteRefs(node, '', refsAt, (ref) => local(file, ref), dropId) as JsonSchemaObject;
  };
  const defs: Record<string, JsonSchemaObject> = {};
  for (const file of [...included.values()].filter((f) => f !== root).sort((a, b) => (a.path < b.path ? -1 : 1))) {
    defs[externalKey(file.path)] = rewrite(file, file.schema, true);
  }
  const bundled = rewrite(root, root.schema, false);
  if (Object.keys(defs).length === 0) return bundled;
  const existing = isPlainObject(bundled.$defs) ? bundled.$defs : {};
  return { ...bundled, $defs: { ...existing, ...defs } };
}

/** Copies `node`, replacing each `$ref` found at a pointer in `refsAt` and dropping `$id`/`$schema` when asked. */
function rewriteRefs(node: unknown, pointer: string, refsAt: Map<string, string>, to: (ref: string) => string, dropId: boolean): unknown {
  if (Array.isArray(node)) return node.map((v, i) => rewriteRefs(v, `${pointer}/${i}`, refsAt, to, dropId));
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  const ref = refsAt.get(pointer);
  for (const [key, value] of Object.entries(node)) {
    if (dropId && pointer === '' && (key === '$id' || key === '$schema')) continue;
    const child = `${pointer}/${escapeToken(key)}`;
    const v = key === '$ref' && ref !== undefined && value === ref ? to(ref) : rewriteRefs(value, child, refsAt, to, dropId);
    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

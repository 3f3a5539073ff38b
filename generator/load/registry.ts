import { CodegenError, hashJson, getAtPointer, pointerFromFragment } from '../shared/index.js';
import type { ResolvedRef, SchemaFile, SchemaRegistry } from './model.js';
import { resolveUri, splitFragment } from './uri.js';

/**
 * A registry of one release's modular schemas keyed by `$id`. `resolve` is the only way stages follow a `$ref`,
 * so a dangling reference surfaces as one error naming the file and the pointer of the reference.
 */
export function createRegistry(files: readonly SchemaFile[], releaseLabel: string): SchemaRegistry {
  const byId = new Map<string, SchemaFile>();
  const byPath = new Map<string, SchemaFile>();
  for (const file of files) {
    const seen = byId.get(file.id);
    // Hashes are of the files' bytes: the same schema written twice with different layout is still the same.
    if (seen !== undefined && seen.hash !== file.hash && hashJson(seen.schema) !== hashJson(file.schema)) {
      throw new CodegenError(
        `${releaseLabel}/${file.path}`,
        '/$id',
        `$id ${JSON.stringify(file.id)} is also declared by ${seen.path} with different content`,
      );
    }
    if (seen === undefined) byId.set(file.id, file);
    byPath.set(file.path, file);
  }

  function resolve(ref: string, baseId: string): ResolvedRef {
    const uri = resolveUri(baseId, ref);
    const { doc, fragment } = splitFragment(uri);
    const file = byId.get(doc);
    if (file === undefined) throw new Error(`no schema with $id ${JSON.stringify(doc)}`);
    const pointer = pointerFromFragment(fragment);
    const schema = getAtPointer(file.schema, pointer);
    if (schema === undefined || (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object'))) {
      throw new Error(`${JSON.stringify(pointer)} does not exist in ${file.path}`);
    }
    return { file, pointer, schema: schema as ResolvedRef['schema'], uri: `${file.id}#${pointer}` };
  }

  return { byId, byPath, resolve };
}


import { escapeToken, isPlainObject } from '../../shared/index.js';
import type { Release, SchemaFile } from '../../load/index.js';

/**
 * The fields a tool's request or response schema declares, by *place*: the path of property names from the body's
 * root, `*` for the elements of an array (`packages/*\/status`). A place can be declared several times (each arm of
 * a `oneOf`, an `allOf` member, a `then`), each declaration a property schema at a pointer of a release file. The
 * conversion rules are written by place; the diff between two releases compares places and what declares them; the
 * planner checks that a rule's place lands on the declarations it cites.
 */

/** One property declaration: the property's schema where the release declares it. */
export interface Declaration {
  readonly file: SchemaFile;
  /** Pointer of the property's schema inside `file.schema` (`/oneOf/0/properties/status`). */
  readonly pointer: string;
  readonly schema: Record<string, unknown>;
}

export interface Place {
  /** Tokens from the root: property names, `*` for array elements. */
  readonly path: readonly string[];
  readonly declarations: Declaration[];
  /** Names some object schema at this place requires outside any union arm or conditional branch. */
  readonly required: Set<string>;
  /** Names only a union arm or a conditional branch at this place requires. */
  readonly requiredInBranch: Set<string>;
  /** An object schema at this place closes it (`additionalProperties: false`): undeclared names are unknown there. */
  closed: boolean;
}

export type FieldMap = ReadonlyMap<string, Place>;

/** `packages/*\/status` for `['packages', '*', 'status']`: tokens joined as a JSON pointer without the leading `/`. */
export function placeKey(path: readonly string[]): string {
  return path.map(escapeToken).join('/');
}

/** placeKey of `[...path, token]` from `path`'s own key (`token` escaped already): a walk extends the key it carries. */
function keyBelow(path: readonly string[], key: string, token: string): string {
  return path.length === 0 ? token : `${key}/${token}`;
}

/** `<file>#<pointer>`: how rules, waivers and reports name a declaration. */
export function locationOf(d: { readonly file: SchemaFile; readonly pointer: string }): string {
  return `${d.file.path}#${d.pointer}`;
}

/** Places deeper than this are not followed: no AdCP body nests a field that far, and recursion stops here too. */
const MAX_DEPTH = 24;

/** How a field map is had: walked (fieldsOf), or kept from an earlier walk (fieldWalks). */
export type FieldWalk = (release: Release, paths: readonly string[]) => FieldMap;

/**
 * fieldsOf, each release and paths walked once for as long as the returned function is kept: a pair's plan keeps
 * one, and its diff and request gaps read the same maps (the maps of every tool kept for a whole generation were
 * ~40 MB more at its peak).
 */
export function fieldWalks(): FieldWalk {
  const walked = new Map<Release, Map<string, FieldMap>>();
  return (release, paths) => {
    let byPaths = walked.get(release);
    if (byPaths === undefined) walked.set(release, (byPaths = new Map()));
    const key = paths.join('\0');
    let fields = byPaths.get(key);
    if (fields === undefined) byPaths.set(key, (fields = fieldsOf(release, paths)));
    return fields;
  };
}

/**
 * Every place the schemas at `paths` (a tool's response and async responses, or its request) declare. `$ref`s are
 * followed where the release's schema graph resolved them; a definition that recurses (a product's child products)
 * is entered once per path, so the walk ends.
 */
export function fieldsOf(release: Release, paths: readonly string[]): FieldMap {
  const places = new Map<string, Place>();
  // A place's key is its path's (placeKey), carried down the walk rather than rebuilt at every node.
  const placeAt = (path: readonly string[], key: string): Place => {
    let p = places.get(key);
    if (p === undefined) places.set(key, (p = { path, declarations: [], required: new Set(), requiredInBranch: new Set(), closed: false }));
    return p;
  };
  const seen = new Set<string>();
  // The schemas on the way down (entered and left as the walk recurses): a definition met again inside itself stops.
  const stack = new Set<object>();
  const visit = (file: SchemaFile, schema: unknown, pointer: string, path: readonly string[], pathKey: string, branch: boolean): void => {
    if (!isPlainObject(schema) || stack.has(schema) || path.length > MAX_DEPTH) return;
    const key = `${file.path}#${pointer}@${pathKey}@${branch}`;
    if (seen.has(key)) return;
    seen.add(key);
    stack.add(schema);
    const place = placeAt(path, pathKey);
    if (typeof schema.$ref === 'string') {
      const ref = release.graph.referenceAt(schema);
      if (ref?.target !== undefined) visit(ref.target.file, ref.target.schema, ref.target.pointer, path, pathKey, branch);
    }
    const arms = (keyword: string, inBranch: boolean): void => {
      const list = schema[keyword];
      if (Array.isArray(list)) list.forEach((arm, i) => visit(file, arm, `${pointer}/${keyword}/${i}`, path, pathKey, inBranch));
    };
    arms('allOf', branch);
    arms('anyOf', true);
    arms('oneOf', true);
    for (const keyword of ['then', 'else']) if (keyword in schema) visit(file, schema[keyword], `${pointer}/${keyword}`, path, pathKey, true);
    if (Array.isArray(schema.required)) for (const n of schema.required) if (typeof n === 'string') (branch ? place.requiredInBranch : place.required).add(n);
    if (schema.additionalProperties === false) place.closed = true;
    if (isPlainObject(schema.properties)) {
      for (const name of Object.keys(schema.properties)) {
        const child = schema.properties[name];
        if (!isPlainObject(child)) continue;
        const token = escapeToken(name);
        const at = `${pointer}/properties/${token}`;
        const childPath = [...path, name];
        const childKey = keyBelow(path, pathKey, token);
        const childPlace = placeAt(childPath, childKey);
        if (!childPlace.declarations.some((d) => d.file === file && d.pointer === at)) childPlace.declarations.push({ file, pointer: at, schema: child });
        visit(file, child, at, childPath, childKey, false);
      }
    }
    if (isPlainObject(schema.items)) visit(file, schema.items, `${pointer}/items`, [...path, '*'], keyBelow(path, pathKey, '*'), false);
    stack.delete(schema);
  };
  for (const path of paths) {
    const file = release.schemas.byPath.get(path);
    if (file !== undefined) visit(file, file.schema, '', [], '', false);
  }
  for (const p of places.values()) for (const n of p.required) p.requiredInBranch.delete(n);
  return places;
}

/** What a declaration holds, seen through `$ref`s and single-member `allOf`s: what the diff compares. */
export interface Facts {
  /** The definitions it refers to (`enums/media-buy-status.json`), release-relative: comparable across releases. */
  readonly refs: ReadonlySet<string>;
  /** `enum`/`const` values admitted, JSON-encoded; undefined when the declaration admits any value of its types. */
  readonly values?: ReadonlySet<string>;
  readonly types: ReadonlySet<string>;
  readonly deprecated: boolean;
  readonly description: string;
}

export function factsOf(release: Release, d: Declaration): Facts {
  const refs = new Set<string>();
  const types = new Set<string>();
  let values: Set<string> | undefined;
  let deprecated = false;
  let description = '';
  const visit = (schema: unknown, depth: number): void => {
    if (!isPlainObject(schema) || depth > 8) return;
    if (schema.deprecated === true) deprecated = true;
    if (description === '' && typeof schema.description === 'string') description = schema.description;
    if (typeof schema.type === 'string') types.add(schema.type);
    if (Array.isArray(schema.type)) for (const t of schema.type) if (typeof t === 'string') types.add(t);
    const admitted = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
    if (admitted !== undefined) {
      values ??= new Set();
      for (const v of admitted) values.add(JSON.stringify(v));
    }
    if (typeof schema.$ref === 'string') {
      const ref = release.graph.referenceAt(schema);
      if (ref?.target !== undefined) {
        refs.add(ref.target.pointer === '' ? ref.target.file.path : `${ref.target.file.path}#${ref.target.pointer}`);
        visit(ref.target.schema, depth + 1);
      }
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) visit(schema.allOf[0], depth + 1);
  };
  visit(d.schema, 0);
  return { refs, values, types, deprecated, description };
}

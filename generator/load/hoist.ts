import { defineOwn, getAtPointer, isPlainObject, sha256, shortHash, subschemas } from '../shared/index.js';
import type { JsonSchemaObject, SchemaFile } from './model.js';

/**
 * Compiling what repeats once (issue 31). AdCP's schemas repeat whole inline subschemas under different names: the
 * same `floor_price`, `max_bid`, `price_guidance` block in every pricing option, the same metric qualifier in five
 * metric shapes. Ajv compiles each place on its own, so each repeat is emitted again. Before Ajv sees the
 * documentation-free copies, every inline subschema is hashed by its content (its `$ref`s absolute); one that occurs
 * in two places or more, and is big enough to be worth a call, is moved into a document of its own and each place
 * becomes `{ "x-adcp-hoisted": "<its URI>" }`, a keyword compiled as a call to that one function whose errors are
 * rebased onto the place (hoisted-keyword.ts): they read as if the subschema were still inline.
 *
 * Only maximal repeats move (a repeat inside a moved subschema stays inline there), never a document's root, a
 * bare `$ref`, what STAYS names, or anything at or around a split location (compile/items moves those itself) or
 * where a `$ref` lands.
 */

/**
 * The URI prefix of hoisted documents: never fetched, never published (`.invalid`, RFC 2606). A release whose ids
 * are rooted (3.0.6's `/schemas/3.0.6/…`, whose references are rooted too) gets a rooted prefix, so its references
 * resolve as in the documents they came from.
 */
export const HOISTED_BASE = 'https://adcp-codegen.invalid/hoisted/';
const ROOTED_HOISTED_BASE = '/adcp-codegen-hoisted/';
export const HOISTED_KEYWORD = 'x-adcp-hoisted';

/**
 * Subschemas that stay where they are, by the keyword holding them. `definitions` entries: other documents reach
 * them by `$ref`, and each is a function already. A union's arms, and a condition and its branches: a payload that
 * matches one arm fails the others on every valid call, and a failed call of a hoisted function hands back a fresh
 * errors array rebased error by error, where the code inline only counts (measured: a valid verify_brand_claim,
 * whose four claim shapes were each hoisted, validated 3x slower than run-time Ajv).
 */
const STAYS = new Set(['definitions', '$defs', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else']);

/**
 * Smallest subschema worth a call, in characters of its canonical JSON. A call costs an options object and an
 * instance path on the valid path; below this the code saved is a few checks (`{ "type": "number", "minimum": 0 }`).
 */
const MIN_CANONICAL = 160;

export interface HoistedSchema {
  readonly uri: string;
  /** The subschema, as moved: the copy Ajv compiles, its `$ref`s absolute. */
  readonly schema: JsonSchemaObject;
  /**
   * A stand-in document for the compiled definition: its path (`_hoisted/<hash>.json`, the same in every release
   * whose subschema and references are the same, so the definitions dedupe across releases), and as its schema the
   * first place's original node (the union hints read its discriminators).
   */
  readonly file: SchemaFile;
  /** The documents holding the places it was moved from: the definition's inputs. */
  readonly sites: readonly SchemaFile[];
}

export interface Copied {
  readonly file: SchemaFile;
  readonly copy: JsonSchemaObject;
}

/**
 * Moves repeats out of `docs` (the copies, edited in place) and returns the hoisted documents. `origin` names each
 * copied node's place in the release (the copies' locations); `releaseBase` is the `$id` prefix stripped for the
 * release-independent hash; `avoid(node)` is true for a node at or around a place that must stay where it is.
 */
export function hoistRepeats(
  docs: readonly Copied[],
  origin: (node: object) => { file: SchemaFile; pointer: string } | undefined,
  releaseBase: string,
  avoid: (node: object) => boolean,
): HoistedSchema[] {
  // Every candidate node, by canonical text (absolute references), with its places in document order.
  const byText = new Map<string, { node: JsonSchemaObject; file: SchemaFile; pointer: string }[]>();
  const canon = new Map<object, string>();
  for (const { file, copy } of docs) {
    walk(copy, '', (node, pointer, parentKeyword) => {
      const text = canonical(node, file.id, canon);
      if (pointer === '' || STAYS.has(parentKeyword ?? '') || isBareRef(node) || text.length < MIN_CANONICAL) return;
      if (avoid(node)) return;
      let list = byText.get(text);
      if (list === undefined) byText.set(text, (list = []));
      list.push({ node, file, pointer });
    });
  }
  const repeated = new Set([...byText].filter(([, places]) => places.length >= 2).map(([text]) => text));
  if (repeated.size === 0) return [];

  // Maximal repeats only: walking each document top-down, a repeated node is moved and not entered.
  const hoisted = new Map<string, { uri: string; schema: JsonSchemaObject; file: SchemaFile; sites: Set<SchemaFile> }>();
  for (const { file, copy } of docs) {
    replaceTopDown(copy, '', (node, pointer, parentKeyword) => {
      if (pointer === '' || STAYS.has(parentKeyword ?? '')) return undefined;
      const text = canon.get(node);
      if (text === undefined || !repeated.has(text) || avoid(node)) return undefined;
      let h = hoisted.get(text);
      if (h === undefined) {
        // Release-independent: the text with every reference relative to the release's base.
        const hash = shortHash(sha256(text.split(JSON.stringify(releaseBase).slice(1, -1)).join('')));
        const uri = `${file.id.startsWith('/') ? ROOTED_HOISTED_BASE : HOISTED_BASE}${hash}.json`;
        const place = origin(node);
        const original = place === undefined ? node : getAtPointer(place.file.schema, place.pointer);
        const stand: SchemaFile = { id: uri, path: `_hoisted/${hash}.json`, hash: sha256(text), schema: (isPlainObject(original) ? original : node) as JsonSchemaObject };
        h = { uri, schema: absoluteRefs(node, file.id), file: stand, sites: new Set() };
        hoisted.set(text, h);
      }
      h.sites.add(file);
      return { [HOISTED_KEYWORD]: h.uri };
    });
  }
  return [...hoisted.values()].map((h) => {
    const sites = [...h.sites].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    SITES.set(h.file, sites);
    return { uri: h.uri, schema: h.schema, file: h.file, sites };
  });
}

const SITES = new WeakMap<SchemaFile, readonly SchemaFile[]>();

/** The documents a compiled definition's code comes from: a hoisted subschema's places, else its own document. */
export function sourceDocuments(file: SchemaFile): readonly SchemaFile[] {
  return SITES.get(file) ?? [file];
}

/** Visits every object subschema, children before the parent returns (so a node's canonical text is computed once). */
function walk(node: JsonSchemaObject, pointer: string, visit: (node: JsonSchemaObject, pointer: string, parentKeyword: string | undefined) => void, parentKeyword?: string): void {
  for (const sub of subschemas(node)) {
    if (isPlainObject(sub.schema)) walk(sub.schema as JsonSchemaObject, `${pointer}${sub.pointer}`, visit, sub.keyword);
  }
  visit(node, pointer, parentKeyword);
}

/** Top-down: `replace` returns the node to put in a subschema's place (not entered), or undefined to go into it. */
function replaceTopDown(node: JsonSchemaObject, pointer: string, replace: (node: JsonSchemaObject, pointer: string, parentKeyword: string | undefined) => JsonSchemaObject | undefined): void {
  for (const sub of subschemas(node)) {
    if (!isPlainObject(sub.schema)) continue;
    const child = sub.schema as JsonSchemaObject;
    const at = `${pointer}${sub.pointer}`;
    const swap = replace(child, at, sub.keyword);
    if (swap === undefined) {
      replaceTopDown(child, at, replace);
      continue;
    }
    const holder = node[sub.keyword] as Record<string, unknown> | unknown[];
    if (sub.key === undefined) defineOwn(node, sub.keyword, swap);
    else if (Array.isArray(holder)) holder[sub.key as number] = swap;
    else defineOwn(holder, String(sub.key), swap);
  }
}

/** Sorted-key JSON of a schema node, `$ref`s made absolute against `base` (memoised per node). */
function canonical(node: unknown, base: string, memo: Map<object, string>): string {
  if (Array.isArray(node)) return `[${node.map((n) => canonical(n, base, memo)).join(',')}]`;
  if (!isPlainObject(node)) return JSON.stringify(node) ?? 'null';
  const known = memo.get(node);
  if (known !== undefined) return known;
  const text = `{${Object.keys(node)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${k === '$ref' && typeof node[k] === 'string' ? JSON.stringify(absolute(node[k] as string, base)) : canonical(node[k], base, memo)}`)
    .join(',')}}`;
  memo.set(node, text);
  return text;
}

/** A copy of `node` with every `$ref` absolute against `base`: the moved subschema no longer sits in its document. */
function absoluteRefs(node: unknown, base: string): JsonSchemaObject {
  const copy = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(copy);
    if (!isPlainObject(v)) return v;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) defineOwn(out, k, k === '$ref' && typeof v[k] === 'string' ? absolute(v[k] as string, base) : copy(v[k]));
    return out;
  };
  return copy(node) as JsonSchemaObject;
}

/** `#/definitions/x` in document `base` → `<base>#/definitions/x`; an absolute or rooted reference as it is. */
function absolute(ref: string, base: string): string {
  if (ref.startsWith('#')) return `${base.split('#')[0]}${ref}`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref) || ref.startsWith('/')) return ref;
  return new URL(ref, base.startsWith('/') ? `https://rooted.invalid${base}` : base).href.replace(/^https:\/\/rooted\.invalid/, '');
}

function isBareRef(node: Record<string, unknown>): boolean {
  const keys = Object.keys(node);
  return keys.length === 1 && keys[0] === '$ref';
}




import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { copySchemaWithout, defineOwn, escapeToken, fragmentFromPointer, getAtPointer, isPlainObject, parsePointer, walkSchema } from '../shared/index.js';
import type { JsonSchemaObject, Release, SchemaFile } from './model.js';
import { readableByAjv, readableProtoKeys } from './ajv-proto-keys.js';
import { HOISTED_KEYWORD, hoistRepeats, type Copied } from './hoist.js';
import { addHoistedKeyword } from './hoisted-keyword.js';
import { foldControlFlow } from './ajv-flow.js';

// ajv-formats is CommonJS with `exports.default`; under NodeNext its default import is the module object.
type AddFormats = (typeof addFormatsModule)['default'];
const addFormats: AddFormats = (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);
export type AjvInstance = Ajv;

/**
 * AdCP keywords that carry documentation or tooling hints, never validation: declared to Ajv as annotation
 * keywords (no code) so strict mode stays on for everything else — a misspelt `minLenght` still fails the build.
 * `discriminator` is the OpenAPI annotation, not Ajv's `discriminator: true` vocabulary (which changes `oneOf`
 * semantics and cannot resolve the mapped `$ref`s of the modular schemas). `errorMessage` belongs to ajv-errors,
 * which we do not use: under draft-07 it is an unknown keyword, i.e. an annotation. Every `x-*` keyword found in
 * the release is added by `annotationKeywords`. Keys found only in data documents that carry an `$id`
 * (creative/asset-types/index.json, extensions/index.json, vocabularies) are not listed: no tool compiles them.
 */
export const ADCP_ANNOTATION_KEYWORDS = ['discriminator', 'enumDescriptions', 'enumMetadata', 'notes', 'errorMessage', '_bundled'] as const;

/** Annotation keywords of one release: the AdCP list plus every `x-*` keyword at a schema position (the graph's vocabulary). */
export function annotationKeywords(release: Release): string[] {
  const out = new Set<string>(ADCP_ANNOTATION_KEYWORDS);
  for (const key of release.graph.vocabulary) if (key.startsWith('x-')) out.add(key);
  return [...out].sort();
}

/**
 * The Ajv options every canonical validator uses, at build time and in the run-time baseline alike (so the
 * differential tests compare like with like). docs/validators.md explains each choice.
 */
export function ajvOptions(forStandalone: boolean, ownProperties: boolean): Options {
  return {
    strictSchema: true,
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allErrors: false,
    messages: false,
    verbose: false,
    ownProperties,
    inlineRefs: false,
    validateFormats: true,
    addUsedSchema: false,
    discriminator: false,
    unicodeRegExp: true,
    logger: false,
    ...(forStandalone ? { code: { source: true, esm: false, lines: true, optimize: 1 } } : {}),
  };
}

function newAjv(release: Release, forStandalone: boolean, overrides: Options = {}): AjvInstance {
  const base = ajvOptions(forStandalone, declaresPrototypeNames(release));
  // `code` merged one level deep: an override of one code option keeps the others.
  const ajv = new Ajv({ ...base, ...overrides, ...(overrides.code !== undefined ? { code: { ...base.code, ...overrides.code } } : {}) });
  addFormats(ajv, { mode: 'full' });
  ajv.addKeyword({ keyword: annotationKeywords(release) });
  return ajv;
}

/**
 * Whether any schema of the release names a property that plain objects inherit (`constructor`, `toString`, …).
 * Ajv reads properties as `data.name`, which for such a name finds the inherited member; `ownProperties: true`
 * guards every read with hasOwnProperty at a cost of ~9% more code and slower validation. AdCP declares no such
 * name, so the option is only switched on for a release that does.
 */
export function declaresPrototypeNames(release: Release): boolean {
  return Object.getOwnPropertyNames(Object.prototype).some((name) => release.graph.propertyNames.has(name));
}

/**
 * Run-time Ajv over the release's modular schemas, exactly as an agent without adcp-codegen would do it: every
 * file added to one registry, each tool schema compiled on first `getSchema`. The baseline of the differential
 * tests and of the cold-start bench.
 */
export function createRuntimeAjv(release: Release, overrides: Options = {}): AjvInstance {
  const ajv = newAjv(release, false, overrides);
  for (const file of release.schemas.byId.values()) ajv.addSchema(readableByAjv(file.schema));
  return ajv;
}

/**
 * Ajv standalone as its users would set it up: the same options and registry, documentation left in. The bench's
 * "obvious designs" (one module for every tool, one module per tool) are built from it. `documents` (default: every
 * document of the release) narrows the registry to what will be compiled (the schema graph's reach).
 */
export function createStandaloneAjv(release: Release, documents: Iterable<SchemaFile> = release.schemas.byId.values(), overrides: Options = {}): AjvInstance {
  const ajv = newAjv(release, true, overrides);
  for (const file of documents) ajv.addSchema(readableByAjv(file.schema));
  return ajv;
}

/**
 * Build-time Ajv: the same registry, but fed copies of the schemas without their documentation (descriptions,
 * titles, examples, x-* annotations), because Ajv's standalone code embeds schema objects wherever a keyword needs
 * one at run time. Verdicts do not change: only keywords without validation semantics are removed. `locations`
 * names every object schema node of the copies by its document and pointer, recorded while copying: the splitter
 * (compile/validators/split.ts) finds each compiled function's place in the release through it. `documents`
 * (default: every document of the release) narrows the registry to what the compiled tools reach (the release's
 * schema graph knows it): nothing else is ever compiled, so nothing else is copied.
 *
 * `split`: inline schemas that must be validators of their own (a batch request's items, checked one by one:
 * compile/items/). Each is moved, in the copy, under `definitions` and referred to from where it was, so it compiles
 * to one function the enclosing schema calls instead of code inlined there and again on its own; its errors and
 * verdicts are the same (a `$ref` adds no error of its own), and `locations` still names it by its place in the
 * release. `uriOf` is the URI that compiles a location: the moved schema's, or the location itself.
 */
export function createCompileAjv(
  release: Release,
  documents: Iterable<SchemaFile> = release.schemas.byId.values(),
  split: readonly SchemaLocation[] = [],
): { ajv: AjvInstance; locations: Map<unknown, SchemaLocation>; uriOf: (location: SchemaLocation) => string } {
  const ajv = newAjv(release, true);
  addHoistedKeyword(ajv);
  foldControlFlow(ajv, [HOISTED_KEYWORD]);
  const locations = new Map<unknown, SchemaLocation>();
  const moved = new Map<string, string>();
  const copies: Copied[] = [];
  for (const file of documents) {
    const copy = withoutDocumentation(file.schema, (node, pointer) => locations.set(node, { file, pointer })) as JsonSchemaObject;
    // Deepest first, so a split inside another split is moved before its enclosing schema is.
    const mine = [...new Set(split.filter((l) => l.file === file && l.pointer !== '').map((l) => l.pointer))].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    mine.forEach((pointer, i) => {
      const tokens = parsePointer(pointer);
      const parent = getAtPointer(copy, tokens.slice(0, -1).map((t) => `/${escapeToken(t)}`).join(''));
      const last = tokens[tokens.length - 1]!;
      if (!isPlainObject(parent) || !isPlainObject(parent[last])) return;
      const key = `adcp-codegen-split-${i}`;
      const definitions = isPlainObject(copy.definitions) ? copy.definitions : {};
      defineOwn(definitions, key, parent[last]);
      defineOwn(copy, 'definitions', definitions);
      defineOwn(parent, last, { $ref: `#/definitions/${key}` });
      moved.set(`${file.id}#${pointer}`, `${file.id}#/definitions/${key}`);
    });
    copies.push({ file, copy });
  }
  // Repeated subschemas compiled once (hoist.ts): never at or around a split location, nor where a `$ref` of the
  // release lands at or inside them (the reference would find the place's stand-in, or nothing).
  const landings = new Map<SchemaFile, string[]>();
  for (const file of release.schemas.byPath.values()) {
    for (const r of release.graph.references(file)) {
      const t = r.target;
      if (t === undefined || t.pointer === '') continue;
      let list = landings.get(t.file);
      if (list === undefined) landings.set(t.file, (list = []));
      list.push(t.pointer);
    }
  }
  const around = (node: object): boolean => {
    const l = locations.get(node);
    if (l === undefined) return true;
    if (split.some((s) => s.file === l.file && (s.pointer.startsWith(l.pointer) || l.pointer.startsWith(s.pointer)))) return true;
    return (landings.get(l.file) ?? []).some((t) => t === l.pointer || t.startsWith(`${l.pointer}/`));
  };
  const first = copies[0]?.file.id ?? '';
  const hoisted = hoistRepeats(copies, (node) => locations.get(node), /^(.*\/schemas\/[^/]+\/)/.exec(first)?.[1] ?? '', around);
  for (const h of hoisted) {
    walkSchema(h.schema, (node, pointer) => {
      if (isPlainObject(node)) locations.set(node, { file: h.file, pointer });
    });
    readableProtoKeys(h.schema);
    defineOwn(h.schema, '$id', h.uri);
    ajv.addSchema(h.schema);
  }
  for (const { copy } of copies) {
    // What Ajv would skip (a declared `__proto__`), said in keywords it reads: the emitted validators check it.
    readableProtoKeys(copy);
    ajv.addSchema(copy);
  }
  const uriOf = (l: SchemaLocation): string => moved.get(`${l.file.id}#${l.pointer}`) ?? (l.pointer === '' ? l.file.id : `${l.file.id}#${fragmentFromPointer(l.pointer)}`);
  return { ajv, locations, uriOf };
}

/** Where a schema node lives in the release. */
export interface SchemaLocation {
  readonly file: SchemaFile;
  readonly pointer: string;
}

/** Keywords removed from build-time copies: pure annotations (draft-07 meta-data and AdCP's own). */
const DOCUMENTATION_KEYWORDS = new Set(['title', 'description', 'examples', '$comment', 'default', 'deprecated', 'readOnly', 'writeOnly', ...ADCP_ANNOTATION_KEYWORDS]);

/**
 * A copy of a schema without documentation keywords at schema positions (never inside `properties` names,
 * `enum`/`const` values or other data). `discriminator` is kept out as well: it is an annotation.
 */
export function withoutDocumentation(schema: unknown, copied?: (copy: Record<string, unknown>, pointer: string) => void): unknown {
  return copySchemaWithout(schema, (key) => DOCUMENTATION_KEYWORDS.has(key) || key.startsWith('x-'), copied);
}

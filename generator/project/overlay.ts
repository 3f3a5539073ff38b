import type { JsonSchemaObject, JsonValue, Overlay, OverlayEntry, Release, SchemaFile } from '../load/index.js';
import { CodegenError, getAtPointer, joinPointer, parsePointer, SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS, isPlainObject } from '../shared/index.js';
import { ACCEPTED_RECORD, APPLIES_WHEN } from './project.js';

/**
 * Overlays: no published AdCP release carries `x-adcp-applies-when` yet, so an overlay file (format:
 * schemas/overlay.schema.json, documented in docs/projection.md) attaches the annotations — and
 * `x-adcp-accepted-record` markers — to a release's schemas before projection. Targets are named by release-relative
 * path (the same in every release) or `$id` (one release), plus a JSON pointer into that modular file; the annotations
 * are then applied to the advertised (MCP-shaped) documents, where each file lives under `$defs["external:<path>"]`.
 */

/** One schema step of a pointer: a keyword, and for maps/arrays the key or index under it. */
export interface PointerStep {
  readonly keyword: string;
  readonly key?: string;
}

/** An overlay entry checked against one release. */
export interface ResolvedOverlay {
  readonly file: string;
  /** Pointer of the entry inside the overlay file (`/annotations/3`). */
  readonly entryPointer: string;
  /** Release-relative path of the target schema file. */
  readonly path: string;
  /** Pointer inside the modular target file. */
  readonly pointer: string;
  /** The pointer as schema steps, so it can be re-walked in a converted (2020-12) document. */
  readonly steps: readonly PointerStep[];
  readonly appliesWhen?: JsonValue;
  readonly acceptedRecord?: true;
}

/**
 * Whether an entry's `releases` filter admits this release: named by its key (`3.2-beta.5`), its full version
 * (`3.2.0-beta.5`) or its release line (`3.2`, which admits 3.2's pre-releases too: an annotation of the line's
 * schemas holds for its betas).
 */
export function entryAppliesTo(entry: OverlayEntry, release: Pick<Release, 'key' | 'version' | 'major' | 'minor'>): boolean {
  return entry.releases === undefined || entry.releases.some((r) => r === release.key || r === release.version || r === `${release.major}.${release.minor}`);
}

/**
 * Checks every entry against the release's modular schemas. An entry filtered out by `releases` is skipped; any
 * other entry whose file or pointer does not exist — or whose pointer does not name what the annotation needs (a
 * `properties` entry for applies-when, a schema for accepted-record) — is a CodegenError at the entry.
 */
export function resolveOverlays(release: Release, overlays: readonly Overlay[]): ResolvedOverlay[] {
  const out: ResolvedOverlay[] = [];
  const seen = new Map<string, string>();
  for (const overlay of overlays) {
    overlay.entries.forEach((entry, i) => {
      if (!entryAppliesTo(entry, release)) return;
      const at = joinPointer('/annotations', i);
      const file = targetFile(release, entry);
      if (file === undefined) {
        const hint = isId(entry.schema) ? ' (an $id names one release: use the release-relative path, or limit the entry with "releases")' : ' (limit the entry with "releases" if it targets a newer release)';
        throw new CodegenError(overlay.file, `${at}/schema`, `${entry.schema} is not a schema of AdCP ${release.version}${hint}`);
      }
      const fail = (message: string): never => {
        throw new CodegenError(overlay.file, `${at}/pointer`, `${file.path}#${entry.pointer}: ${message}`);
      };
      const steps = schemaSteps(file.schema, entry.pointer, fail);
      const target = getAtPointer(file.schema, entry.pointer);
      if (target === undefined) fail('does not exist');
      if (target !== true && !isPlainObject(target)) fail('is not a schema object');
      const last = steps[steps.length - 1];
      if (entry.appliesWhen !== undefined && (last === undefined || last.keyword !== 'properties')) {
        fail('x-adcp-applies-when must target a property (a pointer ending in /properties/<name>)');
      }
      const where = `${file.path}#${entry.pointer}`;
      for (const kind of [entry.appliesWhen !== undefined ? APPLIES_WHEN : '', entry.acceptedRecord ? ACCEPTED_RECORD : ''].filter(Boolean)) {
        const previous = seen.get(`${kind} ${where}`);
        if (previous !== undefined) fail(`${kind} is already attached here by ${previous}`);
        seen.set(`${kind} ${where}`, `${overlay.file}#${at}`);
      }
      out.push({
        file: overlay.file,
        entryPointer: at,
        path: file.path,
        pointer: entry.pointer,
        steps,
        appliesWhen: entry.appliesWhen,
        acceptedRecord: entry.acceptedRecord,
      });
    });
  }
  return out;
}

function isId(schema: string): boolean {
  return schema.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(schema);
}

function targetFile(release: Release, entry: OverlayEntry): SchemaFile | undefined {
  return isId(entry.schema) ? release.schemas.byId.get(entry.schema) : release.schemas.byPath.get(entry.schema);
}

const MAP_KEYWORDS: ReadonlySet<string> = new Set([...SCHEMA_MAP_KEYWORDS, 'dependencies']);
const ARRAY_KEYWORDS: ReadonlySet<string> = new Set(SCHEMA_ARRAY_KEYWORDS);
const SINGLE_KEYWORDS: ReadonlySet<string> = new Set(SINGLE_SCHEMA_KEYWORDS);

/** Splits a pointer into schema steps, failing when it passes through data (`enum`, `examples`, `x-*`, …). */
function schemaSteps(schema: unknown, pointer: string, fail: (message: string) => never): PointerStep[] {
  const tokens = parsePointer(pointer);
  const steps: PointerStep[] = [];
  let node: unknown = schema;
  let i = 0;
  while (i < tokens.length) {
    if (!isPlainObject(node)) fail(`${joinPointer('', ...tokens.slice(0, i))} is not a schema object`);
    const s = node as Record<string, unknown>;
    const keyword = tokens[i]!;
    const paired = MAP_KEYWORDS.has(keyword) || ARRAY_KEYWORDS.has(keyword) || (keyword === 'items' && Array.isArray(s.items));
    if (!paired && !SINGLE_KEYWORDS.has(keyword) && keyword !== 'items') {
      fail(`${joinPointer('', ...tokens.slice(0, i + 1))} is not a subschema (${JSON.stringify(keyword)} holds no schema)`);
    }
    if (paired) {
      const key = tokens[i + 1];
      if (key === undefined) fail(`${joinPointer('', ...tokens)} names the whole ${keyword} keyword, not a schema under it`);
      steps.push({ keyword, key });
      i += 2;
    } else {
      steps.push({ keyword });
      i += 1;
    }
    node = getAtPointer(schema, joinPointer('', ...tokens.slice(0, i)));
    if (node === undefined) fail(`${joinPointer('', ...tokens.slice(0, i))} does not exist`);
    if (keyword === 'dependencies' && Array.isArray(node)) fail(`${joinPointer('', ...tokens.slice(0, i))} is a list of names, not a schema`);
  }
  return steps;
}

/**
 * Applies the overlays to one ADVERTISED document: the tool's request/response schema at the root (its release path
 * is `rootPath`) and every other file under `$defs["external:<path>"]`, with draft-07 keywords possibly converted to
 * 2020-12 (`definitions` → `$defs`, so the root's own definitions sit at `$defs/<Name>`; `dependencies` →
 * `dependentSchemas`; array `items` → `prefixItems`). Pure: unchanged subtrees are shared and the input is returned
 * when no overlay targets it. A target file that is in the document but whose pointer is not is an error.
 */
export function annotateAdvertised(doc: JsonSchemaObject, rootPath: string, overlays: readonly ResolvedOverlay[]): JsonSchemaObject {
  let out: JsonSchemaObject = doc;
  const owned = new Set<object>();
  const defs = isPlainObject(doc.$defs) ? doc.$defs : undefined;
  for (const overlay of overlays) {
    const bases: string[][] = [];
    if (overlay.path === rootPath) bases.push([]);
    const key = `external:${overlay.path}`;
    if (defs !== undefined && Object.prototype.hasOwnProperty.call(defs, key)) bases.push(['$defs', key]);
    for (const base of bases) {
      const tokens = advertisedTokens(getAtPointer(out, joinPointer('', ...base)), overlay.steps);
      if (tokens === undefined) {
        throw new CodegenError(
          overlay.file,
          `${overlay.entryPointer}/pointer`,
          `${overlay.path}#${overlay.pointer} has no counterpart in the advertised schema of ${rootPath} (under ${joinPointer('', ...base) || 'the root'})`,
        );
      }
      out = setIn(out, [...base, ...tokens], (node) => annotate(node, overlay), owned) as JsonSchemaObject;
    }
  }
  return out;
}

function annotate(node: unknown, overlay: ResolvedOverlay): unknown {
  const base = node === true ? {} : (node as Record<string, unknown>);
  const copy: Record<string, unknown> = { ...base };
  if (overlay.appliesWhen !== undefined) copy[APPLIES_WHEN] = overlay.appliesWhen;
  if (overlay.acceptedRecord) copy[ACCEPTED_RECORD] = true;
  return copy;
}

/** Re-walks modular pointer steps in a converted document, preferring the keyword as written when it exists. */
function advertisedTokens(base: unknown, steps: readonly PointerStep[]): string[] | undefined {
  const tokens: string[] = [];
  let node = base;
  const has = (o: Record<string, unknown>, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
  for (const step of steps) {
    if (!isPlainObject(node)) return undefined;
    let keyword = step.keyword;
    if (keyword === 'definitions' && !has(node, 'definitions')) keyword = '$defs';
    else if (keyword === 'dependencies' && !has(node, 'dependencies')) keyword = 'dependentSchemas';
    else if (keyword === 'items' && step.key !== undefined && !Array.isArray(node.items)) keyword = 'prefixItems';
    else if (keyword === 'additionalItems' && !has(node, 'additionalItems')) keyword = 'items';
    if (!has(node, keyword)) return undefined;
    let next: unknown = node[keyword];
    tokens.push(keyword);
    if (step.key !== undefined) {
      if (next === null || typeof next !== 'object' || !has(next as Record<string, unknown>, step.key)) return undefined;
      next = (next as Record<string, unknown>)[step.key];
      tokens.push(step.key);
    }
    node = next;
  }
  return node === true || isPlainObject(node) ? tokens : undefined;
}

/** Copy-on-write update at `tokens`; nodes created by this call (`owned`) are updated in place. */
function setIn(node: unknown, tokens: readonly string[], update: (node: unknown) => unknown, owned: Set<object>): unknown {
  if (tokens.length === 0) {
    const next = update(node);
    if (next !== null && typeof next === 'object') owned.add(next);
    return next;
  }
  const [head, ...rest] = tokens as [string, ...string[]];
  if (Array.isArray(node)) {
    const i = Number(head);
    const child = setIn(node[i], rest, update, owned);
    const copy = owned.has(node) ? node : node.slice();
    copy[i] = child;
    owned.add(copy);
    return copy;
  }
  const obj = node as Record<string, unknown>;
  const child = setIn(obj[head], rest, update, owned);
  const copy = owned.has(obj) ? obj : { ...obj };
  Object.defineProperty(copy, head, { value: child, enumerable: true, writable: true, configurable: true });
  owned.add(copy);
  return copy;
}

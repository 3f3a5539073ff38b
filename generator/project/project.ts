import { ACCEPTED_RECORD, APPLIES_WHEN, type JsonObject, type JsonSchema } from '../load/index.js';
import { SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS, isPlainObject } from '../shared/index.js';

/**
 * Capability projection (DESIGN.md, "x-adcp-applies-when"): the advertised tools/list schemas of one profile lose
 * the optional properties whose `x-adcp-applies-when` annotation does not apply to the agent's capabilities.
 *
 * Build time only. Call-time validation never sees a projected schema: receivers read the canonical one, so a
 * projection can only narrow what an agent *advertises*. Every doubtful case therefore keeps the property.
 */

export { ACCEPTED_RECORD, APPLIES_WHEN };

/** The annotation keys DESIGN.md defines. Anything else is an unknown key, which keeps the property. */
export const APPLIES_WHEN_KEYS = ['delivery_types', 'pricing_models', 'capabilities'] as const;
export type AppliesWhenKey = (typeof APPLIES_WHEN_KEYS)[number];

/** A well-formed annotation. */
export interface AppliesWhen {
  delivery_types?: string[];
  pricing_models?: string[];
  capabilities?: string[];
}

export interface ProjectionOptions {
  /**
   * Accepted records (the config's `acceptedRecords`): schemas of records the buyer has already accepted — committed
   * proposals, media-buy snapshots — are advertised whole. Each entry is a tool name (the whole input and output
   * schema of that tool), a schema `$id`, or a release-relative schema path (`core/media-buy.json`); the path form
   * also matches the `$defs["external:<path>"]` entry of an MCP bundle and works across releases.
   */
  readonly acceptedRecords?: readonly string[];
  /** The tool whose schema is projected, so tool names in `acceptedRecords` apply. */
  readonly tool?: string;
  /** Release-relative path of the root document (the tool's canonical request/response schema). */
  readonly rootPath?: string;
}

/** An annotation parsed for matching and for lint: the well-formed clauses plus what is wrong with the rest. */
export interface ParsedAppliesWhen {
  /** Present when the annotation is well formed and names only known keys. */
  readonly clauses?: AppliesWhen;
  readonly unknownKeys: readonly string[];
  /** Human-readable reasons the annotation is malformed (empty when it is not). */
  readonly problems: readonly string[];
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** A dotted capability path: non-empty segments separated by single dots. */
const CAPABILITY_PATH = /^[^.]+(\.[^.]+)*$/;

export function parseAppliesWhen(annotation: unknown): ParsedAppliesWhen {
  if (!isPlainObject(annotation)) return { unknownKeys: [], problems: ['must be an object'] };
  const problems: string[] = [];
  const unknownKeys: string[] = [];
  const clauses: AppliesWhen = {};
  const keys = Object.keys(annotation);
  if (keys.length === 0) problems.push('names no condition (an empty annotation would drop the property for every agent)');
  for (const key of keys) {
    if (!(APPLIES_WHEN_KEYS as readonly string[]).includes(key)) {
      unknownKeys.push(key);
      continue;
    }
    const value = annotation[key];
    if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string' || v === '')) {
      problems.push(`${key} must be a non-empty array of non-empty strings`);
      continue;
    }
    const list = value as string[];
    if (key === 'capabilities') {
      const bad = list.filter((p) => !CAPABILITY_PATH.test(p));
      if (bad.length > 0) problems.push(`capabilities ${bad.map((p) => JSON.stringify(p)).join(', ')} must be dotted paths`);
    }
    clauses[key as AppliesWhenKey] = list;
  }
  return { clauses: problems.length === 0 && unknownKeys.length === 0 ? clauses : undefined, unknownKeys, problems };
}

/**
 * The `media_buy` capability lists an annotation's `delivery_types` and `pricing_models` clauses read. A profile
 * states them for the projection even where a release does not define them (`supported_delivery_types` is the
 * x-adcp-applies-when RFC's own), so they are not reported as undefined capability keys.
 */
export const APPLIES_WHEN_LISTS = { delivery_types: 'supported_delivery_types', pricing_models: 'supported_pricing_models' } as const;

/**
 * Does the annotation apply to an agent publishing `capabilities` (its get_adcp_capabilities body)?
 * OR across every value of every key; unknown keys and malformed annotations apply (they keep the property).
 */
export function appliesWhenSatisfied(annotation: unknown, capabilities: JsonObject): boolean {
  const { clauses } = parseAppliesWhen(annotation);
  if (clauses === undefined || !isPlainObject(capabilities)) return true;
  if (clauses.delivery_types && listMatches(capabilities, APPLIES_WHEN_LISTS.delivery_types, clauses.delivery_types)) return true;
  if (clauses.pricing_models && listMatches(capabilities, APPLIES_WHEN_LISTS.pricing_models, clauses.pricing_models)) return true;
  if (clauses.capabilities && clauses.capabilities.some((path) => capabilityPresent(capabilities, path))) return true;
  return false;
}

/** `media_buy.<field>`: matches when the agent publishes no media_buy block, declares no list, an empty one, or a shared value. */
function listMatches(capabilities: JsonObject, field: string, wanted: readonly string[]): boolean {
  const block = ownValue(capabilities, 'media_buy');
  if (block === undefined || block === null) return true;
  if (!isPlainObject(block)) return true; // not ours to judge: a malformed block keeps the property
  const declared = ownValue(block, field);
  if (!Array.isArray(declared) || declared.length === 0) return true;
  return wanted.some((w) => declared.includes(w));
}

/** A dotted path matches when present, not null and not false; an unpublished root block matches. */
function capabilityPresent(capabilities: JsonObject, path: string): boolean {
  const segments = path.split('.');
  const root = ownValue(capabilities, segments[0]!);
  if (root === undefined || root === null) return true;
  let node: unknown = root;
  for (const segment of segments.slice(1)) {
    if (!isPlainObject(node)) return false;
    node = ownValue(node, segment);
  }
  return node !== undefined && node !== null && node !== false;
}

function ownValue(o: Record<string, unknown>, key: string): unknown {
  return hasOwn(o, key) ? o[key] : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Guards

/** Keywords whose subschemas describe the same instance as their parent (the "in-place applicators"). */
const IN_PLACE_SINGLE = ['not', 'if', 'then', 'else'] as const;
const IN_PLACE_ARRAYS = ['allOf', 'anyOf', 'oneOf'] as const;

const enum Kind {
  Child,
  InPlace,
  InPlaceArray,
  ChildArray,
  Items,
  Properties,
  ChildMap,
  InPlaceMap,
  Defs,
}

/**
 * Every keyword that holds subschemas (shared/schema-walk.ts's lists), by how it relates to the instance: in-place
 * applicators describe the same object as their parent (so they inherit its required names and closedness), child
 * keywords describe a nested value, and `$defs`/`definitions` are fresh roots.
 */
const KEYWORD_KINDS: ReadonlyMap<string, Kind> = (() => {
  const kinds = new Map<string, Kind>();
  for (const k of SINGLE_SCHEMA_KEYWORDS) kinds.set(k, (IN_PLACE_SINGLE as readonly string[]).includes(k) ? Kind.InPlace : Kind.Child);
  for (const k of SCHEMA_ARRAY_KEYWORDS) kinds.set(k, (IN_PLACE_ARRAYS as readonly string[]).includes(k) ? Kind.InPlaceArray : Kind.ChildArray);
  for (const k of SCHEMA_MAP_KEYWORDS) {
    kinds.set(k, k === 'properties' ? Kind.Properties : k === 'dependentSchemas' ? Kind.InPlaceMap : k === '$defs' || k === 'definitions' ? Kind.Defs : Kind.ChildMap);
  }
  kinds.set('items', Kind.Items);
  kinds.set('dependencies', Kind.InPlaceMap);
  return kinds;
})();

/** Memo of `requiredAnywhere` for one projection or lint run (never module-wide: inputs are not ours to trust frozen). */
export type RequiredCache = WeakMap<object, ReadonlySet<string>>;

/**
 * Names required anywhere in `node` for the instance it describes: `required`; the arms of allOf/anyOf/oneOf and
 * if/then/else, recursively (names only in `if` included); draft-07 `dependencies` in both forms, `dependentRequired`
 * and `dependentSchemas` (trigger names and dependent names alike). `$ref`s are not followed and `not` contributes
 * nothing (a name under `not` is forbidden, not required).
 */
export function requiredAnywhere(node: unknown, cache: RequiredCache = new WeakMap()): ReadonlySet<string> {
  if (!isPlainObject(node)) return EMPTY;
  const cached = cache.get(node);
  if (cached !== undefined) return cached;
  const names = new Set<string>();
  cache.set(node, names); // a cycle (impossible in JSON, possible in hand-built objects) ends here
  addStrings(names, node.required);
  for (const keyword of IN_PLACE_ARRAYS) {
    const arms = node[keyword];
    if (hasOwn(node, keyword) && Array.isArray(arms)) for (const arm of arms) addAll(names, requiredAnywhere(arm, cache));
  }
  for (const keyword of ['if', 'then', 'else'] as const) {
    if (hasOwn(node, keyword)) addAll(names, requiredAnywhere(node[keyword], cache));
  }
  for (const keyword of ['dependencies', 'dependentRequired', 'dependentSchemas'] as const) {
    const map = node[keyword];
    if (!hasOwn(node, keyword) || !isPlainObject(map)) continue;
    for (const trigger of Object.keys(map)) {
      names.add(trigger);
      const dep = map[trigger];
      if (Array.isArray(dep)) addStrings(names, dep);
      else addAll(names, requiredAnywhere(dep, cache));
    }
  }
  return names;
}

const EMPTY: ReadonlySet<string> = new Set();

function addStrings(into: Set<string>, list: unknown): void {
  if (Array.isArray(list)) for (const v of list) if (typeof v === 'string') into.add(v);
}

function addAll(into: Set<string>, from: ReadonlySet<string>): void {
  for (const v of from) into.add(v);
}

/** additionalProperties: false or unevaluatedProperties: false. */
export function isClosed(node: Record<string, unknown>): boolean {
  return (hasOwn(node, 'additionalProperties') && node.additionalProperties === false) ||
    (hasOwn(node, 'unevaluatedProperties') && node.unevaluatedProperties === false);
}

/**
 * What a node inherits from the schema nodes describing the same instance around it: a property defined in an
 * allOf arm is still "required anywhere in the parent" when the enclosing node requires it, and still inside a
 * closed object when the enclosing node is closed. Child instance locations (properties, items, …) and `$defs`
 * start afresh.
 */
export interface InPlaceContext {
  readonly node: Record<string, unknown>;
  readonly closed: boolean;
  readonly outer?: InPlaceContext;
}

export function isProtected(name: string, context: InPlaceContext | undefined, cache: RequiredCache = new WeakMap()): boolean {
  for (let c = context; c !== undefined; c = c.outer) if (requiredAnywhere(c.node, cache).has(name)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Projection

/** Release-relative path of a schema `$id` (rooted `/schemas/3.0.6/…` or absolute `https://…/schemas/3.2.0/…`). */
export function releasePathOfId(id: string): string | undefined {
  const m = /^(?:[a-z][a-z0-9+.-]*:\/\/[^/]*)?\/schemas\/[^/]+\/(.+?)(?:#.*)?$/i.exec(id);
  if (!m) return undefined;
  return m[1]!.replace(/^mcp\/[^/]+\//, '');
}

/** The release-relative path an MCP bundle's `$defs` key stands for (`external:core/product.json`). */
export function pathOfDefsKey(key: string): string | undefined {
  return key.startsWith('external:') ? key.slice('external:'.length) : undefined;
}

/**
 * Project `schema` for an agent publishing `capabilities`. Pure: the input is never mutated, unchanged subtrees are
 * shared by reference, and the input itself is returned when nothing drops.
 */
export function projectSchemaForCapabilities(schema: JsonSchema, capabilities: JsonObject, options: ProjectionOptions = {}): JsonSchema {
  const accepted = new Set(options.acceptedRecords ?? []);
  if (accepted.size > 0) {
    if (options.tool !== undefined && accepted.has(options.tool)) return schema;
    if (options.rootPath !== undefined && accepted.has(options.rootPath)) return schema;
  }
  const projector = new Projector(capabilities, accepted);
  return projector.node(schema, undefined) as JsonSchema;
}

class Projector {
  private readonly required: RequiredCache = new WeakMap();

  constructor(
    private readonly capabilities: JsonObject,
    private readonly accepted: ReadonlySet<string>,
  ) {}

  private isAcceptedRecord(node: Record<string, unknown>): boolean {
    if (hasOwn(node, ACCEPTED_RECORD) && node[ACCEPTED_RECORD] === true) return true;
    if (this.accepted.size === 0 || !hasOwn(node, '$id') || typeof node.$id !== 'string') return false;
    if (this.accepted.has(node.$id)) return true;
    const path = releasePathOfId(node.$id);
    return path !== undefined && this.accepted.has(path);
  }

  /** `context` is the in-place context of `node` (undefined at a fresh instance location). */
  node(node: unknown, context: InPlaceContext | undefined): unknown {
    if (!isPlainObject(node) || this.isAcceptedRecord(node)) return node;
    let here: InPlaceContext | undefined; // built on first use: most nodes have no in-place subschema
    let copy: Record<string, unknown> | undefined;
    // Dispatch on the keys the node has (a handful) rather than probing every keyword (two dozen).
    const keys = Object.keys(node);
    for (let i = 0; i < keys.length; i++) {
      const keyword = keys[i]!;
      const kind = KEYWORD_KINDS.get(keyword);
      if (kind === undefined) continue; // data: const, default, enum, examples, x-*, descriptions …
      const value = node[keyword];
      let next: unknown = value;
      if (kind === Kind.Child) {
        next = this.node(value, undefined);
      } else if (kind === Kind.Items) {
        next = Array.isArray(value) ? this.array(value, undefined) : this.node(value, undefined);
      } else if (kind === Kind.ChildArray) {
        if (Array.isArray(value)) next = this.array(value, undefined);
      } else if (kind === Kind.ChildMap) {
        if (isPlainObject(value)) next = this.map(value, undefined, false);
      } else if (kind === Kind.Defs) {
        if (isPlainObject(value)) next = this.map(value, undefined, true);
      } else {
        here ??= { node, closed: (context !== undefined && context.closed) || isClosed(node), outer: context };
        if (kind === Kind.InPlace) next = this.node(value, here);
        else if (kind === Kind.InPlaceArray) next = Array.isArray(value) ? this.array(value, here) : value;
        else if (kind === Kind.Properties) next = isPlainObject(value) ? this.properties(value, here) : value;
        // dependentSchemas, and draft-07 dependencies whose array form is data (names), skipped in map()
        else next = isPlainObject(value) ? this.map(value, here, false) : value;
      }
      if (next !== value) {
        copy ??= { ...node };
        copy[keyword] = next;
      }
    }
    return copy ?? node;
  }

  private array(arr: readonly unknown[], context: InPlaceContext | undefined): readonly unknown[] {
    let out: unknown[] | undefined;
    for (let i = 0; i < arr.length; i++) {
      const item = arr[i];
      const next = this.node(item, context);
      if (next !== item) {
        out ??= arr.slice();
        out[i] = next;
      }
    }
    return out ?? arr;
  }

  private map(map: Record<string, unknown>, context: InPlaceContext | undefined, defs: boolean): Record<string, unknown> {
    let entries: [string, unknown][] | undefined;
    const keys = Object.keys(map);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const value = map[key];
      const acceptedDef = defs && this.accepted.size > 0 && this.accepted.has(pathOfDefsKey(key) ?? '\0');
      const next = acceptedDef || Array.isArray(value) ? value : this.node(value, context);
      if (next !== value) {
        entries ??= keys.map((k) => [k, map[k]]);
        entries[i]![1] = next;
      }
    }
    return entries === undefined ? map : fromEntries(entries);
  }

  /** The one place anything is removed: an annotated entry of `properties` that is neither protected nor closed in. */
  private properties(map: Record<string, unknown>, parent: InPlaceContext): Record<string, unknown> {
    let entries: [string, unknown][] | undefined; // created at the first change, with the entries before it
    const keys = Object.keys(map);
    for (let i = 0; i < keys.length; i++) {
      const name = keys[i]!;
      const value = map[name];
      const dropped = this.drops(name, value, parent);
      const next = dropped ? undefined : this.node(value, undefined);
      if (entries === undefined && (dropped || next !== value)) entries = keys.slice(0, i).map((k) => [k, map[k]]);
      if (entries !== undefined && !dropped) entries.push([name, next]);
    }
    return entries === undefined ? map : fromEntries(entries);
  }

  private drops(name: string, property: unknown, parent: InPlaceContext): boolean {
    if (parent.closed || !isPlainObject(property) || !hasOwn(property, APPLIES_WHEN)) return false;
    if (appliesWhenSatisfied(property[APPLIES_WHEN], this.capabilities)) return false;
    return !isProtected(name, parent, this.required);
  }
}

/** Builds an object from entries without ever invoking a setter (property names may be `__proto__`). */
export function fromEntries(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

import { getAtPointer, isPlainObject } from '../../shared/index.js';
import type { Release, SchemaFile, ToolDef } from '../../load/index.js';

/**
 * Per-item outcomes of batch tools (issue 19 point 2), read from the release's own schemas. A tool answers items one
 * by one when its response's success arm has an array of rows that can fail — each row declares `errors` (AdCP's
 * `core/error.json`) and a required outcome field whose schema admits a failure (`action: "failed"`, `status:
 * "rejected"`, `success: false`) — and its request has the array those rows answer: the property of the same name
 * (`sync_accounts` `accounts[]` → `accounts[]`), else the one request array whose items declare every identifying
 * field the row requires (`preview_creative` `requests[]` → `results[]`). An item that fails its own schema is then
 * answered as its failed row: the row's required outcome fields at their failure values, its required identifying
 * fields copied from the request item, and `errors[0]` saying what is wrong.
 *
 * Nothing here is a list of tools: a release that adds a batch tool gets it, one whose rows cannot be built from
 * the request (a required `request_index`, a row identity the request does not carry) simply has no pairing there.
 */
export interface ItemPairing {
  /** The request's array of items and the response's array of rows answering them. */
  readonly request: string;
  readonly response: string;
  /** The request items' schema and the rows' schema: their compiled validators check an item and a built row. */
  readonly item: Location;
  readonly row: Location;
  /** Required row fields copied from the request item, in the row schema's order. */
  readonly identity: readonly string[];
  /** Required row fields the request does not carry, and the failure value each takes. */
  readonly outcome: Readonly<Record<string, unknown>>;
  /** The request array's own bound: more items than this is a defect of the call, never answered item by item. */
  readonly maxItems?: number;
}

export interface ItemOutcomes {
  readonly tool: string;
  readonly pairings: readonly ItemPairing[];
  /**
   * A request field that chooses whether items are answered one by one (`validation_mode`: `strict`, the default,
   * fails the entire call on any validation error; `lenient` processes the valid items and reports the others).
   */
  readonly gate?: { readonly property: string; readonly value: string };
  /**
   * The success body when no item is valid (the handler is not called): the constants the success arm requires
   * besides the rows (`response_type: "batch"`). Undefined when the arm requires anything else: such a call is then
   * rejected as a whole.
   */
  readonly body?: Readonly<Record<string, unknown>>;
}

export interface Location {
  readonly file: SchemaFile;
  readonly pointer: string;
  /** The schema is written inline (not a `$ref`): its compiled validator is split out of the enclosing one. */
  readonly inline: boolean;
}

/** Values of an outcome enum that mean the item failed, most specific first (AdCP's per-item vocabularies). */
const FAILURE_VALUES = ['failed', 'rejected'] as const;
/** Required boolean outcome fields and their failure value (`preview_creative` results' `success`). */
const FAILURE_BOOLEANS: Readonly<Record<string, boolean>> = { success: false };
/** The request field that switches per-item processing, and the value that asks for it. */
const GATE = { property: 'validation_mode', value: 'lenient', otherwise: 'strict' } as const;
/**
 * Where a release's own words take schema failures out of per-item processing: the gate field's description says
 * request-schema failures are operation-level in either mode (3.2's sync_catalogs). Read from the release, so a
 * release that drops the sentence gets per-item outcomes there again.
 */
const OPERATION_LEVEL = /request-schema failures[^.]*operation-level/i;
/** Envelope fields a success arm may require that the runtime itself sets. */
const ENVELOPE = new Set(['status', 'adcp_version', 'context', 'context_id', 'task_id']);

export function itemOutcomes(release: Release, tool: ToolDef): ItemOutcomes | undefined {
  const request = release.schemas.byPath.get(tool.requestSchema);
  const response = release.schemas.byPath.get(tool.responseSchema);
  if (request === undefined || response === undefined) return undefined;
  const gate = gateOf(release, request);
  if (gate === 'operation-level') return undefined;
  const requestArrays = arraysOf(release, { file: request, pointer: '', node: request.schema });
  for (const arm of successArms(release, response)) {
    const pairings: ItemPairing[] = [];
    const rows = arraysOf(release, arm).filter((a) => declares(release, a.items, 'errors'));
    for (const rowArray of rows) {
      const row = rowShape(release, rowArray);
      if (row === undefined) continue;
      const sameName = requestArrays.find((a) => a.name === rowArray.name);
      // Without a same-named array: the one whose items declare every identifying field the row requires (one at least).
      const identifying = row.required.filter((f) => f !== 'errors' && row.outcomeOf(f) === undefined);
      const byIdentity = identifying.length === 0 ? [] : requestArrays.filter((a) => identifying.every((f) => declares(release, a.items, f)));
      const source = sameName ?? (byIdentity.length === 1 ? byIdentity[0] : undefined);
      if (source === undefined) continue;
      const identity: string[] = [];
      const outcome: Record<string, unknown> = {};
      let buildable = true;
      for (const f of row.required) {
        if (f === 'errors') continue;
        if (declares(release, source.items, f)) identity.push(f);
        else if (row.outcomeOf(f) !== undefined) outcome[f] = row.outcomeOf(f);
        else buildable = false;
      }
      if (!buildable || Object.keys(outcome).length === 0) continue;
      const max = isPlainObject(source.node) && typeof source.node.maxItems === 'number' ? source.node.maxItems : undefined;
      pairings.push({
        request: source.name,
        response: rowArray.name,
        item: source.items,
        row: rowArray.items,
        identity,
        outcome,
        ...(max !== undefined ? { maxItems: max } : {}),
      });
    }
    if (pairings.length === 0) continue;
    const body = bodyOf(release, arm, new Set(pairings.map((p) => p.response)));
    return { tool: tool.name, pairings, ...(gate !== undefined ? { gate } : {}), ...(body !== undefined ? { body } : {}) };
  }
  return undefined;
}

interface Node {
  readonly file: SchemaFile;
  readonly pointer: string;
  readonly node: unknown;
}

interface ArrayProperty {
  readonly name: string;
  /** The array schema (after `$ref`s). */
  readonly node: unknown;
  readonly items: Location;
}

/** A `$ref` chain followed to the schema it lands on. */
function deref(release: Release, at: Node): Node {
  let cur = at;
  for (let i = 0; i < 16 && isPlainObject(cur.node) && typeof cur.node.$ref === 'string'; i++) {
    const t = release.graph.target(cur.node);
    cur = { file: t.file, pointer: t.pointer, node: t.schema };
  }
  return cur;
}

function child(at: Node, ...tokens: string[]): Node {
  const pointer = tokens.reduce((p, t) => `${p}/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`, at.pointer);
  return { file: at.file, pointer, node: getAtPointer(at.file.schema, pointer) };
}

/** The arms of a response schema that can be its success body: each `oneOf`/`anyOf` arm, or the schema itself. */
function successArms(release: Release, file: SchemaFile): Node[] {
  const root: Node = { file, pointer: '', node: file.schema };
  const out: Node[] = [];
  for (const kw of ['oneOf', 'anyOf'] as const) {
    const arms = isPlainObject(file.schema) ? file.schema[kw] : undefined;
    if (Array.isArray(arms)) arms.forEach((_, i) => out.push(deref(release, child(root, kw, String(i)))));
  }
  return out.length > 0 ? out : [root];
}

/** The array-valued properties a schema declares directly (its `properties`), with their items' location. */
function arraysOf(release: Release, at: Node): ArrayProperty[] {
  const props = isPlainObject(at.node) && isPlainObject(at.node.properties) ? at.node.properties : {};
  const out: ArrayProperty[] = [];
  for (const name of Object.keys(props)) {
    const array = deref(release, child(at, 'properties', name));
    if (!isPlainObject(array.node) || array.node.type !== 'array' || !isPlainObject(array.node.items)) continue;
    const items = child(array, 'items');
    const target = deref(release, items);
    out.push({ name, node: array.node, items: { file: target.file, pointer: target.pointer, inline: target === items } });
  }
  return out;
}

/** Whether a schema declares a property: in its `properties`, or in those of an `allOf`/`anyOf`/`oneOf` member. */
function declares(release: Release, at: Location | Node, name: string, depth = 0): boolean {
  const n = deref(release, 'node' in at ? at : { file: at.file, pointer: at.pointer, node: getAtPointer(at.file.schema, at.pointer) });
  if (!isPlainObject(n.node) || depth > 6) return false;
  if (isPlainObject(n.node.properties) && Object.prototype.hasOwnProperty.call(n.node.properties, name)) return true;
  for (const kw of ['allOf', 'anyOf', 'oneOf'] as const) {
    const members = n.node[kw];
    if (Array.isArray(members) && members.some((_, i) => declares(release, child(n, kw, String(i)), name, depth + 1))) return true;
  }
  return false;
}

/** A row schema's required fields, and the failure value of each outcome field among them. */
function rowShape(release: Release, rows: ArrayProperty): { required: string[]; outcomeOf: (f: string) => unknown } | undefined {
  const row = deref(release, { file: rows.items.file, pointer: rows.items.pointer, node: getAtPointer(rows.items.file.schema, rows.items.pointer) });
  if (!isPlainObject(row.node) || !Array.isArray(row.node.required)) return undefined;
  const required = row.node.required.filter((r): r is string => typeof r === 'string');
  const outcomeOf = (f: string): unknown => {
    if (!isPlainObject(row.node) || !isPlainObject(row.node.properties) || !Object.prototype.hasOwnProperty.call(row.node.properties, f)) return undefined;
    const prop = deref(release, child(row, 'properties', f));
    if (!isPlainObject(prop.node)) return undefined;
    if (Array.isArray(prop.node.enum)) return FAILURE_VALUES.find((v) => (prop.node as { enum: unknown[] }).enum.includes(v));
    if (prop.node.type === 'boolean' && Object.prototype.hasOwnProperty.call(FAILURE_BOOLEANS, f)) return FAILURE_BOOLEANS[f];
    return undefined;
  };
  return { required, outcomeOf };
}

/** The request's per-item switch: `validation_mode` with its `lenient` value; 'operation-level' when the release rules it out. */
function gateOf(release: Release, request: SchemaFile): ItemOutcomes['gate'] | 'operation-level' | undefined {
  const props = isPlainObject(request.schema.properties) ? request.schema.properties : {};
  if (!Object.prototype.hasOwnProperty.call(props, GATE.property)) return undefined;
  const declared = props[GATE.property];
  if (isPlainObject(declared) && typeof declared.description === 'string' && OPERATION_LEVEL.test(declared.description)) return 'operation-level';
  const target = deref(release, { file: request, pointer: `/properties/${GATE.property}`, node: declared });
  const values = isPlainObject(target.node) && Array.isArray(target.node.enum) ? target.node.enum : [];
  return values.includes(GATE.value) && values.includes(GATE.otherwise) ? { property: GATE.property, value: GATE.value } : undefined;
}

/** The success body without rows: every field the arm requires must be a rows array, an envelope field or a const. */
function bodyOf(release: Release, arm: Node, rows: ReadonlySet<string>): Record<string, unknown> | undefined {
  if (!isPlainObject(arm.node)) return undefined;
  const required = Array.isArray(arm.node.required) ? arm.node.required.filter((r): r is string => typeof r === 'string') : [];
  const body: Record<string, unknown> = {};
  for (const name of required) {
    if (rows.has(name) || ENVELOPE.has(name)) continue;
    const props = isPlainObject(arm.node.properties) ? arm.node.properties : {};
    if (!Object.prototype.hasOwnProperty.call(props, name)) return undefined;
    const prop = deref(release, child(arm, 'properties', name));
    if (!isPlainObject(prop.node) || !('const' in prop.node)) return undefined;
    Object.defineProperty(body, name, { value: prop.node.const, enumerable: true, writable: true, configurable: true });
  }
  return body;
}

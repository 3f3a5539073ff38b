/**
 * Per-item outcomes of batch tools (issue 19 point 2): a request whose only defects are inside some of its items is
 * not rejected as a whole. Each such item is answered as its own failed row — the row's required outcome fields at
 * their failure values (`action: "failed"`, `status: "rejected"`), its required identifying fields copied from the
 * item, and `errors[0]` an INVALID_REQUEST whose `field` and issue pointers are relative to the item
 * (`notification_configs[0].event_types[0]`) — and the handler is called with the valid items only. Which arrays,
 * rows and fields comes from the release's schemas, compiled per tool (generator/compile/items/,
 * `releases/<key>/items/<tool>.cjs`). Copied into the generated output with the rest of the runtime.
 *
 * The contract with the handler, for each array answered item by item:
 * - it receives the valid items, in request order (`ctx.requestIndex[array][k]` is the request index of its k-th);
 * - its rows array answers them one row each, in the order received, first; any rows after those (a seller-managed
 *   entry, a deletion under `delete_missing`) follow them as it returned them;
 * - the runtime puts each failed row at its item's request position among the first ones, so the merged array is in
 *   request order; a handler that answers fewer rows than items received gets the failed rows placed by position
 *   as far as its rows go, and after them the rest;
 * - an answer without that rows array (an operation-level `errors` answer, an async task, an AdcpError) is sent as
 *   the handler gave it: the operation's outcome stands for every item.
 * With no valid item left the handler is not called: the runtime answers the failed rows itself, when the success
 * body needs nothing else (`body`), and otherwise rejects the call as a whole.
 */
import { MAX_REJECTION_ISSUES } from '../wire/bounds.js';
import type { Issue, ItemOutcomesModule, ItemPairing, RawValidateFn } from '../artifacts/contract.js';
import { invalidRequest } from '../wire/errors.js';
import { wrapRepairing, type RepairingResult } from '../issues/issues.js';
import { escapeToken } from '../wire/pointer.js';

/** Items looked at in one array, and failed items answered one by one, per call: more, and the call is rejected whole. */
const MAX_ITEMS = 1000;
const MAX_FAILED = 50;
/**
 * Keywords whose failure is the request's shape, not an item's business outcome: an array inside an item holding more
 * (or fewer) entries than its schema allows is refused as a whole call (INVALID_REQUEST), never answered as that
 * item's failed row. AdCP says so of `sync_governance`'s `governance_agents` (`maxItems: 1`, "load-bearing"):
 * "schema-shape violations are not per-account business failures" (governance_aware_seller/
 * governance_multi_agent_rejected); an item's wrong value (an unknown event type) stays its own failed row.
 */
const SHAPE_KEYWORDS: ReadonlySet<string> = new Set(['maxItems', 'minItems']);

export interface ItemChecks {
  /** The item's validator (with the issue collection and its repaired copy). */
  item(p: ItemPairing): (value: unknown) => RepairingResult;
  /** The row's validator: a built failed row must be valid in the release. */
  row(p: ItemPairing): (value: unknown) => boolean;
  /** The whole request's verdict. */
  whole(value: unknown): boolean;
  /** Unknown fields the development mode rejects (pointers into the request); [] in production. */
  readonly drift: readonly string[];
  /** `errors[0]` of a failed row, from its issues (pointers relative to the item; `found` of them in all). */
  error(issues: Issue[], found: number): Record<string, unknown>;
}

interface Answered {
  readonly pairing: ItemPairing;
  /** The request index of every item the handler receives. */
  readonly kept: number[];
  /** The failed rows, by request index. */
  readonly failed: Map<number, Record<string, unknown>>;
}

export interface ItemsPlan {
  /** What the handler receives: each answered array holds its valid items only. */
  readonly value: Record<string, unknown>;
  /** Per answered array, the request index of each item the handler receives (`ctx.requestIndex`). */
  readonly requestIndex: Readonly<Record<string, readonly number[]>>;
  /** The body to send without calling the handler (no valid item left), else undefined. */
  readonly body?: Record<string, unknown>;
  /** The handler's body with the failed rows merged in, in request order. */
  merge(body: Record<string, unknown>): Record<string, unknown>;
}

/**
 * planItems with the checks of one tool in one release: its compiled item and row validators, the whole request's
 * (`raw`), development's unknown fields (`drift`), and a failed row's error as a rejection would say it (`wire`:
 * the production-emit rules; `details` only for the count of issues left out, the issues carry the rest).
 */
export function planBatch(
  module: ItemOutcomesModule,
  request: Record<string, unknown>,
  tool: { tool: string; raw: RawValidateFn; idBase?: string; drift: readonly string[]; wire(issues: Issue[]): Issue[] },
): ItemsPlan | undefined {
  return planItems(module, request, {
    item: (p) => wrapRepairing(p.validateItem, { idBase: tool.idBase }),
    row: (p) => (row) => verdictOf(p.validateRow, row),
    whole: (v) => verdictOf(tool.raw, v),
    drift: tool.drift,
    error: (issues, found) => {
      const { details, ...error } = invalidRequest(tool.tool, tool.wire(issues), found);
      const omitted = details?.issues_omitted;
      return omitted === undefined ? error : { ...error, details: { issues_omitted: omitted } };
    },
  });
}

/**
 * The plan for a request that failed validation, or undefined when it must be rejected as a whole: the tool does
 * not answer items here (its gate field does not ask for it), no item fails on its own, an item's arrays break their
 * bounds (SHAPE_KEYWORDS), a failed item's row cannot be built valid, or there is a defect outside the failed items.
 */
export function planItems(module: ItemOutcomesModule, request: Record<string, unknown>, checks: ItemChecks): ItemsPlan | undefined {
  if (module.gate !== null && request[module.gate.property] !== module.gate.value) return undefined;
  const drifted = driftByItem(checks.drift, module.pairings);
  if (drifted === undefined) return undefined;
  const answered: Answered[] = [];
  // The request with every failed item replaced by its repaired copy: valid exactly when nothing else is wrong.
  let fixed: Record<string, unknown> = request;
  let failedCount = 0;
  for (const pairing of module.pairings) {
    const items = own(request, pairing.request);
    if (!Array.isArray(items) || items.length === 0) continue;
    if (items.length > Math.min(pairing.maxItems ?? MAX_ITEMS, MAX_ITEMS)) return undefined;
    const check = checks.item(pairing);
    const kept: number[] = [];
    const failed = new Map<number, Record<string, unknown>>();
    let repairedItems: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      // As many unknown fields as a rejection carries are made issues; the rest only counted (bounds.ts).
      const unknown = drifted.get(`${pairing.request}\0${i}`) ?? [];
      const drift = unknown.slice(0, MAX_REJECTION_ISSUES).map(driftIssue);
      const verdict = check(items[i]);
      if (verdict.ok && drift.length === 0) {
        kept.push(i);
        continue;
      }
      if (++failedCount > MAX_FAILED) return undefined;
      if (!verdict.ok && verdict.issues.some((issue) => SHAPE_KEYWORDS.has(issue.keyword))) return undefined;
      // Stripped of its unknown fields (development), or repaired past every issue: an item the schema accepts.
      const repaired = verdict.ok ? { value: items[i] } : verdict.repaired;
      if (repaired === undefined) return undefined;
      const issues = [...drift, ...(verdict.ok ? [] : verdict.issues)];
      const row = failedRow(pairing, items[i], issues, unknown.length + issues.length - drift.length, checks);
      if (row === undefined) return undefined;
      failed.set(i, row);
      (repairedItems ??= items.slice())[i] = repaired.value;
    }
    if (failed.size === 0) continue;
    answered.push({ pairing, kept, failed });
    fixed = withProperty(fixed, pairing.request, repairedItems);
  }
  if (answered.length === 0) return undefined;
  // Every defect was inside the failed items: nothing else drifted, and the request with them repaired is valid.
  for (const key of drifted.keys()) {
    const [array, index] = key.split('\0') as [string, string];
    if (!answered.some((a) => a.pairing.request === array && a.failed.has(Number(index)))) return undefined;
  }
  if (!checks.whole(fixed)) return undefined;

  let value = request;
  for (const a of answered) value = withProperty(value, a.pairing.request, a.kept.map((i) => (own(request, a.pairing.request) as unknown[])[i]));
  const requestIndex = Object.fromEntries(answered.map((a) => [a.pairing.request, a.kept.slice()]));
  const rowsOf = (a: Answered, handlerRows: readonly unknown[]): unknown[] => merged(a, handlerRows);
  const merge = (body: Record<string, unknown>): Record<string, unknown> => {
    let out = body;
    for (const a of answered) {
      const rows = own(body, a.pairing.response);
      if (Array.isArray(rows)) out = withProperty(out, a.pairing.response, rowsOf(a, rows));
    }
    return out;
  };
  if (answered.some((a) => a.kept.length > 0)) {
    // The handler must receive a valid request (minItems and other rules on the filtered arrays included).
    return checks.whole(value) ? { value, requestIndex, merge } : undefined;
  }
  if (module.body === null) return undefined;
  let body: Record<string, unknown> = { ...module.body };
  for (const a of answered) body = withProperty(body, a.pairing.response, rowsOf(a, []));
  return { value, requestIndex, body, merge };
}

/** A raw validator's verdict alone (its errors cleared, as wrapValidator does). */
export function verdictOf(raw: RawValidateFn, value: unknown): boolean {
  try {
    return raw(value) === true;
  } catch {
    return false;
  } finally {
    raw.errors = null;
  }
}

/** The failed rows at their items' request positions among the handler's rows for the items it received. */
function merged(a: Answered, handlerRows: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  const total = a.kept.length + a.failed.size;
  let next = 0;
  for (let i = 0; i < total; i++) {
    const row = a.failed.get(i);
    if (row !== undefined) out.push(row);
    else if (next < handlerRows.length) out.push(handlerRows[next++]);
  }
  while (next < handlerRows.length) out.push(handlerRows[next++]);
  return out;
}

/** An item's failed row: identifying fields copied, outcome fields set, the error; undefined when it is not valid. */
function failedRow(p: ItemPairing, item: unknown, issues: Issue[], found: number, checks: ItemChecks): Record<string, unknown> | undefined {
  const row: Record<string, unknown> = {};
  for (const field of p.identity) {
    const v = own(item, field);
    if (v !== undefined) define(row, field, v);
  }
  for (const [field, v] of Object.entries(p.outcome)) define(row, field, v);
  define(row, 'errors', [checks.error(issues, found)]);
  return checks.row(p)(row) ? row : undefined;
}

/**
 * Development's unknown fields by the answered item they are in (`<array>\0<index>` → pointers relative to the
 * item); undefined when one lies outside every answered array's items (a defect of the call itself).
 */
function driftByItem(drift: readonly string[], pairings: readonly ItemPairing[]): Map<string, string[]> | undefined {
  const out = new Map<string, string[]>();
  const arrays = new Set(pairings.map((p) => escapeToken(p.request)));
  for (const pointer of drift) {
    const m = /^\/([^/]+)\/(0|[1-9]\d*)(\/.+)$/.exec(pointer);
    if (m === null || !arrays.has(m[1]!)) return undefined;
    const key = `${m[1]!.replace(/~1/g, '/').replace(/~0/g, '~')}\0${m[2]!}`;
    let list = out.get(key);
    if (list === undefined) out.set(key, (list = []));
    list.push(m[3]!);
  }
  return out;
}

/** Development's unknown-field issue, with its pointer relative to the item. */
function driftIssue(pointer: string): Issue {
  const name = pointer.slice(pointer.lastIndexOf('/') + 1).replace(/~1/g, '/').replace(/~0/g, '~');
  return { pointer, keyword: 'additionalProperties', additionalProperty: name, message: `unknown property '${name}' is not allowed here` };
}

function own(o: unknown, key: string): unknown {
  return o !== null && typeof o === 'object' && !Array.isArray(o) && Object.prototype.hasOwnProperty.call(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

function withProperty(o: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const out = { ...o };
  define(out, key, value);
  return out;
}

function define(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

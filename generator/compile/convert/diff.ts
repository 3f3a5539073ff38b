import type { Release, ToolDef } from '../../load/index.js';
import { factsOf, fieldsOf, locationOf, placeKey, type Facts, type FieldMap, type FieldWalk, type Place } from './fields.js';

/**
 * What changed between two releases where a conversion may be needed: the *candidates* for conversion rules. The
 * conversion plan (plan.ts) requires each one to be covered by a rule or waived, with a reason, in the rule data,
 * so a new release's renames cannot slip through unnoticed. Found by comparing, per tool both releases serve, the
 * places (fields.ts) of the two releases' schemas:
 *
 * - `removed`: a field of the older release the newer one no longer declares at that place (renamed, moved or
 *   dropped): a buyer pinned to the older release expects it.
 * - `retyped`: a field both declare whose definition changed (another `$ref`, or values or types the receiving
 *   release does not admit: the older one for a response, the newer one for a request): `status` on 3.2's
 *   create_media_buy is the task status, on 3.0's the media buy's; 3.2 pricing options may be `revenue_share`.
 * - `relocated`: a field only the newer release declares that refers to the definition of a removed or retyped
 *   older field (or admits the same values), or whose description says it was renamed or moved (3.2's
 *   `media_buy_status`, `verdict`).
 * - `deprecated`: a newer field deprecated with a stated replacement (3.2's `valid_actions`, in favour of
 *   `available_actions`): older buyers read the deprecated one, newer handlers may fill only its replacement.
 *
 * - `loosened`: a response field the older release always requires where the newer one does not (3.0's
 *   check_governance `plan_id`): a newer body may lack what an older buyer is promised.
 *
 * Fields only the newer release declares, with no such tie to an older one, are plain additions: the older
 * release's deep-strip removes them where its objects are closed, and open objects keep them.
 */

export type Side = 'response' | 'request';
export type CandidateKind = 'removed' | 'retyped' | 'relocated' | 'deprecated' | 'loosened';

export interface Occurrence {
  readonly tool: string;
  /** The place, tokens joined by `/` (`packages/*\/status`). */
  readonly place: string;
}

export interface Candidate {
  readonly side: Side;
  readonly kind: CandidateKind;
  /**
   * The release whose declaration this is: the older one for `removed`, the newer one for `relocated` and
   * `deprecated`, the sending one for `retyped` (the newer for a response, the older for a request).
   */
  readonly release: 'newer' | 'older';
  /** `<file>#<pointer>` of the declaration in that release. */
  readonly location: string;
  /** What changed, in a few words, for the report. */
  readonly detail: string;
  readonly occurrences: Occurrence[];
}

export interface ReleaseDiff {
  readonly newer: Release;
  readonly older: Release;
  /** The tools both releases serve, that were compared. */
  readonly tools: readonly string[];
  readonly candidates: readonly Candidate[];
}

/** The schemas of one side of a tool: its request, or its response and async responses. */
export function sidePaths(tool: ToolDef, side: Side): string[] {
  return side === 'request' ? [tool.requestSchema] : [tool.responseSchema, ...tool.asyncResponseSchemas];
}

/** Candidates between `newer` and `older` over `tools` (default: every tool both serve). */
export function diffReleases(newer: Release, older: Release, tools?: readonly string[], walk: FieldWalk = fieldsOf): ReleaseDiff {
  const available = (r: Release, t: string): boolean => r.tools.has(t) && !r.unavailable.has(t);
  const names = (tools ?? [...newer.tools.keys()]).filter((t) => available(newer, t) && available(older, t)).sort();
  const found = new Map<string, Candidate>();
  const add = (c: Omit<Candidate, 'occurrences'>, o: Occurrence): void => {
    const key = `${c.side}\0${c.kind}\0${c.release}\0${c.location}`;
    let seen = found.get(key);
    if (seen === undefined) found.set(key, (seen = { ...c, occurrences: [] }));
    if (!seen.occurrences.some((x) => x.tool === o.tool && x.place === o.place)) seen.occurrences.push(o);
  };
  for (const tool of names) {
    for (const side of ['response', 'request'] as const) {
      const n = walk(newer, sidePaths(newer.tools.get(tool)!, side));
      const o = walk(older, sidePaths(older.tools.get(tool)!, side));
      compareTool(newer, older, tool, side, n, o, add);
    }
  }
  const candidates = [...found.values()].sort((a, b) => cmp(`${a.side} ${a.release} ${a.location} ${a.kind}`, `${b.side} ${b.release} ${b.location} ${b.kind}`));
  for (const c of candidates) c.occurrences.sort((a, b) => cmp(`${a.tool} ${a.place}`, `${b.tool} ${b.place}`));
  return { newer, older, tools: names, candidates };
}

function compareTool(
  newer: Release,
  older: Release,
  tool: string,
  side: Side,
  n: FieldMap,
  o: FieldMap,
  add: (c: Omit<Candidate, 'occurrences'>, o: Occurrence) => void,
): void {
  const declared = (m: FieldMap, key: string): Place | undefined => {
    const p = m.get(key);
    return p !== undefined && p.declarations.length > 0 ? p : undefined;
  };
  const parentKey = (p: Place): string => placeKey(p.path.slice(0, -1));
  const facts = (r: Release, p: Place): Facts[] => p.declarations.map((d) => factsOf(r, d));
  // Definitions an older field referred to, whose field is gone or changed: a newer field referring to one of them
  // is where it went.
  const orphaned = new Map<string, string>();
  // Likewise the value sets (an inline enum has no definition to refer to).
  const orphanedValues = new Map<string, string>();
  const valueKey = (f: Facts): string | undefined => (f.values === undefined || f.values.size < 2 ? undefined : [...f.values].sort().join(','));
  for (const op of o.values()) {
    if (op.declarations.length === 0) continue;
    const key = placeKey(op.path);
    const np = declared(n, key);
    const of = facts(older, op);
    if (np === undefined) {
      // Only the topmost missing place: the fields below a removed object are removed with it.
      if (op.path.length > 1 && declared(n, parentKey(op)) === undefined) continue;
      for (const d of op.declarations) add({ side, kind: 'removed', release: 'older', location: locationOf(d), detail: `${key} is not declared by AdCP ${newer.version}` }, { tool, place: key });
      for (const f of of) {
        for (const r of f.refs) orphaned.set(r, key);
        const v = valueKey(f);
        if (v !== undefined) orphanedValues.set(v, key);
      }
      continue;
    }
    // A response's values flow from the newer release to the older one, a request's the other way: what the
    // receiving release does not admit is the change.
    const nf = facts(newer, np);
    const change = side === 'response' ? retyping(of, nf) : retyping(nf, of);
    if (change === undefined) continue;
    // Named where the values come from: the declarations admitting what the other release does not (one new arm of
    // a union, not every arm), else every declaration of the place.
    const sending = side === 'response' ? np : op;
    const sendingFacts = side === 'response' ? nf : of;
    const receivingFacts = side === 'response' ? of : nf;
    const blamed = sending.declarations.filter((_, i) => retyping(receivingFacts, [sendingFacts[i]!]) !== undefined);
    const release = side === 'response' ? 'newer' : 'older';
    for (const d of blamed.length > 0 ? blamed : sending.declarations) add({ side, kind: 'retyped', release, location: locationOf(d), detail: `${key}: ${change}` }, { tool, place: key });
    for (const f of of) {
      for (const r of f.refs) if (!nf.some((x) => x.refs.has(r))) orphaned.set(r, key);
      const v = valueKey(f);
      if (v !== undefined && !nf.some((x) => valueKey(x) === v)) orphanedValues.set(v, key);
    }
  }
  if (side === 'response') {
    for (const oc of o.values()) {
      const nc = n.get(placeKey(oc.path));
      if (nc === undefined) continue;
      // Required outside unions, or by some arm of one (and by no arm of the newer release's).
      const requiredByNewer = (name: string): boolean => nc.required.has(name) || (!oc.required.has(name) && nc.requiredInBranch.has(name));
      for (const name of [...oc.required, ...oc.requiredInBranch]) {
        if (requiredByNewer(name)) continue;
        const key = placeKey([...oc.path, name]);
        const field = declared(o, key);
        // A field the newer release does not declare there is `removed` already.
        if (field === undefined || declared(n, key) === undefined) continue;
        for (const d of field.declarations) add({ side, kind: 'loosened', release: 'older', location: locationOf(d), detail: `${key} is required by AdCP ${older.version}, not always by AdCP ${newer.version}` }, { tool, place: key });
      }
    }
  }
  if (side === 'response') {
    // An asynchronous answer (`status: submitted`, …) the older release has no arm or async schema for.
    // A declaration admitting only asynchronous statuses (an async arm's `const: "submitted"`), not the task-status
    // enum every envelope declares; and the release's own async response schemas, by the status each answers.
    const asyncValues = (m: FieldMap, r: Release): Map<string, string[]> => {
      const out = new Map<string, string[]>();
      for (const d of m.get('status')?.declarations ?? []) {
        const f = factsOf(r, d);
        if (f.values === undefined || ![...f.values].every((v) => ASYNC_STATUSES.has(v))) continue;
        for (const v of f.values) out.set(v, [...(out.get(v) ?? []), locationOf(d)]);
      }
      for (const path of r.tools.get(tool)!.asyncResponseSchemas) {
        const status = /-async-response-([a-z-]+)\.json$/.exec(path)?.[1];
        if (status !== undefined && !out.has(JSON.stringify(status))) out.set(JSON.stringify(status), [`${path}#`]);
      }
      return out;
    };
    const olderAsync = asyncValues(o, older);
    for (const [value, locations] of asyncValues(n, newer)) {
      if (olderAsync.has(value)) continue;
      for (const location of locations.filter((l) => !l.endsWith('#'))) add({ side, kind: 'retyped', release: 'newer', location, detail: `status: answers ${value}, which AdCP ${older.version} has no answer for` }, { tool, place: 'status' });
    }
  }
  for (const np of n.values()) {
    if (np.declarations.length === 0) continue;
    const key = placeKey(np.path);
    const known = declared(o, key) !== undefined;
    np.declarations.forEach((d) => {
      const f = factsOf(newer, d);
      const stated = statedOrigin(f.description);
      const tie = [...f.refs].find((r) => orphaned.has(r));
      const values = valueKey(f);
      const sameValues = values !== undefined && f.refs.size === 0 ? orphanedValues.get(values) : undefined;
      if (!known && (tie !== undefined || sameValues !== undefined || stated !== undefined)) {
        const why =
          tie !== undefined
            ? `refers to ${tie}, which AdCP ${older.version} had at ${orphaned.get(tie)}`
            : sameValues !== undefined
              ? `admits the values AdCP ${older.version} had at ${sameValues}`
              : `its description says it was ${stated}`;
        add({ side, kind: 'relocated', release: 'newer', location: locationOf(d), detail: `${key} ${why}` }, { tool, place: key });
      }
      const replacement = statedReplacement(f);
      if (replacement !== undefined) add({ side, kind: 'deprecated', release: 'newer', location: locationOf(d), detail: `${key} is deprecated in favour of ${replacement}` }, { tool, place: key });
    });
  }
}

/**
 * How a field both releases declare changed in a way the receiving release would notice (values or types the
 * sending one admits and it does not, or another definition altogether); undefined if not.
 */
function retyping(receiving: readonly Facts[], sending: readonly Facts[]): string | undefined {
  const union = (fs: readonly Facts[], pick: (f: Facts) => ReadonlySet<string> | undefined): Set<string> | undefined => {
    const out = new Set<string>();
    for (const f of fs) {
      const s = pick(f);
      if (s === undefined) return undefined; // one declaration admits anything of its types
      for (const v of s) out.add(v);
    }
    return out;
  };
  const rRefs = union(receiving, (f) => f.refs)!;
  const sRefs = union(sending, (f) => f.refs)!;
  if (rRefs.size > 0 && sRefs.size > 0 && ![...rRefs].some((r) => sRefs.has(r))) return `refers to ${[...sRefs].sort().join(', ')} instead of ${[...rRefs].sort().join(', ')}`;
  const rValues = union(receiving, (f) => f.values);
  const sValues = union(sending, (f) => f.values);
  if (rValues !== undefined) {
    const extra = sValues === undefined ? ['any value'] : [...sValues].filter((v) => !rValues.has(v));
    if (extra.length > 0) return `admits ${extra.sort().join(', ')}, which the receiving release does not`;
  }
  const rTypes = union(receiving, (f) => f.types)!;
  const sTypes = union(sending, (f) => f.types)!;
  const extraTypes = rTypes.size === 0 ? [] : [...sTypes].filter((t) => !rTypes.has(t) && !(t === 'integer' && rTypes.has('number')));
  if (extraTypes.length > 0) return `admits type ${extraTypes.sort().join(', ')}, which the receiving release does not`;
  return undefined;
}

/** "Renamed from `status` in 3.1", "moved from `x`": the description's own account of where the field was. */
function statedOrigin(description: string): string | undefined {
  const m = /\b(renamed|moved) from `([^`]+)`/i.exec(description);
  return m === null ? undefined : `${m[1]!.toLowerCase()} from ${m[2]}`;
}

/** "Deprecated in favor of `available_actions[]`": the replacement a deprecated field names. */
function statedReplacement(f: Facts): string | undefined {
  if (!f.deprecated && !/^\W*deprecated\b/i.test(f.description)) return undefined;
  const m = /(?:in favou?r of|replaced by|superseded by|use)\s+`([^`]+)`/i.exec(f.description);
  return m === null ? undefined : m[1];
}

/** The task statuses of an asynchronous answer, JSON-encoded as facts hold values. */
const ASYNC_STATUSES: ReadonlySet<string> = new Set(['"submitted"', '"working"', '"input-required"']);

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

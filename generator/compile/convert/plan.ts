import type { ConversionRule, ConversionRuleFile, ConversionWaiver, JsonValue, Release } from '../../load/index.js';
import { getAtPointer, isPlainObject, parsePointer } from '../../shared/index.js';
import { diffReleases, sidePaths, type Candidate, type Occurrence, type ReleaseDiff, type Side } from './diff.js';
import { fieldWalks, locationOf, placeKey, type Declaration, type FieldMap, type FieldWalk, type Place } from './fields.js';

/**
 * Which conversion rules apply where, for one pair of releases (a newer one whose handlers answer, an older one a
 * buyer pinned): each rule's cited declarations are looked up in both releases, and every place a tool's schemas
 * reach one becomes a step the compiled module runs (module.ts). A rule that cites a declaration a release does not
 * have, or whose declarations do not line up (a rename whose target is not a sibling), is skipped with the reason,
 * which the generator prints. The diff's candidates (diff.ts) that no step covers and no waiver accounts for are the
 * plan's `uncovered`: a lint, and a test for the shipped rules.
 */

/** A newer release whose handler answers, and an older one a buyer pinned. */
export interface ReleasePair {
  readonly newer: Release;
  readonly older: Release;
}

/** One rule at one place of one tool. */
export interface Step {
  readonly rule: ConversionRule;
  /** Place of the object holding the field read (`packages/*`): property names, `*` for array elements. */
  readonly container: readonly string[];
  /** The field read, a member of that object. */
  readonly field: string;
  /** Path written, from the container (rename, move, pluck, from-request). */
  readonly target?: readonly string[];
  /** drop/drop-parent with `unknown`, pluck: the values the receiving release admits there. */
  readonly admitted?: readonly JsonValue[];
  /** The field is an array of values, so `unknown` filters its elements instead of removing it. */
  readonly elements?: boolean;
}

export interface ToolConversion {
  readonly tool: string;
  /** Newer response → older buyer, in rule order. */
  readonly responses: readonly Step[];
  /** Older request → newer handler, in rule order. */
  readonly requests: readonly Step[];
}

export interface SkippedConversion {
  readonly rule: string;
  readonly file: string;
  readonly tool: string;
  readonly reason: string;
}

export interface UncoveredCandidate {
  readonly candidate: Candidate;
  /** The occurrences no step covers and no waiver names. */
  readonly occurrences: readonly Occurrence[];
}

export interface ConversionPlan extends ReleasePair {
  readonly tools: readonly ToolConversion[];
  /** The rule files written for this pair (by release precision). */
  readonly files: readonly ConversionRuleFile[];
  readonly skipped: readonly SkippedConversion[];
  /** The field maps the plan was made from, for its diff and request gaps to read again. */
  readonly walk: FieldWalk;
}

/** `3.2` for 3.2.0-beta.5: how rule files name a release. */
export function precisionOf(release: Release): string {
  return `${release.major}.${release.minor}`;
}

/** The rule files written for exactly this pair. */
export function filesFor(pair: ReleasePair, files: readonly ConversionRuleFile[]): ConversionRuleFile[] {
  return files.filter((f) => f.newer === precisionOf(pair.newer) && f.older === precisionOf(pair.older));
}

/** Plans the rules of `files` written for this pair over `tools` (tools both releases serve). */
export function planConversions(pair: ReleasePair, files: readonly ConversionRuleFile[], tools: readonly string[]): ConversionPlan {
  const own = filesFor(pair, files);
  const walk = fieldWalks();
  const fields = (release: Release, tool: string, side: Side): FieldMap => walk(release, sidePaths(release.tools.get(tool)!, side));
  const skipped: SkippedConversion[] = [];
  const steps = new Map<string, { responses: Step[]; requests: Step[] }>(tools.map((t) => [t, { responses: [], requests: [] }]));
  for (const file of own) {
    for (const rule of file.rules) {
      const src = rule.direction === 'response' ? pair.newer : pair.older;
      const dst = rule.direction === 'response' ? pair.older : pair.newer;
      const srcLocs = rule.direction === 'response' ? rule.newer : rule.older;
      const dstLocs = rule.direction === 'response' ? rule.older : rule.newer;
      const missing = [...srcLocs.map((l) => [src, l] as const), ...dstLocs.map((l) => [dst, l] as const)].find(([r, l]) => !declares(r, l));
      if (missing !== undefined) {
        skipped.push({ rule: rule.id, file: rule.file, tool: '*', reason: `AdCP ${missing[0].version} declares no property at ${missing[1]}` });
        continue;
      }
      let placed = 0;
      const problems: string[] = [];
      for (const tool of rule.tools ?? tools) {
        const into = steps.get(tool);
        if (into === undefined) continue; // a tool this pair does not convert: rules cover every release
        const found = placeSteps(rule, fields(src, tool, rule.direction), fields(dst, tool, rule.direction), fields(pair.older, tool, 'request'), srcLocs, dstLocs, dst);
        if (typeof found === 'string') {
          if (rule.tools !== undefined) skipped.push({ rule: rule.id, file: rule.file, tool, reason: found });
          else if (!found.startsWith("the tool's")) problems.push(`${tool}: ${found}`);
          continue;
        }
        placed += found.length;
        (rule.direction === 'response' ? into.responses : into.requests).push(...found);
      }
      // A rule for every tool that reaches what it cites, placed nowhere: its citations do not line up.
      if (placed === 0 && rule.tools === undefined && problems.length > 0) skipped.push({ rule: rule.id, file: rule.file, tool: '*', reason: `its declarations line up in none of the tools reaching them: ${problems.slice(0, 2).join('; ')}` });
    }
  }
  return { ...pair, files: own, skipped, walk, tools: tools.map((tool) => ({ tool, ...steps.get(tool)! })) };
}

/**
 * The diff's candidates for this pair that neither a planned step nor a waiver accounts for. A step covers the
 * places it reads and writes, where it cites the candidate's declaration; a waiver covers its declaration (for
 * its tools, or everywhere).
 */
export function uncoveredCandidates(plan: ConversionPlan, diff: ReleaseDiff = diffReleases(plan.newer, plan.older, plan.tools.map((t) => t.tool), plan.walk)): UncoveredCandidate[] {
  return candidateCoverage(plan, diff)
    .map((c) => ({ candidate: c.candidate, occurrences: c.occurrences.filter((o) => o.by === undefined).map((o) => o.occurrence) }))
    .filter((u) => u.occurrences.length > 0);
}

/** What accounts for each occurrence of each candidate: a rule (`rule <id>`), a waiver (`waived: <reason>`), or nothing. */
export interface CandidateCoverage {
  readonly candidate: Candidate;
  readonly occurrences: readonly { readonly occurrence: Occurrence; readonly by?: string }[];
}

export function candidateCoverage(plan: ConversionPlan, diff: ReleaseDiff = diffReleases(plan.newer, plan.older, plan.tools.map((t) => t.tool), plan.walk)): CandidateCoverage[] {
  const waivers = plan.files.flatMap((f) => f.waivers);
  const coveredBy = (c: Candidate, o: Occurrence): string | undefined => {
    const waiver = waivers.find((w) => waives(w, c, o));
    if (waiver !== undefined) return `waived: ${waiver.reason}`;
    const tool = plan.tools.find((t) => t.tool === o.tool);
    const list = c.side === 'response' ? tool?.responses : tool?.requests;
    const step = (list ?? []).find((s) => {
      const read = placeKey([...s.container, s.field]);
      const written = s.target === undefined ? read : placeKey([...s.container, ...s.target]);
      // A drop removes the field's subtree, a drop-parent its holder's: what lies below is accounted for with it.
      const removed = s.rule.transform.kind === 'drop' ? read : s.rule.transform.kind === 'drop-parent' ? placeKey(s.container) : undefined;
      if (removed !== undefined && o.place.startsWith(`${removed}/`) && [...s.rule.newer, ...s.rule.older].length > 0) return true;
      if (o.place !== read && o.place !== written) return false;
      // The rule must be about this declaration: it cites it, or (a deprecation) it writes the deprecated field.
      return [...s.rule.newer, ...s.rule.older].includes(c.location) || (c.kind === 'deprecated' && o.place === written && s.target !== undefined);
    });
    return step === undefined ? undefined : `rule ${step.rule.id}`;
  };
  return diff.candidates.map((candidate) => ({ candidate, occurrences: candidate.occurrences.map((occurrence) => ({ occurrence, by: coveredBy(candidate, occurrence) })) }));
}

function waives(w: ConversionWaiver, c: Candidate, o: Occurrence): boolean {
  return w.side === c.side && w.location === c.location && (w.tools === undefined || w.tools.includes(o.tool));
}

/** Whether `location` (`<file>#<pointer>`) is a property schema the release has. */
function declares(release: Release, location: string): boolean {
  const hash = location.indexOf('#');
  const file = release.schemas.byPath.get(location.slice(0, hash));
  if (file === undefined) return false;
  const pointer = location.slice(hash + 1);
  const tokens = parsePointer(pointer);
  return tokens.length >= 2 && tokens[tokens.length - 2] === 'properties' && isPlainObject(getAtPointer(file.schema, pointer));
}

/** The places of `fields` whose declarations include one of `locations`, in the map's order. */
function placesCiting(fields: FieldMap, locations: readonly string[]): string[][] {
  const index = citedAt(fields);
  const hit = new Set<Place>();
  for (const l of locations) for (const p of index.get(l) ?? []) hit.add(p);
  return hit.size === 0 ? [] : [...fields.values()].filter((p) => hit.has(p)).map((p) => [...p.path]);
}

/** Each declaration's location and the places it declares, made once per field map (asked for every rule and tool). */
const citations = new WeakMap<FieldMap, Map<string, Place[]>>();
function citedAt(fields: FieldMap): Map<string, Place[]> {
  let index = citations.get(fields);
  if (index === undefined) {
    citations.set(fields, (index = new Map()));
    for (const p of fields.values()) {
      for (const d of p.declarations) {
        const l = locationOf(d);
        const list = index.get(l);
        if (list === undefined) index.set(l, [p]);
        else if (list[list.length - 1] !== p) list.push(p);
      }
    }
  }
  return index;
}

const same = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((t, i) => t === b[i]);

/** The steps of one rule in one tool, or why it has none there. */
function placeSteps(
  rule: ConversionRule,
  src: FieldMap,
  dst: FieldMap,
  olderRequest: FieldMap,
  srcLocs: readonly string[],
  dstLocs: readonly string[],
  dstRelease: Release,
): Step[] | string {
  const reads = placesCiting(src, srcLocs);
  if (reads.length === 0) return `the tool's ${rule.direction} does not reach ${srcLocs.join(', ')}`;
  const writes = placesCiting(dst, dstLocs);
  const t = rule.transform;
  const out: Step[] = [];
  const problems: string[] = [];
  for (const read of reads) {
    const container = read.slice(0, -1);
    const field = read[read.length - 1]!;
    const at = `/${placeKey(read)}`;
    switch (t.kind) {
      case 'rename':
      case 'pluck': {
        const w = writes.find((q) => q.length === read.length && same(q.slice(0, -1), container) && q[q.length - 1] !== field);
        if (w === undefined) {
          problems.push(`no cited declaration is a sibling of ${at}`);
          break;
        }
        // A plucked array keeps only the values its receiving declaration admits.
        const admitted = t.kind === 'pluck' ? admittedValues(dstRelease, dst.get(placeKey(w))!.declarations) : undefined;
        out.push({ rule, container, field, target: [w[w.length - 1]!], ...(admitted?.elements === true ? { admitted: admitted.values } : {}) });
        break;
      }
      case 'move': {
        const w = writes.find((q) => q.length > read.length && same(q.slice(0, container.length), container) && q[container.length] !== field);
        if (w === undefined) problems.push(`no cited declaration lies below the object holding ${at}`);
        else out.push({ rule, container, field, target: w.slice(container.length) });
        break;
      }
      case 'from-request': {
        if (!writes.some((q) => same(q, read))) {
          problems.push(`no cited declaration is at ${at}`);
          break;
        }
        if (olderRequest.get(placeKey(t.path))?.declarations.length === undefined || olderRequest.get(placeKey(t.path))!.declarations.length === 0) {
          problems.push(`the request does not declare /${placeKey(t.path)}`);
          break;
        }
        out.push({ rule, container, field, target: [field] });
        break;
      }
      case 'default':
      case 'map': {
        if (!writes.some((q) => same(q, read))) problems.push(`no cited declaration is at ${at}`);
        else out.push({ rule, container, field });
        break;
      }
      case 'refuse':
        // What the older release has instead is cited (checked to exist); it need not be at the refused field's place.
        out.push({ rule, container, field });
        break;
      case 'drop':
      case 'drop-parent': {
        if (t.kind === 'drop-parent' && container.length === 0) {
          problems.push(`${at} is a member of the body itself, which nothing holds`);
          break;
        }
        const here = writes.find((q) => same(q, read));
        // The object a drop-parent removes may be cited instead of the field (its array, or the object itself).
        const holder = t.kind === 'drop-parent' ? writes.find((q) => same(q, container) || (container[container.length - 1] === '*' && same(q, container.slice(0, -1)))) : undefined;
        if (here === undefined && holder === undefined) {
          problems.push(`no cited declaration is at ${at}${t.kind === 'drop-parent' ? ' or at the object holding it' : ''}`);
          break;
        }
        if (!t.unknown) {
          out.push({ rule, container, field });
          break;
        }
        const admitted = here === undefined ? undefined : admittedValues(dstRelease, dst.get(placeKey(here))!.declarations);
        if (admitted === undefined) problems.push(`AdCP ${dstRelease.version} admits any value at ${at}: nothing is unknown`);
        else out.push({ rule, container, field, admitted: admitted.values, elements: admitted.elements });
        break;
      }
    }
  }
  if (out.length === 0) return problems.join('; ');
  return out;
}

/**
 * The values the declarations of one place admit (the union of their `enum`/`const`, through `$ref`s and
 * single-member `allOf`s), or of their items when they are arrays of such values; undefined when one admits any.
 */
function admittedValues(release: Release, decls: readonly Declaration[]): { values: JsonValue[]; elements: boolean } | undefined {
  const values: JsonValue[] = [];
  let elements: boolean | undefined;
  const seen = new Set<string>();
  const visit = (schema: unknown, depth: number, inItems: boolean): boolean => {
    if (!isPlainObject(schema) || depth > 8) return false;
    const list = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
    if (list !== undefined) {
      if (elements !== undefined && elements !== inItems) return false;
      elements = inItems;
      for (const v of list as JsonValue[]) {
        const key = JSON.stringify(v);
        if (!seen.has(key)) {
          seen.add(key);
          values.push(v);
        }
      }
      return true;
    }
    if (typeof schema.$ref === 'string') {
      const ref = release.graph.referenceAt(schema);
      return ref?.target !== undefined && visit(ref.target.schema, depth + 1, inItems);
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return visit(schema.allOf[0], depth + 1, inItems);
    for (const k of ['anyOf', 'oneOf'] as const) {
      const arms = schema[k];
      if (Array.isArray(arms) && arms.length > 0) return arms.every((a) => visit(a, depth + 1, inItems));
    }
    if (!inItems && isPlainObject(schema.items)) return visit(schema.items, depth + 1, true);
    return false;
  };
  for (const d of decls) if (!visit(d.schema, 0, false)) return undefined;
  return { values, elements: elements ?? false };
}

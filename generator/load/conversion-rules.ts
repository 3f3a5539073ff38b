import type { ErrorObject } from 'ajv';
import { CodegenError, getAtPointer, hashJson, joinPointer } from '../shared/index.js';
import { checkFormat, describe, pointerOf } from './check-format.js';
import type { JsonObject, JsonValue } from './model.js';
import { readJson } from './read-json.js';

/**
 * Conversion rule files (schemas/conversions/*.json, format in schemas/conversion.schema.json) read and checked:
 * how a response written in a newer AdCP release reaches a buyer pinned to an older one, how that buyer's request
 * reaches the newer handler, and the schema changes that need no rule (waivers). Which rules apply to which tool of
 * a pair of releases, and whether their citations hold, is compile/convert/plan.ts.
 */

export type ConversionTransform =
  | { readonly kind: 'rename' | 'move'; readonly conflict: 'replace' | 'keep' }
  | { readonly kind: 'drop' | 'drop-parent'; readonly values?: readonly JsonValue[]; readonly unknown: boolean; readonly missing: boolean; readonly reason: string }
  | { readonly kind: 'default'; readonly value: JsonValue }
  | { readonly kind: 'pluck'; readonly member: string }
  | { readonly kind: 'from-request'; readonly path: readonly string[] }
  | { readonly kind: 'map'; readonly table: readonly { readonly from: Readonly<Record<string, JsonValue>>; readonly to: Readonly<Record<string, JsonValue>> }[] }
  | { readonly kind: 'refuse'; readonly values?: readonly JsonValue[]; readonly missing: boolean; readonly present: boolean; readonly reason: string };

export type ConversionDirection = 'response' | 'request';

export interface ConversionRule {
  readonly id: string;
  readonly summary?: string;
  /** `response`: newer body → older buyer; `request`: older buyer's request → newer handler. */
  readonly direction: ConversionDirection;
  readonly tools?: readonly string[];
  /** `<file>#<pointer>` declarations in the newer release. */
  readonly newer: readonly string[];
  /** `<file>#<pointer>` declarations in the older release. */
  readonly older: readonly string[];
  readonly unless?: Readonly<Record<string, readonly JsonValue[]>>;
  readonly transform: ConversionTransform;
  /** The rule file as given and the rule's pointer in it (errors, generated comments). */
  readonly file: string;
  readonly pointer: string;
  readonly fileHash: string;
}

export interface ConversionWaiver {
  readonly location: string;
  readonly side: ConversionDirection;
  readonly tools?: readonly string[];
  readonly reason: string;
  readonly file: string;
  readonly pointer: string;
}

/** One rule file: the release pair it is written for, its rules and waivers. */
export interface ConversionRuleFile {
  readonly file: string;
  readonly fileHash: string;
  /** Release precision (`3.2`): matches every release of that major.minor, pre-releases included. */
  readonly newer: string;
  readonly older: string;
  readonly rules: readonly ConversionRule[];
  readonly waivers: readonly ConversionWaiver[];
}

/**
 * Reads and validates rule files. Every problem is a CodegenError naming the file and the JSON pointer: format
 * violations, duplicate rule ids across files, a pair whose `newer` is not newer, `from-request` on a request rule.
 */
export function loadConversionRules(files: readonly string[]): ConversionRuleFile[] {
  const seen = new Map<string, string>();
  return files.map((file) => {
    const doc = readJson(file, file);
    checkFormat('conversion.schema.json', doc, file, (errors) => schemaError(file, doc, errors));
    const raw = doc as { newer: string; older: string; responses?: JsonObject[]; requests?: JsonObject[]; waivers?: JsonObject[] };
    const [nMajor, nMinor] = raw.newer.split('.').map(Number) as [number, number];
    const [oMajor, oMinor] = raw.older.split('.').map(Number) as [number, number];
    if (nMajor < oMajor || (nMajor === oMajor && nMinor <= oMinor)) throw new CodegenError(file, '/older', `${raw.older} is not older than ${raw.newer}`);
    const fileHash = hashJson(doc);
    const rules: ConversionRule[] = [];
    for (const [key, direction] of [
      ['responses', 'response'],
      ['requests', 'request'],
    ] as const) {
      (raw[key] ?? []).forEach((r, i) => {
        const pointer = joinPointer(`/${key}`, i);
        const rule = toRule(r, direction, file, pointer, fileHash);
        const first = seen.get(rule.id);
        if (first !== undefined) throw new CodegenError(file, `${pointer}/id`, `rule id ${JSON.stringify(rule.id)} is already used in ${first}`);
        seen.set(rule.id, file);
        rules.push(rule);
      });
    }
    const waivers = (raw.waivers ?? []).map(
      (w, i): ConversionWaiver => ({
        location: w.location as string,
        side: w.side as ConversionDirection,
        tools: w.tools as string[] | undefined,
        reason: w.reason as string,
        file,
        pointer: joinPointer('/waivers', i),
      }),
    );
    return { file, fileHash, newer: raw.newer, older: raw.older, rules, waivers };
  });
}

function toRule(r: JsonObject, direction: ConversionDirection, file: string, pointer: string, fileHash: string): ConversionRule {
  const list = (v: JsonValue | undefined): string[] => (typeof v === 'string' ? [v] : ((v as string[] | undefined) ?? []));
  const t = r.transform as JsonObject;
  const kind = t.kind as ConversionTransform['kind'];
  if ((kind === 'from-request' || kind === 'refuse') && direction === 'request') throw new CodegenError(file, `${pointer}/transform/kind`, `${kind} converts responses only`);
  let transform: ConversionTransform;
  switch (kind) {
    case 'rename':
    case 'move':
      transform = { kind, conflict: (t.conflict as 'replace' | 'keep' | undefined) ?? 'replace' };
      break;
    case 'drop':
    case 'drop-parent': {
      const conditions = ['values', 'unknown', 'missing'].filter((c) => t[c] !== undefined);
      if (conditions.length > 1) throw new CodegenError(file, `${pointer}/transform/${conditions[1]}`, `a ${kind} has one condition: ${conditions.join(' and ')} are both given`);
      if (kind === 'drop' && t.missing !== undefined) throw new CodegenError(file, `${pointer}/transform/missing`, 'a field that is missing cannot be dropped: drop-parent drops the object that lacks it');
      transform = { kind, values: t.values as JsonValue[] | undefined, unknown: t.unknown === true, missing: t.missing === true, reason: t.reason as string };
      break;
    }
    case 'default':
      transform = { kind, value: t.value as JsonValue };
      break;
    case 'map':
      transform = { kind, table: t.table as { from: Record<string, JsonValue>; to: Record<string, JsonValue> }[] };
      break;
    case 'refuse':
      if (['values', 'missing', 'present'].filter((c) => t[c] !== undefined).length !== 1) {
        throw new CodegenError(file, `${pointer}/transform`, 'a refuse has one condition: the values it refuses, a missing field (missing: true) or a field there at all (present: true)');
      }
      transform = { kind, values: t.values as JsonValue[] | undefined, missing: t.missing === true, present: t.present === true, reason: t.reason as string };
      break;
    case 'pluck':
      transform = { kind, member: t.member as string };
      break;
    case 'from-request':
      transform = { kind, path: t.path as string[] };
      break;
  }
  return {
    id: r.id as string,
    summary: typeof r.summary === 'string' ? r.summary : undefined,
    direction,
    tools: r.tools as string[] | undefined,
    newer: list(r.newer),
    older: list(r.older),
    unless: r.unless as Record<string, JsonValue[]> | undefined,
    transform,
    file,
    pointer,
    fileHash,
  };
}

function schemaError(file: string, doc: unknown, errors: readonly ErrorObject[]): CodegenError | undefined {
  const best = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  if (best === undefined) return new CodegenError(file, '', 'does not match the conversion rule format');
  if (best.keyword === 'discriminator') {
    const tag = (best.params as { tag: string }).tag;
    const value = (getAtPointer(doc, best.instancePath) as Record<string, unknown> | undefined)?.[tag];
    return new CodegenError(file, `${best.instancePath}/${tag}`, `unknown transform ${tag} ${JSON.stringify(value)}; see schemas/conversion.schema.json`);
  }
  if (best.keyword === 'not' && best.schemaPath.includes('definitions/key')) {
    return new CodegenError(file, best.instancePath, 'is a reserved name (__proto__, constructor, prototype or *)');
  }
  if (best.keyword === 'pattern' && best.schemaPath.includes('definitions/location')) {
    return new CodegenError(file, best.instancePath, 'is not a property declaration (<file>.json#<pointer ending in /properties/<name>>)');
  }
  return new CodegenError(file, pointerOf(best), describe(best));
}

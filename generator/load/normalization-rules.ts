import type { ErrorObject } from 'ajv';
import { CodegenError, hashJson, joinPointer } from '../shared/index.js';
import { checkFormat, describe, pointerOf } from './check-format.js';
import type { JsonObject } from './model.js';
import { readJson } from './read-json.js';

/**
 * Normalization rule files (schemas/normalizations/*.json, format in schemas/normalization.schema.json) read and
 * checked. Which rules apply to which tool of a release is compile/normalize/plan.ts; the code, compile.ts there.
 */

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

export type Transform =
  | { readonly kind: 'rename' }
  | { readonly kind: 'move' }
  | { readonly kind: 'wrap-array' }
  | { readonly kind: 'wrap-object'; readonly key: string; readonly pick?: string; readonly const?: JsonObject }
  | { readonly kind: 'url-to-domain'; readonly urlMember?: string }
  | { readonly kind: 'move-into-ext' }
  | { readonly kind: 'unwrap'; readonly members: Readonly<Record<string, string>> }
  | { readonly kind: 'drop'; readonly reason: string };

export interface NormalizationRule {
  readonly id: string;
  readonly summary?: string;
  readonly tools: readonly string[];
  /** Container of the deprecated field: property names from the request root, `*` = every array element. */
  readonly at: readonly string[];
  /** The deprecated property: a path from the container (one name, or more when it sits in a nested object). */
  readonly from: readonly string[];
  /** Current field relative to the container; absent for `drop` and `unwrap` (whose members name theirs). */
  readonly to?: readonly string[];
  readonly accepts?: readonly JsonType[];
  readonly transform: Transform;
  /** The rule file as given, and the rule's pointer inside it (for errors and generated comments). */
  readonly file: string;
  readonly pointer: string;
  /** sha256 of the rule file, named in generated headers. */
  readonly fileHash: string;
}

/**
 * Reads and validates rule files. Every problem is a CodegenError naming the file and the JSON pointer of the
 * offending value: schema violations, duplicate rule ids (across all files), and paths the format cannot express.
 */
export function loadNormalizationRules(files: string[]): NormalizationRule[] {
  const rules: NormalizationRule[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const doc = readJson(file, file);
    checkFormat('normalization.schema.json', doc, file, (errors) => schemaError(file, errors));
    const fileHash = hashJson(doc);
    const raw = (doc as { rules: JsonObject[] }).rules;
    raw.forEach((r, i) => {
      const pointer = joinPointer('/rules', i);
      const rule = toRule(r, file, pointer, fileHash);
      const first = seen.get(rule.id);
      if (first !== undefined) throw new CodegenError(file, `${pointer}/id`, `rule id ${JSON.stringify(rule.id)} is already used in ${first}`);
      seen.set(rule.id, file);
      rules.push(rule);
    });
  }
  return rules;
}

/** The rule format's own wording for the errors it knows; anything else gets the common wording (undefined). */
function schemaError(file: string, errors: readonly ErrorObject[]): CodegenError | undefined {
  // With allErrors off there are few errors; the deepest names the most specific place.
  const best = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  if (best === undefined) return new CodegenError(file, '', 'does not match the normalization rule format');
  if (best.keyword === 'discriminator') {
    const tag = (best.params as { tag: string }).tag;
    return new CodegenError(file, `${best.instancePath}/${tag}`, `unknown transform ${tag}; see schemas/normalization.schema.json`);
  }
  if (best.keyword === 'not' && best.schemaPath.includes('definitions/key')) {
    return new CodegenError(file, best.instancePath, 'is a reserved name (__proto__, constructor, prototype or *)');
  }
  if (best.keyword === 'not' && best.schemaPath.endsWith('/then/not')) {
    return new CodegenError(file, `${best.instancePath}/to`, 'a drop or unwrap rule names no "to"');
  }
  // The same pointer and wording as every other input format (config, profiles, overlays), at the deepest error.
  return new CodegenError(file, pointerOf(best), describe(best));
}

function toRule(r: JsonObject, file: string, pointer: string, fileHash: string): NormalizationRule {
  const transform = r.transform as unknown as Transform;
  const to = r.to as string[] | undefined;
  if (transform.kind === 'rename' && to !== undefined && to.length !== 1) {
    throw new CodegenError(file, `${pointer}/to`, 'a rename names one sibling property; use "move" for a nested target');
  }
  if (transform.kind === 'move-into-ext' && (to === undefined || to.length !== 2 || to[0] !== 'ext')) {
    throw new CodegenError(file, `${pointer}/to`, 'move-into-ext targets ["ext", <name>]');
  }
  const from = typeof r.from === 'string' ? [r.from] : (r.from as string[]);
  if (to !== undefined && to.length === from.length && to.every((k, i) => k === from[i])) {
    throw new CodegenError(file, `${pointer}/to`, 'the target is the deprecated field itself');
  }
  // Removing a nested source and then building the target from the same parent object would put it back.
  if (to !== undefined && from.length > 1 && to[0] === from[0]) {
    throw new CodegenError(file, `${pointer}/to`, `the deprecated field and the target share the parent ${JSON.stringify(from[0])}: set "at" to that object instead`);
  }
  return {
    id: r.id as string,
    summary: typeof r.summary === 'string' ? r.summary : undefined,
    tools: r.tools as string[],
    at: (r.at as string[] | undefined) ?? [],
    from,
    to,
    accepts: r.accepts as JsonType[] | undefined,
    transform,
    file,
    pointer,
    fileHash,
  };
}

import type { JsonType, NormalizationRule, Release } from '../../load/index.js';
import { typeName } from '../types/index.js';
import { commentText, jsLiteral } from '../../shared/index.js';

/** The typed declaration of one tool's normalizer (`releases/<key>/normalize/<tool>.d.cts`). */

const TS_TYPES: Record<JsonType, string> = {
  string: 'string',
  number: 'number',
  integer: 'number',
  boolean: 'boolean',
  object: '{ [k: string]: unknown }',
  array: 'unknown[]',
  null: 'null',
};

function deprecatedType(rule: NormalizationRule): string {
  if (rule.transform.kind === 'url-to-domain' && rule.transform.urlMember !== undefined) {
    return `string | { ${rule.transform.urlMember}?: string; [k: string]: unknown }`;
  }
  const types = rule.accepts ?? [];
  if (types.length === 0) return 'unknown';
  return [...new Set(types.map((t) => TS_TYPES[t]))].join(' | ');
}

/** A property name as a TS property key. */
function tsKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : jsLiteral(name);
}

export function declarationSource(release: Release, tool: string, rules: readonly NormalizationRule[]): string {
  const request = typeName(tool, 'request');
  const lines: string[] = [];
  lines.push(`// Types of the ${tool} normalizer, AdCP ${commentText(release.version)}.`);
  lines.push(`import type { ${request} } from '../types.js';`);
  lines.push('');
  lines.push('export interface AppliedNormalization {');
  lines.push('  rule: string;');
  lines.push('  from: string;');
  lines.push('  to: string;');
  lines.push('  conflict?: boolean;');
  lines.push('  reason?: string;');
  lines.push('}');
  lines.push('');

  // Top-level deprecated fields are declared; nested ones (packages[].optimization_goal) go through the open
  // request types' index signatures. Top-level targets a deprecated field can supply become optional.
  const topLevel = rules.filter((r) => r.at.length === 0);
  const fields = new Map<string, { type: string; rules: string[] }>();
  for (const r of topLevel) {
    if (r.from.length !== 1) continue;
    const name = r.from[0]!;
    const prior = fields.get(name);
    if (prior === undefined) fields.set(name, { type: deprecatedType(r), rules: [r.id] });
    else prior.rules.push(r.id);
  }
  const supplied = new Set<string>();
  for (const r of topLevel) {
    if (r.to !== undefined) supplied.add(r.to[0]!);
    if (r.transform.kind === 'unwrap') for (const target of Object.values(r.transform.members)) supplied.add(target);
  }

  lines.push(`/** Deprecated request fields the ${tool} normalizer translates. */`);
  if (fields.size === 0) lines.push('export interface DeprecatedFields {}');
  else {
    lines.push('export interface DeprecatedFields {');
    for (const [name, f] of fields) {
      lines.push(`  /** Deprecated: translated by ${f.rules.map(commentText).join(', ')}. */`);
      lines.push(`  ${tsKey(name)}?: ${f.type};`);
    }
    lines.push('}');
  }
  lines.push('');
  lines.push('/** `T` with the keys `K` optional, distributed over unions, index signatures kept. */');
  lines.push('type WithOptional<T, K extends PropertyKey> = T extends unknown');
  lines.push('  ? { [P in keyof T as P extends K ? never : P]: T[P] } & { [P in keyof T as P extends K ? P : never]?: T[P] }');
  lines.push('  : never;');
  lines.push('');
  const optional = supplied.size === 0 ? 'never' : [...supplied].sort().map((n) => jsLiteral(n)).join(' | ');
  lines.push(`/** What a caller may send: the current request, its deprecated fields, and the fields they supply made optional. */`);
  lines.push(`export type NormalizeInput = WithOptional<${request}, ${optional}> & DeprecatedFields;`);
  lines.push('');
  lines.push('/** What the handler gets (after validation confirms it): the current request type. */');
  lines.push(`export type NormalizeOutput = ${request};`);
  lines.push('');
  lines.push('export declare function normalize(data: NormalizeInput): { value: NormalizeOutput; applied: AppliedNormalization[] };');
  return lines.join('\n') + '\n';
}


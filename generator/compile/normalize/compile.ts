import { typeName } from '../types/index.js';
import { CodegenError, escapeToken } from '../../shared/index.js';
import type { EmittedFile, InputRef, JsonType, NormalizationRule, Release } from '../../load/index.js';
import { ruleInput, type NormalizationPlan } from './plan.js';

/**
 * Compiles a normalization plan into one CommonJS module per tool (`releases/<key>/normalize/<tool>.cjs`,
 * `module.exports = { normalize }`, runtime/contract.ts NormalizeFn) plus its typed declaration (`.d.cts`).
 *
 * The module is straight-line code: one block per rule, in plan order, nested under the containers the rules
 * name; no rule table is read at run time. Copy-on-write all the way: the input is never mutated, untouched
 * subtrees are shared, and a payload with nothing to translate comes back as the very same object.
 *
 * Conflict policy (one for all rules): when the current field is already present it wins, the deprecated field
 * is removed, and the conflict is reported in `applied`. A deprecated value the rule cannot translate (wrong
 * type, not a URL, an object with members the rule does not know) is left in place for validation to reject —
 * with or without the current field beside it.
 */
export function compileNormalizers(release: Release, plan: NormalizationPlan, tools?: readonly string[]): EmittedFile[] {
  const names = tools ?? [...release.tools.keys()].filter((n) => !release.unavailable.has(n));
  const out: EmittedFile[] = [];
  for (const tool of [...names].sort()) {
    const def = release.tools.get(tool);
    if (def === undefined) throw new CodegenError(`${release.label}/manifest.json`, '/tools', `no tool ${JSON.stringify(tool)} in this release`);
    const missing = release.unavailable.get(tool);
    if (missing !== undefined) throw new CodegenError(`${release.label}/manifest.json`, `/tools/${escapeToken(tool)}`, missing);
    const rules = plan.emitted.filter((p) => p.tool === tool).map((p) => p.rule);
    const schema = release.schemas.byPath.get(def.requestSchema);
    const inputs: InputRef[] = [];
    if (schema !== undefined) inputs.push({ name: `${release.label}:${schema.path}`, hash: schema.hash });
    for (const rule of rules) {
      const input = ruleInput(rule);
      if (!inputs.some((i) => i.name === input.name)) inputs.push(input);
    }
    const base = `releases/${release.key}/normalize/${tool}`;
    out.push({ path: `${base}.cjs`, contents: moduleSource(release, tool, rules), inputs });
    out.push({ path: `${base}.d.cts`, contents: declarationSource(release, tool, rules), inputs });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// JavaScript

/** A JS literal for any JSON value; U+2028/U+2029 are escaped so the literal is valid in every engine. */
function lit(value: unknown): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** Text for a `//` comment: one line, nothing that could end a comment or a line. */
function commentText(s: string): string {
  return s.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/\*\//g, '*\\/');
}

function assertSafeKey(rule: NormalizationRule, key: string): void {
  // The rule format already refuses these; generated code must never depend on that alone.
  if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
    throw new CodegenError(rule.file, rule.pointer, `property name ${JSON.stringify(key)} is not allowed in a rule`);
  }
}

/** Container paths as a tree, so rules under the same container share one traversal. */
interface ContainerNode {
  readonly token?: string;
  readonly rules: NormalizationRule[];
  readonly children: ContainerNode[];
}

function containerTree(rules: readonly NormalizationRule[]): ContainerNode {
  const root: ContainerNode = { rules: [], children: [] };
  for (const rule of rules) {
    let node = root;
    for (const token of rule.at) {
      if (token !== '*') assertSafeKey(rule, token);
      let child = node.children.find((c) => c.token === token);
      if (child === undefined) {
        child = { token, rules: [], children: [] };
        node.children.push(child);
      }
      node = child;
    }
    node.rules.push(rule);
  }
  return root;
}

class Writer {
  private readonly lines: string[] = [];
  private depth = 0;
  line(text = ''): void {
    this.lines.push(text === '' ? '' : '  '.repeat(this.depth) + text);
  }
  open(text: string): void {
    this.line(text);
    this.depth++;
  }
  close(text = '}'): void {
    this.depth--;
    this.line(text);
  }
  /** `} else {` and the like: closes one block and opens the next at the same depth. */
  mid(text: string): void {
    this.depth--;
    this.line(text);
    this.depth++;
  }
  toString(): string {
    return this.lines.join('\n') + '\n';
  }
}

function moduleSource(release: Release, tool: string, rules: readonly NormalizationRule[]): string {
  const w = new Writer();
  w.line("'use strict';");
  w.line(`// Normalizer for ${commentText(tool)}, AdCP ${commentText(release.version)}: deprecated request fields translated into`);
  w.line('// their current form, compiled from the normalization rules. Never mutates its input.');
  if (rules.length === 0) {
    w.line('// No rule applies to this tool in this release: the request is returned as it is.');
    w.line();
    w.open('function normalize(data) {');
    w.line('return { value: data, applied: [] };');
    w.close();
    w.line();
    w.line('module.exports = { normalize };');
    return w.toString();
  }
  w.line(`// Rules: ${rules.map((r) => r.id).join(', ')}.`);
  w.line();
  emitHelpers(w, rules);
  w.open('function normalize(data) {');
  w.line('const applied = [];');
  w.line('if (!isObject(data)) return { value: data, applied };');
  w.line('let node0 = data;');
  w.line("const base0 = '';");
  emitContainer(w, containerTree(rules), 0);
  w.line('return { value: node0, applied };');
  w.close();
  w.line();
  w.line('module.exports = { normalize };');
  return w.toString();
}

function emitHelpers(w: Writer, rules: readonly NormalizationRule[]): void {
  w.line('const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);');
  w.line("const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);");
  w.line();
  w.line('// Shallow copies: spread and defineProperty create own data properties, so a hostile key such as');
  w.line('// "__proto__" in a payload stays plain data and never reaches a prototype.');
  w.open('function without(o, key) {');
  w.line('const copy = { ...o };');
  w.line('delete copy[key];');
  w.line('return copy;');
  w.close();
  w.open('function withMember(o, key, value) {');
  w.line('const copy = { ...o };');
  w.line('Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });');
  w.line('return copy;');
  w.close();
  if (rules.some((r) => r.transform.kind === 'url-to-domain')) {
    w.line();
    w.line('// The lower-cased host name of an http(s) URL when it is a valid AdCP domain, else undefined (left for validation).');
    w.line('const DOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;');
    w.open('function domainOf(url) {');
    w.line("if (typeof url !== 'string') return undefined;");
    w.line('let parsed;');
    w.open('try {');
    w.line('parsed = new URL(url);');
    w.mid('} catch {');
    w.line('return undefined;');
    w.close();
    w.line("if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;");
    w.line('const host = parsed.hostname.toLowerCase();');
    w.line('return DOMAIN.test(host) ? host : undefined;');
    w.close();
  }
  w.line();
}

/**
 * Emits the rules of one container, then descends into its child containers. `depth` numbers the variables:
 * `node<d>` is the (possibly copied) container object, `base<d>` its JSON pointer in the input.
 */
function emitContainer(w: Writer, container: ContainerNode, depth: number): void {
  const node = `node${depth}`;
  const base = `base${depth}`;
  for (const rule of container.rules) emitRule(w, rule, node, base);
  for (const child of container.children) {
    const d = depth + 1;
    const token = child.token!;
    if (token === '*') {
      const list = `list${d}`;
      const copy = `copy${d}`;
      const index = `i${d}`;
      const before = `before${d}`;
      w.line(`// Every element of ${commentText(container.token ?? 'the request')}; a non-object element is left for validation to reject.`);
      w.open(`if (Array.isArray(${node})) {`);
      w.line(`const ${list} = ${node};`);
      w.line(`let ${copy};`);
      w.open(`for (let ${index} = 0; ${index} < ${list}.length; ${index}++) {`);
      w.line(`const ${before} = ${list}[${index}];`);
      w.line(`if (!isObject(${before})) continue;`);
      w.line(`let node${d} = ${before};`);
      w.line(`const base${d} = ${base} + '/' + ${index};`);
      emitContainer(w, child, d);
      w.open(`if (node${d} !== ${before}) {`);
      w.line(`if (${copy} === undefined) ${copy} = ${list}.slice();`);
      w.line(`${copy}[${index}] = node${d};`);
      w.close();
      w.close();
      w.line(`if (${copy} !== undefined) ${node} = ${copy};`);
      w.close();
      continue;
    }
    const before = `before${d}`;
    const key = lit(token);
    // An array container (`packages`) is entered as a value; its `*` child iterates it.
    const descendsIntoArray = child.children.some((c) => c.token === '*') && child.rules.length === 0;
    const guard = descendsIntoArray ? `Array.isArray(${node}[${key}])` : `isObject(${node}[${key}])`;
    w.open(`if (hasOwn(${node}, ${key}) && ${guard}) {`);
    w.line(`const ${before} = ${node}[${key}];`);
    w.line(`let node${d} = ${before};`);
    w.line(`const base${d} = ${base} + ${lit('/' + escapeToken(token))};`);
    emitContainer(w, child, d);
    w.line(`if (node${d} !== ${before}) ${node} = withMember(${node}, ${key}, node${d});`);
    w.close();
  }
}

function acceptsCheck(types: readonly JsonType[] | undefined, v: string): string | undefined {
  if (types === undefined) return undefined;
  const checks = types.map((t) => {
    switch (t) {
      case 'string':
        return `typeof ${v} === 'string'`;
      case 'number':
        return `typeof ${v} === 'number'`;
      case 'integer':
        return `Number.isInteger(${v})`;
      case 'boolean':
        return `typeof ${v} === 'boolean'`;
      case 'object':
        return `isObject(${v})`;
      case 'array':
        return `Array.isArray(${v})`;
      case 'null':
        return `${v} === null`;
    }
  });
  return checks.length === 1 ? checks[0] : `(${checks.join(' || ')})`;
}

/** `node["a"]["b"]` for a path. */
function access(node: string, path: readonly string[]): string {
  return node + path.map((k) => `[${lit(k)}]`).join('');
}

/** Whether the full target path is present (every intermediate an object). */
function presentExpr(node: string, path: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const parent = access(node, path.slice(0, i));
    if (i > 0) parts.push(`isObject(${parent})`);
    parts.push(`hasOwn(${parent}, ${lit(path[i])})`);
  }
  return parts.join(' && ');
}

/** Whether an intermediate of the target path exists but is not an object: nowhere to put the value. */
function blockedExpr(node: string, path: readonly string[]): string | undefined {
  const parts: string[] = [];
  for (let i = 0; i < path.length - 1; i++) {
    const prefix: string[] = [];
    for (let j = 0; j <= i; j++) {
      if (j > 0) prefix.push(`isObject(${access(node, path.slice(0, j))})`);
      prefix.push(`hasOwn(${access(node, path.slice(0, j))}, ${lit(path[j])})`);
    }
    prefix.push(`!isObject(${access(node, path.slice(0, i + 1))})`);
    parts.push(prefix.length === 1 ? prefix[0]! : `(${prefix.join(' && ')})`);
  }
  return parts.length === 0 ? undefined : parts.join(' || ');
}

/** `withMember(o, "a", withMember(o.a or {}, "b", value))`: sets a nested path by copying along it. */
function setExpr(target: string, original: string, path: readonly string[], value: string): string {
  const [head, ...rest] = path;
  if (rest.length === 0) return `withMember(${target}, ${lit(head)}, ${value})`;
  const inner = access(original, [head!]);
  const existing = `(hasOwn(${original}, ${lit(head)}) ? ${inner} : {})`;
  return `withMember(${target}, ${lit(head)}, ${setExpr(existing, inner, rest, value)})`;
}

function pointerOf(base: string, path: readonly string[]): string {
  return `${base} + ${lit(path.map((k) => '/' + escapeToken(k)).join(''))}`;
}

/** `node` without the property at `path`, copying each object along the way (the parents stay, even if emptied). */
function removeExpr(node: string, path: readonly string[]): string {
  const [head, ...rest] = path;
  if (rest.length === 0) return `without(${node}, ${lit(head)})`;
  return `withMember(${node}, ${lit(head)}, ${removeExpr(access(node, [head!]), rest)})`;
}

function emitRule(w: Writer, rule: NormalizationRule, node: string, base: string): void {
  for (const k of [...rule.from, ...(rule.to ?? [])]) assertSafeKey(rule, k);
  const t = rule.transform;
  const fromPtr = pointerOf(base, rule.from);
  const removed = removeExpr(node, rule.from);
  const id = lit(rule.id);
  // The rule file by name only: generated code never carries a path of the machine that generated it.
  const origin = `${rule.file.split(/[\\/]/).pop()}#${rule.pointer}`;
  w.line(`// ${commentText(rule.id)} (${commentText(origin)})${rule.summary === undefined ? '' : `: ${commentText(rule.summary)}`}`);
  w.open(`if (${presentExpr(node, rule.from)}) {`);
  w.line(`const deprecated = ${access(node, rule.from)};`);

  if (t.kind === 'drop') {
    w.line(`${node} = ${removed};`);
    w.line(`applied.push({ rule: ${id}, from: ${fromPtr}, to: '', reason: ${lit(t.reason)} });`);
    w.close();
    return;
  }

  if (t.kind === 'unwrap') {
    const members = Object.entries(t.members);
    for (const [m, target] of members) {
      assertSafeKey(rule, m);
      assertSafeKey(rule, target);
    }
    const known = members.map(([m]) => `k === ${lit(m)}`).join(' || ');
    w.line('// Only an object whose members all have a place moves; anything else stays for validation.');
    w.open(`if (isObject(deprecated) && Object.keys(deprecated).length > 0 && Object.keys(deprecated).every((k) => ${known})) {`);
    w.line(`${node} = ${removed};`);
    for (const [m, target] of members) {
      const entry = `rule: ${id}, from: ${pointerOf(base, [...rule.from, m])}, to: ${pointerOf(base, [target])}`;
      w.open(`if (hasOwn(deprecated, ${lit(m)})) {`);
      w.open(`if (hasOwn(${node}, ${lit(target)})) {`);
      w.line(`applied.push({ ${entry}, conflict: true });`);
      w.mid('} else {');
      w.line(`${node} = withMember(${node}, ${lit(target)}, deprecated[${lit(m)}]);`);
      w.line(`applied.push({ ${entry} });`);
      w.close();
      w.close();
    }
    w.close();
    w.close();
    return;
  }

  const to = rule.to!;
  const entry = `rule: ${id}, from: ${fromPtr}, to: ${pointerOf(base, to)}`;
  // Only a deprecated value the rule can translate takes part: a malformed one stays where it is for validation to
  // reject, whether or not the current field is there too. That keeps the policy one rule and normalization
  // idempotent (a second pass finds exactly what the first left).
  const accepts = acceptsCheck(rule.accepts, 'deprecated');
  if (accepts !== undefined) w.open(`if (${accepts}) {`);
  const value = transformValue(rule, w);
  if (value.guard !== undefined) w.open(`if (${value.guard}) {`);
  w.open(`if (${presentExpr(node, to)}) {`);
  w.line('// The current field wins; the deprecated one goes, and the conflict is reported.');
  w.line(`${node} = ${removed};`);
  w.line(`applied.push({ ${entry}, conflict: true });`);
  const blocked = blockedExpr(node, to);
  w.mid(blocked === undefined ? '} else {' : `} else if (!(${blocked})) {`);
  // The loader refuses a nested source that shares its parent with the target, so reading the target's parents
  // from the original container cannot bring the removed source back.
  w.line(`${node} = ${setExpr(removed, node, to, value.expr)};`);
  w.line(`applied.push({ ${entry} });`);
  w.close();
  if (value.guard !== undefined) w.close();
  if (accepts !== undefined) w.close();
  w.close();
}

/** The current value built from `deprecated`, with the condition under which the rule can build it. */
function transformValue(rule: NormalizationRule, w: Writer): { expr: string; guard?: string } {
  const t = rule.transform;
  switch (t.kind) {
    case 'rename':
    case 'move':
    case 'move-into-ext':
      return { expr: 'deprecated' };
    case 'wrap-array':
      // A deprecated singular field holding an array is not the shape this rule knows.
      return { expr: '[deprecated]', guard: rule.accepts?.includes('array') ? '!Array.isArray(deprecated)' : undefined };
    case 'wrap-object': {
      assertSafeKey(rule, t.key);
      if (t.pick !== undefined) assertSafeKey(rule, t.pick);
      const members: string[] = [];
      for (const [k, v] of Object.entries(t.const ?? {})) {
        assertSafeKey(rule, k);
        members.push(`${lit(k)}: ${lit(v)}`);
      }
      if (t.pick === undefined) {
        members.push(`${lit(t.key)}: deprecated`);
        return { expr: `{ ${members.join(', ')} }` };
      }
      const pick = lit(t.pick);
      members.push(`${lit(t.key)}: deprecated[${pick}]`);
      // Only an object holding nothing but the picked member: other members would be lost silently.
      return {
        expr: `{ ${members.join(', ')} }`,
        guard: `isObject(deprecated) && Object.keys(deprecated).length === 1 && hasOwn(deprecated, ${pick})`,
      };
    }
    case 'url-to-domain': {
      const source =
        t.urlMember === undefined ? 'deprecated' : `(isObject(deprecated) ? (hasOwn(deprecated, ${lit(t.urlMember)}) ? deprecated[${lit(t.urlMember)}] : undefined) : deprecated)`;
      w.line(`const domain = domainOf(${source});`);
      return { expr: '{ domain }', guard: 'domain !== undefined' };
    }
    case 'unwrap':
    case 'drop':
      throw new CodegenError(rule.file, rule.pointer, `${t.kind} has no single target value`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Declarations

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
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : lit(name);
}

function declarationSource(release: Release, tool: string, rules: readonly NormalizationRule[]): string {
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
  const optional = supplied.size === 0 ? 'never' : [...supplied].sort().map(lit).join(' | ');
  lines.push(`/** What a caller may send: the current request, its deprecated fields, and the fields they supply made optional. */`);
  lines.push(`export type NormalizeInput = WithOptional<${request}, ${optional}> & DeprecatedFields;`);
  lines.push('');
  lines.push('/** What the handler gets (after validation confirms it): the current request type. */');
  lines.push(`export type NormalizeOutput = ${request};`);
  lines.push('');
  lines.push('export declare function normalize(data: NormalizeInput): { value: NormalizeOutput; applied: AppliedNormalization[] };');
  return lines.join('\n') + '\n';
}

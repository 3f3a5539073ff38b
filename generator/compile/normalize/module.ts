import { escapeToken } from '../../shared/index.js';
import type { NormalizationRule, Release } from '../../load/index.js';
import { emitRule } from './transforms.js';
import { commentText, jsLiteral } from '../../shared/index.js';
import { assertSafeKey, Writer } from '../codegen/index.js';

/**
 * The normalizer module of one tool (`releases/<key>/normalize/<tool>.cjs`): shared helpers, then one traversal per
 * container the rules name, each rule's block (transforms.ts) under its container, in plan order.
 */

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


export function moduleSource(release: Release, tool: string, rules: readonly NormalizationRule[]): string {
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
    const key = jsLiteral(token);
    // An array container (`packages`) is entered as a value; its `*` child iterates it.
    const descendsIntoArray = child.children.some((c) => c.token === '*') && child.rules.length === 0;
    const guard = descendsIntoArray ? `Array.isArray(${node}[${key}])` : `isObject(${node}[${key}])`;
    w.open(`if (hasOwn(${node}, ${key}) && ${guard}) {`);
    w.line(`const ${before} = ${node}[${key}];`);
    w.line(`let node${d} = ${before};`);
    w.line(`const base${d} = ${base} + ${jsLiteral('/' + escapeToken(token))};`);
    emitContainer(w, child, d);
    w.line(`if (node${d} !== ${before}) ${node} = withMember(${node}, ${key}, node${d});`);
    w.close();
  }
}


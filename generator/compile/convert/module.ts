import { commentText, escapeToken, jsLiteral, sha256, shortHash } from '../../shared/index.js';
import { assertSafeKey, Writer } from '../codegen/index.js';
import type { ConversionPlan, Step, ToolConversion } from './plan.js';
import { Constants, emitStep } from './steps.js';

/**
 * The conversion module of one tool and pair of releases (`releases/<older>/convert/<newer>/<tool>.cjs`): a
 * `response(body, request)` taking a body in the newer release's shape toward the older one, and a `request(args)`
 * taking an older request toward the newer one, each straight-line code compiled from the plan's steps, nested under
 * the containers they name (children first, so an element's own rules see what its members' rules left). Copy-on-
 * write throughout, as the normalizers: the input is never mutated, untouched subtrees are shared, and a body with
 * nothing to convert comes back as the very same object.
 */

/** The helpers every conversion module requires, content-addressed under `convert/`: one file for every pair. */
export const SUPPORT_SOURCE = `'use strict';
// Helpers of the compiled conversions (releases/<older>/convert/<newer>/<tool>.cjs): copy-on-write members and JSON
// value comparison. Spread and defineProperty make own data properties, so a key such as "__proto__" in a payload
// stays data and never reaches a prototype.
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
function without(o, key) {
  const copy = { ...o };
  delete copy[key];
  return copy;
}
function withMember(o, key, value) {
  const copy = { ...o };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}
/** JSON equality: the values rules name are JSON. */
function sameValue(a, b) {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => hasOwn(b, k) && sameValue(a[k], b[k]));
  }
  return false;
}
function oneOf(v, list) {
  for (const x of list) if (sameValue(v, x)) return true;
  return false;
}
module.exports = { hasOwn, isObject, without, withMember, sameValue, oneOf };
`;

const HELPERS = ['hasOwn', 'isObject', 'without', 'withMember', 'sameValue', 'oneOf'] as const;

export const SUPPORT_PATH = `convert/support.${shortHash(sha256(SUPPORT_SOURCE))}.cjs`;

/** The conversion of every tool no rule applies to, in every pair: one content-addressed file. */
export const IDENTITY_SOURCE = `'use strict';
// The conversion of a tool no conversion rule applies to between two releases: deep-strip alone converts its answers.
// Returns its input as it is.
function response(data) {
  return { value: data, applied: [] };
}
function request(data) {
  return { value: data, applied: [] };
}
module.exports = { response, request };
`;

export const IDENTITY_PATH = `convert/none.${shortHash(sha256(IDENTITY_SOURCE))}.cjs`;

interface Container {
  readonly token?: string;
  readonly steps: Step[];
  readonly children: Container[];
}

function containerTree(steps: readonly Step[]): Container {
  const root: Container = { steps: [], children: [] };
  for (const step of steps) {
    let node = root;
    for (const token of step.container) {
      if (token !== '*') assertSafeKey(step.rule, token);
      let child = node.children.find((c) => c.token === token);
      if (child === undefined) node.children.push((child = { token, steps: [], children: [] }));
      node = child;
    }
    node.steps.push(step);
  }
  return root;
}

/**
 * Containers whose steps repeat at several places (a delivery report's twelve breakdowns all holding delivery
 * metrics) are emitted once, as a function each place calls: `(node, base, applied, requested) → node`, undefined when
 * the container itself is dropped. A container with a `refuse` step stays inline, since a refusal ends the whole
 * conversion.
 */
class Shared {
  private readonly keys = new WeakMap<Container, string>();
  private readonly names = new Map<string, string>();
  readonly functions: { name: string; container: Container; places: string[] }[] = [];

  constructor(trees: readonly Container[]) {
    const counts = new Map<string, number>();
    const visit = (c: Container): void => {
      for (const child of c.children) {
        const k = this.key(child);
        counts.set(k, (counts.get(k) ?? 0) + 1);
        visit(child);
      }
    };
    trees.forEach(visit);
    for (const [k, n] of counts) if (n > 1 && !k.includes('"refuse"')) this.names.set(k, `at${this.names.size + 1}`);
  }

  key(c: Container): string {
    let k = this.keys.get(c);
    if (k === undefined) {
      const steps = c.steps.map((s) => [s.rule.id, s.rule.transform.kind, s.field, s.target ?? null, s.admitted ?? null, s.elements ?? false]);
      this.keys.set(c, (k = JSON.stringify([steps, c.children.map((g) => [g.token, this.key(g)])])));
    }
    return k;
  }

  /** The function emitting `c`, when it is one of the repeated containers; `place` is recorded for its comment. */
  nameFor(c: Container, place: string): string | undefined {
    const name = this.names.get(this.key(c));
    if (name === undefined) return undefined;
    let f = this.functions.find((x) => x.name === name);
    if (f === undefined) this.functions.push((f = { name, container: c, places: [] }));
    if (!f.places.includes(place)) f.places.push(place);
    return name;
  }
}

export function moduleSource(plan: ConversionPlan, conversion: ToolConversion, supportFrom: string): string {
  const consts = new Constants();
  const body = new Writer();
  const responses = containerTree(conversion.responses);
  const requests = containerTree(conversion.requests);
  const shared = new Shared([responses, requests]);
  const ctx: Context = { consts, shared };
  emitFunction(body, 'response', 'data, requested', conversion.responses, responses, ctx, `A ${conversion.tool} response in AdCP ${plan.newer.version}'s shape, converted for a buyer pinned to AdCP ${plan.older.version} (whose deep-strip runs after); \`requested\`: the buyer's request.`);
  body.line();
  emitFunction(body, 'request', 'data', conversion.requests, requests, ctx, `A ${conversion.tool} request of AdCP ${plan.older.version} (validated there), converted for the AdCP ${plan.newer.version} handler (its normalizer and deep-strip run after).`);
  // The shared containers' functions, each emitted once (emitting one may name another, nested in it).
  for (let i = 0; i < shared.functions.length; i++) {
    const f = shared.functions[i]!;
    const fw = new Writer();
    fw.line();
    fw.line(`/** The rules at ${commentText(f.places.join(', '))}: the container's new value, undefined when it is dropped. */`);
    fw.open(`function ${f.name}(node0, base0, applied, requested) {`);
    const drops = f.container.steps.some((st) => st.rule.transform.kind === 'drop-parent');
    if (drops) fw.line('let drop0 = false;');
    emitContainer(fw, f.container, 0, ctx, '');
    fw.line(drops ? 'return drop0 ? undefined : node0;' : 'return node0;');
    fw.close();
    body.raw(fw.toString());
  }
  const ids = [...new Set([...conversion.responses, ...conversion.requests].map((s) => s.rule.id))];
  const w = new Writer();
  w.line("'use strict';");
  w.line(`// Conversions of ${commentText(conversion.tool)} between AdCP ${commentText(plan.newer.version)} (the handler's release) and AdCP ${commentText(plan.older.version)} (the buyer's),`);
  w.line('// compiled from the conversion rules. Never mutates its input.');
  w.line(ids.length === 0 ? '// No rule applies to this tool between these releases: deep-strip alone converts it.' : `// Rules: ${commentText(ids.join(', '))}.`);
  // Only the helpers the code calls, so a reader sees what it relies on.
  const code = body.toString();
  const used = HELPERS.filter((h) => new RegExp(`\\b${h}\\(`).test(code));
  w.line(`const { ${used.join(', ')} } = require(${jsLiteral(supportFrom)});`);
  const constants = consts.lines();
  if (constants.length > 0) {
    w.line();
    for (const c of constants) w.line(c);
  }
  return `${w.toString()}\n${code}\nmodule.exports = { response, request };\n`;
}

interface Context {
  readonly consts: Constants;
  readonly shared: Shared;
}

function emitFunction(w: Writer, name: string, params: string, steps: readonly Step[], tree: Container, ctx: Context, doc: string): void {
  w.line(`/** ${commentText(doc)} */`);
  w.open(`function ${name}(${params}) {`);
  w.line('const applied = [];');
  if (steps.length === 0) {
    w.line('return { value: data, applied };');
    w.close();
    return;
  }
  // The request conversion has no buyer's request beside it: a shared container's `requested` is undefined there.
  if (!params.includes('requested')) w.line('const requested = undefined;');
  w.line('if (!isObject(data)) return { value: data, applied };');
  w.line('let node0 = data;');
  w.line("const base0 = '';");
  emitContainer(w, tree, 0, ctx, '');
  w.line('return { value: node0, applied };');
  w.close();
}

/**
 * One container: its children first, then its own steps. `node<d>` is the (possibly copied) object, `base<d>` its
 * pointer in the input; inside an array, `drop<d>` marks the element for removal.
 */
function emitContainer(w: Writer, c: Container, depth: number, ctx: Context, place: string): void {
  const { consts } = ctx;
  const node = `node${depth}`;
  const base = `base${depth}`;
  for (const child of c.children) {
    const d = depth + 1;
    const childPlace = place === '' ? child.token! : `${place}/${child.token!}`;
    const fn = ctx.shared.nameFor(child, childPlace);
    const mayDrop = child.steps.some((s) => s.rule.transform.kind === 'drop-parent');
    if (fn !== undefined && child.token === '*') {
      w.line(`// Every element (${commentText(fn)}); a non-object element is left as it is.`);
      w.open(`if (Array.isArray(${node})) {`);
      w.line(`const list${d} = ${node};`);
      w.line(`let copy${d};`);
      w.open(`for (let i${d} = 0; i${d} < list${d}.length; i${d}++) {`);
      w.line(`const before${d} = list${d}[i${d}];`);
      w.line(`const next${d} = isObject(before${d}) ? ${fn}(before${d}, ${base} + '/' + i${d}, applied, requested) : before${d};`);
      w.line(`if (copy${d} === undefined && next${d} !== before${d}) copy${d} = list${d}.slice(0, i${d});`);
      w.line(`if (copy${d} !== undefined${mayDrop ? ` && next${d} !== undefined` : ''}) copy${d}.push(next${d});`);
      w.close();
      w.line(`if (copy${d} !== undefined) ${node} = copy${d};`);
      w.close();
      continue;
    }
    if (fn !== undefined) {
      const key = jsLiteral(child.token!);
      const intoArray = child.children.some((g) => g.token === '*') && child.steps.length === 0;
      w.open(`if (hasOwn(${node}, ${key}) && ${intoArray ? 'Array.isArray' : 'isObject'}(${node}[${key}])) {`);
      w.line(`const next${d} = ${fn}(${node}[${key}], ${base} + ${jsLiteral('/' + escapeToken(child.token!))}, applied, requested);`);
      if (mayDrop) w.line(`if (next${d} === undefined) ${node} = without(${node}, ${key});`);
      w.line(`${mayDrop ? 'else ' : ''}if (next${d} !== ${node}[${key}]) ${node} = withMember(${node}, ${key}, next${d});`);
      w.close();
      continue;
    }
    if (child.token === '*') {
      w.line('// Every element; a non-object element is left as it is.');
      w.open(`if (Array.isArray(${node})) {`);
      w.line(`const list${d} = ${node};`);
      w.line(`let copy${d};`);
      w.open(`for (let i${d} = 0; i${d} < list${d}.length; i${d}++) {`);
      w.line(`const before${d} = list${d}[i${d}];`);
      w.line(`let node${d} = before${d};`);
      const drops = child.steps.some((s) => s.rule.transform.kind === 'drop-parent');
      if (drops) w.line(`let drop${d} = false;`);
      w.open(`if (isObject(before${d})) {`);
      w.line(`const base${d} = ${base} + '/' + i${d};`);
      emitContainer(w, child, d, ctx, childPlace);
      w.close();
      const changed = drops ? `drop${d} || node${d} !== before${d}` : `node${d} !== before${d}`;
      w.line(`if (copy${d} === undefined && (${changed})) copy${d} = list${d}.slice(0, i${d});`);
      w.line(`if (copy${d} !== undefined${drops ? ` && !drop${d}` : ''}) copy${d}.push(node${d});`);
      w.close();
      w.line(`if (copy${d} !== undefined) ${node} = copy${d};`);
      w.close();
      continue;
    }
    const key = jsLiteral(child.token!);
    const intoArray = child.children.some((g) => g.token === '*') && child.steps.length === 0;
    const drops = child.steps.some((s) => s.rule.transform.kind === 'drop-parent');
    w.open(`if (hasOwn(${node}, ${key}) && ${intoArray ? 'Array.isArray' : 'isObject'}(${node}[${key}])) {`);
    w.line(`const before${d} = ${node}[${key}];`);
    w.line(`let node${d} = before${d};`);
    if (drops) w.line(`let drop${d} = false;`);
    w.line(`const base${d} = ${base} + ${jsLiteral('/' + escapeToken(child.token!))};`);
    emitContainer(w, child, d, ctx, childPlace);
    if (drops) w.line(`if (drop${d}) ${node} = without(${node}, ${key});`);
    w.line(`${drops ? 'else ' : ''}if (node${d} !== before${d}) ${node} = withMember(${node}, ${key}, node${d});`);
    w.close();
  }
  for (const step of c.steps) emitStep(w, step, node, base, depth, consts);
}

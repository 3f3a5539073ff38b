import { commentText, escapeToken, jsLiteral, sha256, shortHash } from '../../shared/index.js';
import { access, assertSafeKey, blockedExpr, pointerOf, presentExpr, setExpr, Writer } from '../codegen/index.js';
import type { ConversionPlan, Step, ToolConversion } from './plan.js';

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

/** Module-level constants (value lists), named once per distinct literal. */
class Constants {
  private readonly byText = new Map<string, string>();
  name(values: readonly unknown[]): string {
    const text = jsLiteral(values);
    let n = this.byText.get(text);
    if (n === undefined) this.byText.set(text, (n = `VALUES_${this.byText.size + 1}`));
    return n;
  }
  lines(): string[] {
    return [...this.byText].map(([text, name]) => `const ${name} = ${text};`);
  }
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

function emitStep(w: Writer, step: Step, node: string, base: string, depth: number, consts: Constants): void {
  const { rule, field } = step;
  assertSafeKey(rule, field);
  for (const k of step.target ?? []) assertSafeKey(rule, k);
  const t = rule.transform;
  const f = jsLiteral(field);
  const value = `${node}[${f}]`;
  const id = jsLiteral(rule.id);
  const from = pointerOf(base, [field]);
  // The rule file by name only: generated code never carries a path of the machine that generated it.
  const origin = `${rule.file.split(/[\\/]/).pop()}#${rule.pointer}`;
  w.line(`// ${commentText(rule.id)} (${commentText(origin)})${rule.summary === undefined ? '' : `: ${commentText(rule.summary)}`}`);
  const unless = Object.entries(rule.unless ?? {}).map(([k, vs]) => {
    assertSafeKey(rule, k);
    return `(hasOwn(${node}, ${jsLiteral(k)}) && oneOf(${node}[${jsLiteral(k)}], ${consts.name(vs)}))`;
  });
  const guard = unless.length === 0 ? '' : ` && !(${unless.join(' || ')})`;
  switch (t.kind) {
    case 'rename':
    case 'move': {
      const target = step.target!;
      const entry = `rule: ${id}, from: ${from}, to: ${pointerOf(base, target)}`;
      const removed = `without(${node}, ${f})`;
      const blocked = blockedExpr(node, target);
      // An intermediate of the target that is there but not an object leaves nowhere to put the value: nothing moves.
      w.open(`if (hasOwn(${node}, ${f})${blocked === undefined ? '' : ` && !(${blocked})`}${guard}) {`);
      w.line(`const value = ${value};`);
      if (t.conflict === 'keep') {
        w.open(`if (${presentExpr(node, target)}) {`);
        w.line('// The field already there is kept; the value read goes.');
        w.line(`${node} = ${removed};`);
        w.line(`applied.push({ ${entry}, conflict: true });`);
        w.mid('} else {');
        w.line(`${node} = ${setExpr(removed, node, target, 'value')};`);
        w.line(`applied.push({ ${entry} });`);
        w.close();
      } else {
        w.line('// The value read replaces one already there, which meant something else in this release.');
        w.line(`const replaced = ${presentExpr(node, target)};`);
        w.line(`${node} = ${setExpr(removed, node, target, 'value')};`);
        w.line(`applied.push(replaced ? { ${entry}, conflict: true } : { ${entry} });`);
      }
      w.close();
      return;
    }
    case 'drop': {
      const reason = jsLiteral(t.reason);
      if (step.elements === true) {
        const admitted = consts.name(step.admitted!);
        w.open(`if (hasOwn(${node}, ${f}) && Array.isArray(${value})${guard}) {`);
        w.line(`const list = ${value};`);
        w.line(`const kept = list.filter((v) => oneOf(v, ${admitted}));`);
        w.open('if (kept.length !== list.length) {');
        w.line(`for (let i = 0; i < list.length; i++) if (!oneOf(list[i], ${admitted})) applied.push({ rule: ${id}, from: ${from} + '/' + i, to: '', reason: ${reason} });`);
        w.line(`${node} = withMember(${node}, ${f}, kept);`);
        w.close();
        w.close();
        return;
      }
      w.open(`if (hasOwn(${node}, ${f})${condition(step, value, consts)}${guard}) {`);
      w.line(`${node} = without(${node}, ${f});`);
      w.line(`applied.push({ rule: ${id}, from: ${from}, to: '', reason: ${reason} });`);
      w.close();
      return;
    }
    case 'drop-parent': {
      w.open(`if (${t.missing ? `!hasOwn(${node}, ${f})` : `hasOwn(${node}, ${f})${condition(step, value, consts)}`}${guard}) {`);
      w.line(`drop${depth} = true;`);
      w.line(`applied.push({ rule: ${id}, from: ${base}, to: '', reason: ${jsLiteral(t.reason)} });`);
      w.close();
      return;
    }
    case 'default': {
      w.open(`if (!hasOwn(${node}, ${f})${guard}) {`);
      w.line(`${node} = withMember(${node}, ${f}, ${jsLiteral(t.value)});`);
      w.line(`applied.push({ rule: ${id}, from: '', to: ${from} });`);
      w.close();
      return;
    }
    case 'map': {
      // One entry at most: the first whose `from` members all match.
      t.table.forEach((entry, i) => {
        const match = Object.entries(entry.from).map(([k, v]) => {
          assertSafeKey(rule, k);
          return `hasOwn(${node}, ${jsLiteral(k)}) && sameValue(${node}[${jsLiteral(k)}], ${jsLiteral(v)})`;
        });
        let next = node;
        for (const k of Object.keys(entry.from)) if (!Object.prototype.hasOwnProperty.call(entry.to, k)) next = `without(${next}, ${jsLiteral(k)})`;
        for (const [k, v] of Object.entries(entry.to)) {
          assertSafeKey(rule, k);
          next = `withMember(${next}, ${jsLiteral(k)}, ${jsLiteral(v)})`;
        }
        const head = `if (${match.join(' && ')}${guard}) {`;
        if (i === 0) w.open(head);
        else w.mid(`} else ${head}`);
        w.line(`${node} = ${next};`);
        w.line(`applied.push({ rule: ${id}, from: ${from}, to: ${from} });`);
      });
      w.close();
      return;
    }
    case 'refuse': {
      const when = t.missing ? `!hasOwn(${node}, ${f})` : t.present ? `hasOwn(${node}, ${f})` : `hasOwn(${node}, ${f}) && oneOf(${value}, ${consts.name(t.values!)})`;
      w.line(`if (${when}${guard}) return { value: data, applied, refused: ${jsLiteral(t.reason)} };`);
      return;
    }
    case 'pluck': {
      const target = step.target!;
      const m = jsLiteral(t.member);
      assertSafeKey(rule, t.member);
      w.open(`if (hasOwn(${node}, ${f}) && Array.isArray(${value}) && !hasOwn(${node}, ${jsLiteral(target[0])})${guard}) {`);
      w.line('const picked = [];');
      const admitted = step.admitted === undefined ? '' : ` && oneOf(e[${m}], ${consts.name(step.admitted)})`;
      w.line(`for (const e of ${value}) if (isObject(e) && hasOwn(e, ${m})${admitted} && !picked.some((x) => sameValue(x, e[${m}]))) picked.push(e[${m}]);`);
      w.line('// An empty list says "nothing allowed" only when the list read was empty too.');
      w.open(`if (picked.length > 0 || ${value}.length === 0) {`);
      w.line(`${node} = withMember(${node}, ${jsLiteral(target[0])}, picked);`);
      w.line(`applied.push({ rule: ${id}, from: ${from}, to: ${pointerOf(base, target)} });`);
      w.close();
      w.close();
      return;
    }
    case 'from-request': {
      for (const k of t.path) assertSafeKey(rule, k);
      w.open(`if (!hasOwn(${node}, ${f}) && isObject(requested) && ${presentExpr('requested', t.path)}${guard}) {`);
      w.line(`${node} = withMember(${node}, ${f}, ${access('requested', t.path)});`);
      w.line(`applied.push({ rule: ${id}, from: ${jsLiteral(t.path.map((k) => '/' + escapeToken(k)).join(''))}, to: ${from}, origin: 'request' });`);
      w.close();
      return;
    }
  }
}

/** ` && <when the step removes the value>`: always, one of the rule's values, or one the receiving release lacks. */
function condition(step: Step, value: string, consts: Constants): string {
  const t = step.rule.transform;
  if (t.kind !== 'drop' && t.kind !== 'drop-parent') return '';
  if (step.admitted !== undefined) return ` && !oneOf(${value}, ${consts.name(step.admitted)})`;
  if (t.values !== undefined) return ` && oneOf(${value}, ${consts.name(t.values)})`;
  return '';
}

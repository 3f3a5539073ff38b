import type { ArrayPlan, Branch, Group, ObjectPlan, Plan, Shape, UnionGroup } from './plan.js';
import type { Pred } from './predicates.js';
import { commentText, jsLiteral } from '../../shared/index.js';

/**
 * Turns one shape's plan (plan.ts, decided by analysis.ts) into one JavaScript function. Schema content reaches the code only
 * through `jsLiteral` (shared/js-literal.ts) and `comment`; names, consts and structure are all that
 * is emitted — no schema object.
 */
export interface CodegenScope {
  /** An expression naming the strip function of `shape` (`s_brand_ref`, `m_core_brand_ref.s_brand_ref`). */
  ref(shape: Shape): string;
  /** A module-level constant; returns its name. Equal initialisers share one name. */
  constant(prefix: string, init: string): string;
  /** How a shape is named in comments. */
  describe(shape: Shape): string;
}

export function comment(text: string): string {
  return '// ' + commentText(text);
}

const prop = (name: string): string => `v[${jsLiteral(name)}]`;

export function emitStripFunction(name: string, shape: Shape, plan: Plan, scope: CodegenScope): string {
  const body = plan.kind === 'dispatch' ? dispatchBody(plan.group, scope) : shapeBody(plan.object, plan.array, scope);
  // Decisions chain on the same value (a branch that is itself a union); h counts the links.
  const params = plan.kind === 'dispatch' ? 'v, c, d, h = 0' : 'v, c, d';
  return [comment(scope.describe(shape)), `function ${name}(${params}) {`, ...body.map((l) => '  ' + l), '}', ''].join('\n');
}

function shapeBody(object: ObjectPlan | undefined, array: ArrayPlan | undefined, scope: CodegenScope): string[] {
  const out = ['if (typeof v !== "object" || v === null) return v;'];
  const objectActive = object !== undefined && objectMatters(object);
  if (!objectActive && array === undefined) return [...out, 'return v;'];
  out.push('if (d > MAX_DEPTH) tooDeep(c, d);');
  if (array !== undefined) out.push('if (Array.isArray(v)) {', ...arrayBody(array, scope).map((l) => '  ' + l), '}');
  else out.push('if (Array.isArray(v)) return v;');
  if (!objectActive) return [...out, 'return v;'];
  return [...out, ...(visitsByName(object!) ? openBody(object!, scope) : objectBody(object!, scope))];
}

/** An open object whose unknown names need nothing: only its declared names with something below are visited. */
export function visitsByName(o: ObjectPlan): boolean {
  return !o.closed && o.additional === undefined && o.patterns.length === 0;
}

function openBody(o: ObjectPlan, scope: CodegenScope): string[] {
  const out = [comment('open object: only the declared names with something to strip below are visited'), 'let o, x, y;'];
  for (const [n, s] of o.names) {
    if (s === undefined) continue;
    out.push(
      // An absent name reads undefined (or an inherited value): only own properties are data.
      `if ((x = ${prop(n)}) !== undefined && hasOwn.call(v, ${jsLiteral(n)})) {`,
      `  c.k[d] = ${jsLiteral(n)};`,
      `  y = ${scope.ref(s)}(x, c, d + 1);`,
      '  if (y !== x) {',
      '    if (o === undefined) o = copy(v);',
      `    put(o, ${jsLiteral(n)}, y);`,
      '  }',
      '}',
    );
  }
  out.push('return o === undefined ? v : o;');
  return out;
}

export function objectMatters(o: ObjectPlan): boolean {
  return o.closed || o.additional !== undefined || o.names.some(([, s]) => s !== undefined) || o.patterns.some((p) => p.child !== undefined);
}

function arrayBody(a: ArrayPlan, scope: CodegenScope): string[] {
  const call = (s: Shape | undefined): string => (s === undefined ? 'x' : `${scope.ref(s)}(x, c, d + 1)`);
  let pick: string;
  if (a.prefix.length === 0) pick = call(a.rest);
  else pick = a.prefix.map((s, i) => `i === ${i} ? ${call(s)} : `).join('') + call(a.rest);
  return [
    'let o;',
    'for (let i = 0; i < v.length; i++) {',
    '  const x = v[i];',
    '  c.k[d] = i;',
    `  const y = ${pick};`,
    '  if (y !== x) {',
    '    if (o === undefined) o = v.slice();',
    '    o[i] = y;',
    '  }',
    '}',
    'return o === undefined ? v : o;',
  ];
}

/** Up to this many recognised names, a switch on the name itself; beyond, one Map lookup and a switch on its index. */
const SWITCH_ON_NAMES = 16;

function objectBody(o: ObjectPlan, scope: CodegenScope): string[] {
  const plain = o.names.filter(([, s]) => s === undefined).map(([n]) => n);
  const recognisePlain = o.closed || o.additional !== undefined || o.patterns.length > 0;
  const deep = o.names.filter(([, s]) => s !== undefined) as [string, Shape][];
  const recognised = (recognisePlain ? plain.length : 0) + deep.length;
  // for-in over own keys: no key array is allocated, and V8 reads `v[k]` through its enum cache.
  const out = ['let o;', 'for (const k in v) {', '  if (!hasOwn.call(v, k)) continue;', '  const x = v[k];', '  let y = x;'];
  const visit = (s: Shape): string[] => ['      c.k[d] = k;', `      y = ${scope.ref(s)}(x, c, d + 1);`, '      break;'];
  if (recognised <= SWITCH_ON_NAMES) {
    // Payload keys and these literals are both internalized strings: each case is a pointer comparison.
    out.push('  switch (k) {');
    if (recognisePlain && plain.length > 0) out.push(...plain.map((n) => `    case ${jsLiteral(n)}:`), '      break;');
    for (const [n, s] of deep) out.push(`    case ${jsLiteral(n)}:`, ...visit(s));
  } else {
    // Many names: one Map lookup, then a switch on small integers (0: declared, nothing to strip below).
    const entries: [string, number][] = recognisePlain ? plain.map((n) => [n, 0]) : [];
    deep.forEach(([n], i) => entries.push([n, i + 1]));
    out.push(`  switch (${scope.constant('names', `new Map(${jsLiteral(entries)})`)}.get(k)) {`);
    if (recognisePlain && plain.length > 0) out.push(`    case 0: ${comment(`${plain.length} declared names`)}`, '      break;');
    deep.forEach(([n, s], i) => out.push(`    case ${i + 1}: ${comment(n)}`, ...visit(s)));
  }
  out.push('    default:');
  const tail: string[] = [];
  if (o.patterns.length > 0) {
    tail.push('let matched = false;');
    for (const p of o.patterns) {
      const re = scope.constant('re', `new RegExp(${jsLiteral(p.source)}, "u")`);
      if (p.child === undefined) tail.push(`if (${re}.test(k)) matched = true;`);
      else tail.push(`if (${re}.test(k)) {`, '  matched = true;', '  c.k[d] = k;', `  y = ${scope.ref(p.child)}(y, c, d + 1);`, '}');
    }
    tail.push('if (matched) break;');
  }
  if (o.closed) {
    tail.push('// not declared here: an unknown field at a closed object', 'if (o === undefined) o = upTo(v, k);', 'c.removed.push(at(c, d, k));', 'continue;');
  } else if (o.additional !== undefined) {
    tail.push('c.k[d] = k;', `y = ${scope.ref(o.additional)}(x, c, d + 1);`);
  }
  out.push(...tail.map((l) => '      ' + l));
  if (!o.closed) out.push('      break;');
  out.push(
    '  }',
    '  if (o !== undefined) put(o, k, y);',
    '  else if (y !== x) {',
    '    o = upTo(v, k);',
    '    put(o, k, y);',
    '  }',
    '}',
    'return o === undefined ? v : o;',
  );
  return out;
}

// ── groups ────────────────────────────────────────────────────────────────────────────────────────────────────────

function dispatchBody(g: Group, scope: CodegenScope): string[] {
  const out = [
    'if (typeof v !== "object" || v === null) return v;',
    comment('a schema whose branches lead back to itself on the same value decides nothing'),
    'if (h > MAX_HOPS) {',
    '  c.undecided.push(at(c, d));',
    '  return v;',
    '}',
  ];
  const call = (b: Branch): string => (b.next.origins.length === 0 ? 'return v;' : `return ${scope.ref(b.next)}(v, c, d, h + 1);`);
  if (g.kind === 'dependency') {
    out.push(comment(`${g.property} present or not (dependencies)`));
    out.push(`if (!Array.isArray(v) && has(v, ${jsLiteral(g.property)})) ${call(g.branches[0])}`, call(g.branches[1]));
    return out;
  }
  if (g.kind === 'if') {
    if (g.pred === undefined) {
      out.push(comment('if/then/else whose condition cannot be evaluated here: nothing is stripped below'), 'c.undecided.push(at(c, d));', 'return v;');
      return out;
    }
    out.push(comment('if/then/else: strip by then when the value matches if, else by else'));
    out.push(`if (${predExpr(g.pred, 'v', scope, 0)}) ${call(g.branches[0])}`, call(g.branches[1]));
    return out;
  }
  if (g.branches.length > 30) {
    out.push(comment(`${g.kind} with more branches than this strip decides: nothing is stripped below`), 'c.undecided.push(at(c, d));', 'return v;');
    return out;
  }
  out.push(comment(`${g.kind}: the branch the value belongs to, by type, const/enum and required, then by declared names`));
  out.push(...unionPick(g, scope));
  out.push('switch (m) {');
  g.branches.forEach((b, i) => out.push(`  case ${1 << i}:`, `    ${call(b)}`));
  out.push('  default:', '    c.undecided.push(at(c, d));', '    return v;', '}');
  return out;
}

function unionPick(g: UnionGroup, scope: CodegenScope): string[] {
  const arrayMask = g.branches.reduce((m, b, i) => (admits(b, 'array') ? m | (1 << i) : m), 0);
  const closed = g.branches.reduce((m, b, i) => (b.evidence?.closed ? m | (1 << i) : m), 0);
  const names = scope.constant('names', `new Map(${jsLiteral(g.names ?? [])})`);
  const patterns = scope.constant('patterns', `[${(g.patterns ?? []).map(([s, m]) => `[new RegExp(${jsLiteral(s)}, "u"), ${m}]`).join(', ')}]`);
  const usesT = g.branches.some((b) => admits(b, 'object') && (b.evidence?.tags ?? []).some(([p]) => p.length > 1));
  const all = (skip?: string): string => g.branches.map((b, i) => `(${branchTest(b, scope, skip)} ? ${1 << i} : 0)`).join(' |\n      ');
  const key = switchTag(g);
  const stage1: string[] = [];
  if (key === undefined) stage1.push(`  m = ${all()};`);
  else {
    // A discriminator every branch pins to its own values: one switch on it, then only that branch's other checks.
    stage1.push(`  const tag = has(v, ${jsLiteral(key)}) ? ${prop(key)} : ABSENT;`, `  if (tag === ABSENT) m = ${all()};`, '  else {', '    switch (tag) {');
    g.branches.forEach((b, i) => {
      if (!admits(b, 'object')) return;
      const values = b.evidence!.tags.find(([p]) => p.length === 1 && p[0] === key)![1];
      for (const v of values) stage1.push(`      case ${jsLiteral(v)}:`);
      stage1.push(`        m = ${branchTest(b, scope, key)} ? ${1 << i} : 0;`, '        break;');
    });
    stage1.push('      default:', '        m = 0;', '    }', '  }');
  }
  return [
    usesT ? 'let m, t;' : 'let m;',
    `if (Array.isArray(v)) m = ${arrayMask};`,
    'else {',
    ...stage1,
    `  if ((m & (m - 1)) !== 0) m = byNames(v, m, ${closed}, ${names}, ${patterns});`,
    '}',
  ];
}

/** A top-level property every object-admitting branch constrains, to pairwise disjoint values. */
function switchTag(g: UnionGroup): string | undefined {
  const branches = g.branches.filter((b) => admits(b, 'object'));
  if (branches.length < 3) return undefined;
  const first = branches[0]!.evidence?.tags.filter(([p]) => p.length === 1).map(([p]) => p[0]!) ?? [];
  if (g.discriminator !== undefined && first.includes(g.discriminator)) first.unshift(g.discriminator);
  for (const name of first) {
    const sets = branches.map((b) => b.evidence?.tags.find(([p]) => p.length === 1 && p[0] === name)?.[1]);
    if (sets.some((x) => x === undefined)) continue;
    const seen = new Set<unknown>();
    let disjoint = true;
    for (const set of sets) for (const v of set!) disjoint &&= !seen.has(v) && (seen.add(v), true);
    if (disjoint) return name;
  }
  return undefined;
}

function admits(b: Branch, type: string): boolean {
  const t = b.evidence?.types;
  return t === undefined || t.includes(type);
}

/** Stage 1 for one branch: its const/enum tags first (they fail fastest), then required and forbidden names. */
function branchTest(b: Branch, scope: CodegenScope, skipTag?: string): string {
  if (!admits(b, 'object')) return 'false';
  const parts: string[] = [];
  for (const [path, values] of b.evidence?.tags ?? []) {
    if (path.length === 1 && path[0] === skipTag) continue;
    if (path.length === 1) parts.push(`(!has(v, ${jsLiteral(path[0])}) || ${oneOf(prop(path[0]!), values, scope)})`);
    else parts.push(`((t = dig(v, ${jsLiteral(path[0])}, ${jsLiteral(path[1])})) === ABSENT || ${oneOf('t', values, scope)})`);
  }
  for (const r of b.evidence?.required ?? []) parts.push(`has(v, ${jsLiteral(r)})`);
  for (const set of b.evidence?.forbidden ?? []) parts.push(`!(${set.map((n) => `has(v, ${jsLiteral(n)})`).join(' && ') || 'true'})`);
  return parts.length === 0 ? 'true' : parts.join(' && ');
}

function oneOf(expr: string, values: readonly unknown[], scope: CodegenScope): string {
  if (values.length === 0) return 'false';
  if (values.length <= 4) return `(${values.map((x) => `${expr} === ${jsLiteral(x)}`).join(' || ')})`;
  return `${scope.constant('values', `new Set(${jsLiteral(values)})`)}.has(${expr})`;
}

// ── if predicates ─────────────────────────────────────────────────────────────────────────────────────────────────

const TYPE_TESTS: Record<string, (x: string) => string> = {
  object: (x) => `isObj(${x})`,
  array: (x) => `Array.isArray(${x})`,
  string: (x) => `typeof ${x} === "string"`,
  number: (x) => `(typeof ${x} === "number" && Number.isFinite(${x}))`,
  integer: (x) => `Number.isInteger(${x})`,
  boolean: (x) => `typeof ${x} === "boolean"`,
  null: (x) => `${x} === null`,
};

/** JSON Schema truth of `p` for the value in variable `x` (evalPred in predicates.ts is the same, interpreted). */
function predExpr(p: Pred, x: string, scope: CodegenScope, depth: number): string {
  const isObj = TYPE_TESTS.object!(x);
  switch (p.k) {
    case 'true':
      return 'true';
    case 'false':
      return 'false';
    case 'and':
      return p.ps.length === 0 ? 'true' : `(${p.ps.map((q) => predExpr(q, x, scope, depth)).join(' && ')})`;
    case 'or':
      return p.ps.length === 0 ? 'false' : `(${p.ps.map((q) => predExpr(q, x, scope, depth)).join(' || ')})`;
    case 'one':
      return `(${p.ps.map((q) => `(${predExpr(q, x, scope, depth)} ? 1 : 0)`).join(' + ') || '0'}) === 1`;
    case 'not':
      return `!${predExpr(p.p, x, scope, depth)}`;
    case 'type':
      return `(${p.types.map((t) => (TYPE_TESTS[t] ?? (() => 'false'))(x)).join(' || ') || 'false'})`;
    case 'eq':
      return oneOf(x, p.values, scope);
    case 'required':
      return `(!${isObj} || (${p.names.map((n) => `has(${x}, ${jsLiteral(n)})`).join(' && ') || 'true'}))`;
    case 'prop':
      // Plain data has no getters: the member expression can stand in for the value wherever the test reads it.
      return `(!${isObj} || !has(${x}, ${jsLiteral(p.name)}) || ${predExpr(p.p, `${x}[${jsLiteral(p.name)}]`, scope, depth)})`;
    case 'pattern':
      return `(typeof ${x} !== "string" || ${scope.constant('re', `new RegExp(${jsLiteral(p.source)}, "u")`)}.test(${x}))`;
    case 'contains': {
      const y = `x${depth + 1}`;
      return `(!Array.isArray(${x}) || ${x}.some((${y}) => ${predExpr(p.p, y, scope, depth + 1)}))`;
    }
  }
}

import type { StripFn } from '../../../runtime/artifacts/contract.js';
import type { JsonSchema } from '../../load/index.js';
import { StripAnalyzer } from './analysis.js';
import type { Group, Plan, Shape } from './plan.js';
import { localResolver, type Resolver } from './schema-nodes.js';
import { objectMatters, visitsByName } from './codegen.js';
import { evalPred } from './predicates.js';
import { STRIP_MAX_DEPTH, STRIP_MAX_HOPS, stripSupport, type StripContext } from './support.js';

/**
 * Deep-strip by walking the schema while walking the value: at every place it asks the analysis what applies
 * (flattening `$ref`/`allOf`, collecting names, deciding unions) instead of running code compiled for it. Same
 * semantics as the compiled strip — the bench's baseline and the tests' differential oracle. Only facts about single
 * schema nodes (`$ref` targets, whether anything below a node can be stripped, `if` predicates) are cached, unless
 * `cachePlans` asks to remember whole plans too.
 */
export function interpretStrip(schema: JsonSchema, options: { resolve?: Resolver; /** Remember each shape's plan (a tree-walking interpreter over cached plans, a second bench baseline). */ cachePlans?: boolean } = {}): StripFn {
  const base = typeof schema === 'object' && typeof schema.$id === 'string' ? schema.$id : '';
  const analyzer = new StripAnalyzer(options.resolve ?? localResolver(schema, base));
  const rootNode = analyzer.root(schema, base);
  const root = analyzer.strippable(rootNode) ? analyzer.shape([rootNode]) : undefined;
  const S = stripSupport();
  const plans = new Map<string, Plan>();
  const planOf = (shape: Shape): Plan => {
    if (options.cachePlans !== true) return analyzer.plan(shape);
    let p = plans.get(shape.key);
    if (p === undefined) plans.set(shape.key, (p = analyzer.plan(shape)));
    return p;
  };

  const walk = (shape: Shape, v: unknown, c: StripContext, d: number, h = 0): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    const plan = planOf(shape);
    if (plan.kind === 'dispatch') return dispatch(plan.group, v, c, d, h);
    const object = plan.object !== undefined && objectMatters(plan.object) ? plan.object : undefined;
    const array = plan.array;
    if (object === undefined && array === undefined) return v;
    if (d > STRIP_MAX_DEPTH) S.tooDeep(c, d);
    if (Array.isArray(v)) {
      if (array === undefined) return v;
      let o: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        c.k[d] = i;
        const s = i < array.prefix.length ? array.prefix[i] : array.rest;
        const y = s === undefined ? x : walk(s, x, c, d + 1);
        if (y !== x) {
          o ??= v.slice();
          o[i] = y;
        }
      }
      return o ?? v;
    }
    if (object === undefined) return v;
    const obj = v as Record<string, unknown>;
    if (visitsByName(object)) {
      let o: Record<string, unknown> | undefined;
      for (const [name, s] of object.names) {
        if (s === undefined || !Object.prototype.hasOwnProperty.call(obj, name)) continue;
        const x = obj[name];
        if (x === undefined) continue;
        c.k[d] = name;
        const y = walk(s, x, c, d + 1);
        if (y !== x) {
          o ??= S.copy(obj);
          S.put(o, name, y);
        }
      }
      return o ?? v;
    }
    const names = new Map(object.names);
    let o: Record<string, unknown> | undefined;
    for (const k in obj) {
      if (!Object.prototype.hasOwnProperty.call(obj, k)) continue;
      const x = obj[k];
      let y = x;
      if (names.has(k)) {
        const s = names.get(k);
        if (s !== undefined) {
          c.k[d] = k;
          y = walk(s, x, c, d + 1);
        }
      } else {
        let matched = false;
        for (const p of object.patterns) {
          if (!analyzer.nodes.regexp(p.source).test(k)) continue;
          matched = true;
          if (p.child !== undefined) {
            c.k[d] = k;
            y = walk(p.child, y, c, d + 1);
          }
        }
        if (!matched) {
          if (object.closed) {
            o ??= S.upTo(obj, k);
            c.removed.push(S.at(c, d, k));
            continue;
          }
          if (object.additional !== undefined) {
            c.k[d] = k;
            y = walk(object.additional, x, c, d + 1);
          }
        }
      }
      if (o !== undefined) S.put(o, k, y);
      else if (y !== x) {
        o = S.upTo(obj, k);
        S.put(o, k, y);
      }
    }
    return o ?? v;
  };

  const dispatch = (g: Group, v: object, c: StripContext, d: number, h: number): unknown => {
    let chosen: number;
    if (h > STRIP_MAX_HOPS) chosen = -1;
    else if (g.kind === 'dependency') chosen = !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, g.property) ? 0 : 1;
    else if (g.kind === 'if') {
      if (g.pred === undefined) chosen = -1;
      else chosen = evalPred(g.pred, v) ? 0 : 1;
    } else if (g.branches.length > 30) chosen = -1;
    else {
      let m = 0;
      g.branches.forEach((b, i) => {
        const types = b.evidence?.types;
        const kind = Array.isArray(v) ? 'array' : 'object';
        if (types !== undefined && !types.includes(kind)) return;
        if (Array.isArray(v)) {
          m |= 1 << i;
          return;
        }
        const r = v as Record<string, unknown>;
        const own = (n: string): boolean => Object.prototype.hasOwnProperty.call(r, n);
        if (!(b.evidence?.required ?? []).every(own)) return;
        if ((b.evidence?.forbidden ?? []).some((set) => set.every(own))) return;
        const admitted = (b.evidence?.tags ?? []).every(([path, values]) => {
          const x = path.length === 1 ? (own(path[0]!) ? r[path[0]!] : S.ABSENT) : S.dig(r, path[0]!, path[1]!);
          return x === S.ABSENT || values.includes(x as never);
        });
        if (!admitted) return;
        m |= 1 << i;
      });
      if (!Array.isArray(v) && (m & (m - 1)) !== 0) {
        const closed = g.branches.reduce((acc, b, i) => (b.evidence?.closed ? acc | (1 << i) : acc), 0);
        m = S.byNames(v, m, closed, new Map(g.names ?? []), (g.patterns ?? []).map(([s, bit]) => [analyzer.nodes.regexp(s), bit] as const));
      }
      chosen = m !== 0 && (m & (m - 1)) === 0 ? Math.log2(m) : -1;
    }
    if (chosen < 0) {
      c.undecided.push(S.at(c, d));
      return v;
    }
    const next = g.branches[chosen]!.next;
    return next.origins.length === 0 ? v : walk(next, v, c, d, h + 1);
  };

  return S.entry((v, c, d) => (root === undefined ? v : walk(root, v, c, d))) as StripFn;
}

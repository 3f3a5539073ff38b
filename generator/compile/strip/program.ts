import { parsePointer, sha256, shortHash, stronglyConnected } from '../../shared/index.js';
import type { Release, SchemaFile } from '../../load/index.js';
import type { StripAnalyzer } from './analysis.js';
import { jsLiteral } from '../../shared/index.js';
import { comment, emitStripFunction, type CodegenScope } from './codegen.js';
import type { Plan, Shape } from './plan.js';
import type { SchemaNode } from './schema-nodes.js';
import { SUPPORT_NAMES } from './support.js';

/**
 * The strip program of a release (or of one in-memory schema): every shape reachable from the entries added, its
 * plan, its function name, and its home module. Modules are the strongly connected components of the homes (a
 * schema file's functions live in its module; files whose functions call each other in a cycle share one), named
 * by content so one module serves every tool and profile that reaches it. compile.ts decides the entries and lays
 * out the files; codegen.ts writes each function.
 */
export interface Compiled {
  readonly shape: Shape;
  readonly home: string;
  readonly plan: Plan;
  readonly files: readonly SchemaFile[];
  readonly children: Compiled[];
  name?: string;
  /** Called from another module (or a tool module): exported. */
  external?: boolean;
}

export interface ModuleUnit {
  readonly homes: readonly string[];
  readonly slug: string;
  readonly shapes: Compiled[];
  readonly deps: Set<ModuleUnit>;
  readonly files: Set<SchemaFile>;
}

/** Where a shape's function lives: single places in their own file, merged/decided shapes beside their creator. */
export function homeOf(shape: Shape, creator: string): string {
  if (shape.origins.length === 1 && shape.resolved.size === 0) return homeFile(shape.origins[0]!);
  return creator;
}

function homeFile(node: SchemaNode): string {
  return node.file?.path ?? node.base;
}

export class Program {
  private readonly byKey = new Map<string, Compiled>();
  private readonly queue: Compiled[] = [];
  private readonly edges = new Map<string, Set<string>>();
  private units: ModuleUnit[] = [];
  private readonly unitByHome = new Map<string, ModuleUnit>();

  constructor(
    private readonly analyzer: StripAnalyzer,
    private readonly inMemory = false,
  ) {}

  add(shape: Shape, home: string): Compiled {
    const seen = this.byKey.get(shape.key);
    if (seen !== undefined) return seen;
    this.analyzer.takeTouched();
    const plan = this.analyzer.plan(shape, this.inMemory ? '' : home);
    const files = [...shape.origins.map((o) => o.file).filter((f): f is SchemaFile => f !== undefined), ...this.analyzer.takeTouched()];
    const c: Compiled = { shape, home: this.inMemory ? '' : home, plan, files, children: [] };
    this.byKey.set(shape.key, c);
    this.queue.push(c);
    return c;
  }

  /** Compile every shape reachable from those added. */
  close(): void {
    while (this.queue.length > 0) {
      const c = this.queue.shift()!;
      for (const child of children(c.plan)) {
        const target = this.add(child, this.inMemory ? '' : homeOf(child, c.home));
        c.children.push(target);
        let set = this.edges.get(c.home);
        if (set === undefined) this.edges.set(c.home, (set = new Set()));
        set.add(target.home);
      }
    }
    this.units = this.buildUnits();
  }

  /** Modules in dependency order (a module after every module it requires). */
  modules(): ModuleUnit[] {
    return this.units;
  }

  unitOf(shape: Shape): ModuleUnit | undefined {
    const c = this.byKey.get(shape.key);
    return c === undefined ? undefined : this.unitByHome.get(c.home);
  }

  /** A shape a tool module calls. */
  markExternal(shape: Shape): void {
    this.byKey.get(shape.key)!.external = true;
  }

  nameOf(shape: Shape): string {
    return this.byKey.get(shape.key)!.name!;
  }

  /** Modules are the strongly connected components over homes, dependencies first. */
  private buildUnits(): ModuleUnit[] {
    const homes = [...new Set([...this.byKey.values()].map((c) => c.home))].sort(cmp);
    const sccs = stronglyConnected(homes, (h) => [...(this.edges.get(h) ?? [])].sort(cmp), cmp);
    const units: ModuleUnit[] = sccs.map((scc) => ({
      homes: scc,
      slug: slugOf(scc[0]!),
      shapes: [],
      deps: new Set<ModuleUnit>(),
      files: new Set<SchemaFile>(),
    }));
    units.forEach((u) => u.homes.forEach((h) => this.unitByHome.set(h, u)));
    for (const c of this.byKey.values()) {
      const u = this.unitByHome.get(c.home)!;
      u.shapes.push(c);
      c.files.forEach((f) => u.files.add(f));
    }
    for (const [from, tos] of this.edges) {
      const u = this.unitByHome.get(from)!;
      for (const to of tos) {
        const v = this.unitByHome.get(to)!;
        if (v !== u) u.deps.add(v);
      }
    }
    for (const c of this.byKey.values()) for (const t of c.children) if (this.unitByHome.get(t.home) !== this.unitByHome.get(c.home)) t.external = true;
    // Names: per module, in key order, so they depend on the module's content alone.
    for (const u of units) {
      u.shapes.sort((a, b) => cmp(a.shape.key, b.shape.key));
      const used = new Set<string>();
      for (const c of u.shapes) {
        const base = functionName(c.shape);
        let name = base;
        for (let i = 2; used.has(name); i++) name = `${base}_${i}`;
        used.add(name);
        c.name = name;
      }
    }
    return units;
  }

  /** Module-level constants and functions of one module; `requireName` names a dependency module's variable. */
  renderBody(unit: ModuleUnit, moduleVar: (dep: ModuleUnit) => string): string {
    const consts = new Map<string, string>();
    const counters = new Map<string, number>();
    const scope: CodegenScope = {
      ref: (shape) => {
        const c = this.byKey.get(shape.key)!;
        const u = this.unitByHome.get(c.home)!;
        return u === unit ? c.name! : `${moduleVar(u)}.${c.name!}`;
      },
      constant: (prefix, init) => {
        const seen = consts.get(init);
        if (seen !== undefined) return seen;
        const n = (counters.get(prefix) ?? 0) + 1;
        counters.set(prefix, n);
        const name = `${prefix}_${n}`;
        consts.set(init, name);
        return name;
      },
      describe: (shape) => describeShape(shape),
    };
    const fns = unit.shapes.map((c) => emitStripFunction(c.name!, c.shape, c.plan, scope));
    const constLines = [...consts].map(([init, name]) => `const ${name} = ${init};`);
    return [...constLines, ...(constLines.length > 0 ? [''] : []), ...fns].join('\n');
  }

  render(unit: ModuleUnit, supportName: string, depFile: (dep: ModuleUnit) => string, release: Release): string {
    const deps = [...unit.deps].sort((a, b) => cmp(a.slug, b.slug));
    const vars = new Map<ModuleUnit, string>();
    const usedVars = new Set<string>();
    for (const d of deps) {
      let v = `m_${identifier(d.slug)}`;
      for (let i = 2; usedVars.has(v); i++) v = `m_${identifier(d.slug)}_${i}`;
      usedVars.add(v);
      vars.set(d, v);
    }
    // A dependency is required where it is first called, not when this module loads: a value without the field
    // that leads there never loads it (nor, in a pack, the pack file holding it).
    const body = this.renderBody(unit, (u) => `(${vars.get(u)!} ??= require(${jsLiteral(`./${depFile(u)}`)}))`);
    const exported = unit.shapes.filter((c) => c.external === true).map((c) => c.name!);
    return [
      '"use strict";',
      comment(`Deep-strip functions for ${unit.homes.join(', ')} (${release.label}).`),
      comment('One function per schema place, $refs resolved at build time; each returns its input itself when'),
      comment('nothing below it is removed.'),
      `const { ${SUPPORT_NAMES.filter((n) => n !== 'entry' && n !== 'StripDepthError').join(', ')} } = require(${jsLiteral(`./${supportName}`)});`,
      ...(deps.length > 0 ? [comment('Modules called into, each required on first call.'), `let ${deps.map((d) => vars.get(d)!).join(', ')};`] : []),
      '',
      body,
      ...exported.map((n) => `exports.${n} = ${n};`),
      '',
    ].join('\n');
  }
}

function children(plan: Plan): Shape[] {
  const out: Shape[] = [];
  if (plan.kind === 'dispatch') {
    for (const b of plan.group.branches) if (b.next.origins.length > 0) out.push(b.next);
    return out;
  }
  if (plan.object !== undefined) {
    for (const [, s] of plan.object.names) if (s !== undefined) out.push(s);
    for (const p of plan.object.patterns) if (p.child !== undefined) out.push(p.child);
    if (plan.object.additional !== undefined) out.push(plan.object.additional);
  }
  if (plan.array !== undefined) {
    for (const s of plan.array.prefix) if (s !== undefined) out.push(s);
    if (plan.array.rest !== undefined) out.push(plan.array.rest);
  }
  return out;
}

export function closure(unit: ModuleUnit, seen = new Set<ModuleUnit>()): Set<ModuleUnit> {
  if (seen.has(unit)) return seen;
  seen.add(unit);
  for (const d of unit.deps) closure(d, seen);
  return seen;
}

function describeShape(shape: Shape): string {
  const all = shape.origins.map((o) => `${o.file?.path ?? o.base}#${o.pointer}`);
  const where = all.length > 3 ? [...all.slice(0, 3), `${all.length - 3} more`] : all;
  const decided = [...shape.resolved].map(([id, i]) => `${groupLabel(id, i)}`);
  return [where.join(' + ') || '(no schema left)', ...(decided.length > 0 ? [`with ${decided.join(', ')}`] : [])].join(' ');
}

function groupLabel(id: string, i: number): string {
  const tokens = id.slice(id.indexOf('#') + 1).split('/');
  const kw = tokens[tokens.length - 1]!;
  if (kw === 'if') return `${tokens.slice(0, -1).join('/') || '/'} ${i === 0 ? 'then' : 'else'}`;
  if (kw === 'anyOf' || kw === 'oneOf') return `${tokens.join('/')}/${i}`;
  return `${tokens.join('/')} ${i === 0 ? 'present' : 'absent'}`;
}

function functionName(shape: Shape): string {
  const first = shape.origins[0];
  const parts: string[] = ['s'];
  if (first !== undefined) {
    const path = (first.file?.path ?? first.base).replace(/[?#].*$/, '');
    const stem = path.slice(path.lastIndexOf('/') + 1).replace(/\.json$/, '');
    if (stem !== '') parts.push(stem);
    const tokens = parsePointer(first.pointer).filter((t) => t !== 'properties' && t !== 'definitions' && t !== '$defs');
    parts.push(...tokens);
  }
  if (parts.length === 1) parts.push('root');
  if (shape.origins.length > 1 && shape.resolved.size === 0) parts.push('merged');
  for (const [id, i] of shape.resolved) {
    const kw = id.slice(id.lastIndexOf('/') + 1);
    parts.push(kw === 'if' ? (i === 0 ? 'then' : 'else') : kw === 'anyOf' || kw === 'oneOf' ? `${kw}${i}` : i === 0 ? 'with' : 'without');
  }
  let name = identifier(parts.join('_'));
  if (name.length > 72) name = `${name.slice(0, 60)}_${shortHash(sha256(shape.key)).slice(0, 8)}`;
  return name;
}

function identifier(s: string): string {
  const id = s.replace(/[^A-Za-z0-9_$]+/g, '_').replace(/_+/g, '_').replace(/_$/, '');
  return /^[A-Za-z_$]/.test(id) ? id : `_${id}`;
}

function slugOf(home: string): string {
  const s = home.replace(/\.json$/, '').replace(/^[a-z]+:\/\/[^/]*\//i, '').replace(/[^A-Za-z0-9_-]+/g, '.').replace(/^\.+|\.+$/g, '');
  return s === '' ? 'schema' : s;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

import { stronglyConnected, sha256, shortHash, parsePointer } from '../../shared/index.js';
import { ARTIFACT_PATHS, type StripFn } from '../../../runtime/contract.js';
import type { EmittedFile, InputRef, JsonSchema, Release, SchemaFile } from '../../load/index.js';
import { localResolver, StripAnalyzer, type Plan, type Resolver, type SchemaNode, type Shape } from './analysis.js';
import { comment, emitStripFunction, lit, type CodegenScope } from './codegen.js';
import { packStripModules } from './packs.js';
import { SUPPORT_NAMES, SUPPORT_SOURCE, supportModuleSource } from './support.js';

/**
 * Compile stage for deep-strip (issue 3). Every strip function is compiled from a *shape* (strip-analysis.ts): one
 * straight-line JS function per shape, `$ref`s resolved here, recursion through named functions.
 *
 * Modules: the functions of the shapes that live in one schema file go into one content-addressed module,
 * `strip/_shared/<file>.<hash>.cjs` (files that reference each other in a cycle share one module); the tool module
 * `strip/<tool>.cjs` only requires its request schema's module and exports `{ strip }`. What a shared module holds
 * depends on the release alone — every place of the file any request schema of the release can reach — never on
 * which tools are selected, so one module serves every tool and profile that reaches it.
 */
export function compileStripModules(release: Release, tools?: readonly string[]): EmittedFile[] {
  const selected = (tools ?? [...release.tools.keys()].filter((t) => !release.unavailable.has(t))).filter((t) => !release.unavailable.has(t));
  const analyzer = new StripAnalyzer(release.schemas.resolve);
  const program = new Program(analyzer);

  // Every place any available request schema can reach: the roots of its files and every `$ref` target in them.
  const universe = requestUniverse(release);
  const entries = entryPointers(universe, release);
  for (const file of universe) {
    for (const pointer of entries.get(file.path) ?? ['']) {
      const node = analyzer.child(analyzer.root(file.schema, file.id, file), ...parsePointer(pointer));
      if (node === undefined || !analyzer.strippable(node)) continue;
      const shape = analyzer.shape([node]);
      if (shape !== undefined) program.add(shape, homeOf(shape, ''));
    }
  }
  program.close();
  // Every available tool's root is called by its tool module, whichever tools this run emits.
  for (const tool of release.tools.values()) {
    const file = release.unavailable.has(tool.name) ? undefined : release.schemas.byPath.get(tool.requestSchema);
    const root = file === undefined ? undefined : analyzer.root(file.schema, file.id, file);
    const shape = root !== undefined && analyzer.strippable(root) ? analyzer.shape([root]) : undefined;
    if (shape !== undefined) program.markExternal(shape);
  }

  const modules = program.modules();
  const supportSource = supportModuleSource();
  const supportName = `support.${shortHash(sha256(supportSource))}.cjs`;
  const dir = (rel: string): string => `releases/${release.key}/strip/${rel}`;
  const inputRef = (f: SchemaFile): InputRef => ({ name: `${release.label}:${f.path}`, hash: f.hash });

  // Dependencies first, so every module knows the content-addressed file names it requires.
  const fileName = new Map<ModuleUnit, string>();
  const rendered = new Map<ModuleUnit, EmittedFile>();
  for (const unit of modules) {
    const source = program.render(unit, supportName, (dep) => fileName.get(dep)!, release);
    const name = `${unit.slug}.${shortHash(sha256(source))}.cjs`;
    fileName.set(unit, name);
    rendered.set(unit, { path: dir(`_shared/${name}`), contents: source, inputs: [...unit.files].sort(byPath).map(inputRef) });
  }

  // Packed by the tools of the release that reach them (strip-packs.ts): a few files per tool instead of one per
  // schema file. Entry sets cover every available tool, so packs do not depend on the selection.
  const rootName = (tool: string): string | undefined => {
    const def = release.tools.get(tool)!;
    const file = release.schemas.byPath.get(def.requestSchema)!;
    const root = analyzer.root(file.schema, file.id, file);
    const shape = analyzer.strippable(root) ? analyzer.shape([root]) : undefined;
    const unit = shape === undefined ? undefined : program.unitOf(shape);
    return unit === undefined ? undefined : fileName.get(unit);
  };
  const packed = packStripModules(
    [
      { name: supportName, contents: supportSource, inputs: [], deps: [] },
      ...modules.map((u) => ({ name: fileName.get(u)!, contents: rendered.get(u)!.contents, inputs: rendered.get(u)!.inputs, deps: [supportName, ...[...u.deps].map((d) => fileName.get(d)!)] })),
    ],
    [...release.tools.keys()].filter((t) => !release.unavailable.has(t)).sort().map((tool) => ({ tool, roots: [supportName, ...(rootName(tool) === undefined ? [] : [rootName(tool)!])] })),
  );

  const out = new Map<string, EmittedFile>();
  const need = new Set<ModuleUnit>();
  const needUnit = (u: ModuleUnit): void => {
    if (need.has(u)) return;
    need.add(u);
    for (const dep of u.deps) needUnit(dep);
  };
  for (const tool of [...selected].sort()) {
    const def = release.tools.get(tool);
    if (def === undefined) throw new Error(`adcp-codegen bug: tool ${tool} is not in release ${release.label}`);
    const file = release.schemas.byPath.get(def.requestSchema)!;
    const root = analyzer.root(file.schema, file.id, file);
    const shape = analyzer.strippable(root) ? analyzer.shape([root]) : undefined;
    const unit = shape === undefined ? undefined : program.unitOf(shape);
    if (unit !== undefined) needUnit(unit);
    const lines = [
      '"use strict";',
      comment(`Deep-strip for ${tool} (${release.label}): removes unknown fields at closed objects of`),
      comment(`${def.requestSchema}; the per-definition functions live in the shared modules.`),
      `const { entry } = ${packed.ref(supportName, './_shared/')};`,
    ];
    if (shape === undefined || unit === undefined) {
      lines.push(comment('Nothing in this request schema is closed: there is never anything to strip.'), 'exports.strip = entry((v) => v);', '');
    } else {
      lines.push(`const root = ${packed.ref(fileName.get(unit)!, './_shared/')};`, `exports.strip = entry(root.${program.nameOf(shape)});`, '');
    }
    const inputs = new Map<string, InputRef>([[file.path, inputRef(file)]]);
    if (unit !== undefined) for (const u of closure(unit)) for (const f of u.files) inputs.set(f.path, inputRef(f));
    out.set(tool, { path: ARTIFACT_PATHS.strip(release.key, tool), contents: lines.join('\n'), inputs: [...inputs.values()].sort((a, b) => cmp(a.name, b.name)) });
  }
  const wanted = new Set([supportName, ...[...need].map((u) => fileName.get(u)!)]);
  const files: EmittedFile[] = packed.packs
    .filter((p) => p.members.some((m) => wanted.has(m)))
    .map((p) => ({ path: dir(`_shared/${p.name}`), contents: p.contents, inputs: p.inputs }));
  files.push(...out.values());
  // Machine code laid out by strip-codegen (indented, one statement per line): prettier over it cost seconds per
  // release and helps no reader, so the format stage leaves it as written.
  return files.map((f) => ({ ...f, verbatim: true }));
}

/**
 * One schema's strip function, compiled in memory from the same generated code (for tests and tools). `resolve`
 * follows `$ref`s that leave the schema (a release's `schemas.resolve`); without it only `#…` references resolve.
 */
export function compileStrip(schema: JsonSchema, options: { resolve?: Resolver } = {}): StripFn {
  return new Function(compileStripSource(schema, options))() as StripFn;
}

/** The body `compileStrip` evaluates: the support helpers, one function per shape, `return entry(root)`. */
export function compileStripSource(schema: JsonSchema, options: { resolve?: Resolver } = {}): string {
  const base = typeof schema === 'object' && typeof schema.$id === 'string' ? schema.$id : '';
  const analyzer = new StripAnalyzer(options.resolve ?? localResolver(schema, base));
  const root = analyzer.root(schema, base);
  const shape = analyzer.strippable(root) ? analyzer.shape([root]) : undefined;
  if (shape === undefined) return `"use strict";\n${SUPPORT_SOURCE}\nreturn entry((v) => v);\n`;
  const program = new Program(analyzer, true);
  program.add(shape, '');
  program.close();
  const [unit] = program.modules();
  return `"use strict";\n${SUPPORT_SOURCE}\n${program.renderBody(unit!, () => '')}\nreturn entry(${program.nameOf(shape)});\n`;
}

// ── the program: every shape, its plan, its home module ───────────────────────────────────────────────────────

interface Compiled {
  readonly shape: Shape;
  readonly home: string;
  readonly plan: Plan;
  readonly files: readonly SchemaFile[];
  readonly children: Compiled[];
  name?: string;
  /** Called from another module (or a tool module): exported. */
  external?: boolean;
}

interface ModuleUnit {
  readonly homes: readonly string[];
  readonly slug: string;
  readonly shapes: Compiled[];
  readonly deps: Set<ModuleUnit>;
  readonly files: Set<SchemaFile>;
}

/** Where a shape's function lives: single places in their own file, merged/decided shapes beside their creator. */
function homeOf(shape: Shape, creator: string): string {
  if (shape.origins.length === 1 && shape.resolved.size === 0) return homeFile(shape.origins[0]!);
  return creator;
}

function homeFile(node: SchemaNode): string {
  return node.file?.path ?? node.base;
}

class Program {
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
    const body = this.renderBody(unit, (u) => vars.get(u)!);
    const exported = unit.shapes.filter((c) => c.external === true).map((c) => c.name!);
    return [
      '"use strict";',
      comment(`Deep-strip functions for ${unit.homes.join(', ')} (${release.label}).`),
      comment('One function per schema place, $refs resolved at build time; each returns its input itself when'),
      comment('nothing below it is removed.'),
      `const { ${SUPPORT_NAMES.filter((n) => n !== 'entry' && n !== 'StripDepthError').join(', ')} } = require(${lit(`./${supportName}`)});`,
      ...deps.map((d) => `const ${vars.get(d)!} = require(${lit(`./${depFile(d)}`)});`),
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

function closure(unit: ModuleUnit, seen = new Set<ModuleUnit>()): Set<ModuleUnit> {
  if (seen.has(unit)) return seen;
  seen.add(unit);
  for (const d of unit.deps) closure(d, seen);
  return seen;
}

/** Every schema file an available tool's request schema reaches (the release's schema graph). */
function requestUniverse(release: Release): readonly SchemaFile[] {
  const roots: SchemaFile[] = [];
  for (const tool of release.tools.values()) {
    if (release.unavailable.has(tool.name)) continue;
    const f = release.schemas.byPath.get(tool.requestSchema);
    if (f !== undefined) roots.push(f);
  }
  return release.graph.reach(roots);
}

/** Per file, the places anything can enter: its root and every `$ref` target inside it (resolved by the graph). */
function entryPointers(universe: readonly SchemaFile[], release: Release): Map<string, string[]> {
  const sets = new Map<string, Set<string>>(universe.map((f) => [f.path, new Set([''])]));
  for (const f of universe) {
    for (const { target } of release.graph.references(f)) if (target !== undefined) sets.get(target.file.path)?.add(target.pointer);
  }
  return new Map([...sets].map(([path, set]) => [path, [...set].sort(cmp)]));
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

function byPath(a: SchemaFile, b: SchemaFile): number {
  return cmp(a.path, b.path);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

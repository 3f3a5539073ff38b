import { sha256, shortHash, parsePointer } from '../../shared/index.js';
import { ARTIFACT_PATHS, type StripFn } from '../../../runtime/contract.js';
import type { EmittedFile, InputRef, JsonSchema, Release, SchemaFile } from '../../load/index.js';
import { StripAnalyzer } from './analysis.js';
import { localResolver, type Resolver } from './schema-nodes.js';
import { comment } from './codegen.js';
import { packStripModules } from './packs.js';
import { closure, homeOf, Program, type ModuleUnit } from './program.js';
import { SUPPORT_SOURCE, supportModuleSource } from './support.js';

/**
 * Compile stage for deep-strip (issue 3). Every strip function is compiled from a *shape* (analysis.ts): one
 * straight-line JS function per shape, `$ref`s resolved here, recursion through named functions.
 *
 * Modules: the functions of the shapes that live in one schema file go into one content-addressed module,
 * `strip/_shared/<file>.<hash>.cjs` (files that reference each other in a cycle share one module); the tool module
 * `strip/<tool>.cjs` only requires its request schema's module and exports `{ strip }`. What a shared module holds
 * depends on the release alone — every place of the file any request schema of the release can reach — never on
 * which tools are selected, so one module serves every tool and profile that reaches it.
 */
export function compileStripModules(release: Release, tools?: readonly string[]): EmittedFile[] {
  const selected = (tools ?? [...release.tools.keys()]).filter((t) => !release.unavailable.has(t));
  // `$ref`s resolved once, by the release's schema graph.
  const analyzer = new StripAnalyzer(release.schemas.resolve, (node) => release.graph.referenceAt(node)?.target);
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
  // Machine code laid out by codegen.ts (indented, one statement per line): prettier over it cost seconds per
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

function byPath(a: SchemaFile, b: SchemaFile): number {
  return cmp(a.path, b.path);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

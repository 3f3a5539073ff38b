import { sha256, shortHash, parsePointer } from '../../shared/index.js';
import { ARTIFACT_PATHS, type StripFn } from '../../../runtime/artifacts/contract.js';
import type { EmittedFile, InputRef, JsonSchema, Release, SchemaFile, ToolDef } from '../../load/index.js';
import { StripAnalyzer } from './analysis.js';
import { localResolver, type Resolver } from './schema-nodes.js';
import { comment } from './codegen.js';
import { packStripModules, type StripPacks } from './packs.js';
import type { Shape } from './plan.js';
import { closure, homeOf, Program, type ModuleUnit } from './program.js';
import { SUPPORT_SOURCE, supportModuleSource } from './support.js';
import { selectTools } from '../select-tools.js';

/**
 * Compile stage for deep-strip (issue 3). Every strip function is compiled from a *shape* (analysis.ts): one
 * straight-line JS function per shape, `$ref`s resolved here, recursion through named functions.
 *
 * Modules: the functions of the shapes that live in one schema file go into one content-addressed module,
 * `strip/_shared/<file>.<hash>.cjs` (files that reference each other in a cycle share one module); the tool module
 * `strip/<tool>.cjs` only requires its request schema's module and exports `{ strip }`. What a shared module holds
 * depends on the release alone — every place of the file any request schema of the release can reach — never on
 * which tools are selected, so one module serves every tool and profile that reaches it.
 *
 * Responses, for a release older buyers are answered in from a newer release's handler (`responseTools`: the tools
 * that happens for): `strip/<tool>.response.cjs` exports `{ strip, stripAsync: { <status>: strip } }` over the
 * response schema and each async response schema. They come from the same program as the requests, so a definition
 * both sides reach (an account, a package, the context, the support helpers) is emitted once, and the packs are cut
 * by request and response entries apart (`<tool>` and `<tool>.response`): a request loads no response-only code. A
 * release no response is converted into keeps its request-only program, byte for byte.
 */
export function compileStripModules(release: Release, tools?: readonly string[], responseTools: readonly string[] = []): EmittedFile[] {
  const program = stripProgram(release, responseTools.length > 0);
  const files = emitProgram(release, program, selectTools(release, tools), 'request');
  if (responseTools.length > 0) files.push(...emitProgram(release, program, selectTools(release, responseTools), 'response'));
  // Machine code laid out by codegen.ts (indented, one statement per line): prettier over it cost seconds per
  // release and helps no reader, so the format stage leaves it as written.
  return dedupeByPath(files).map((f) => ({ ...f, verbatim: true }));
}

/** One entry schema of a tool (its request, its response, an async response by status), with its compiled root. */
interface Root {
  /** `request`, `response`, or the async status a response answers. */
  readonly key: string;
  readonly file: SchemaFile;
  /** Undefined when nothing below the schema can ever be stripped. */
  readonly shape?: Shape;
  readonly unit?: ModuleUnit;
}

interface CompiledProgram {
  readonly program: Program;
  /** Per available tool, its roots, each worked out once. */
  readonly roots: ReadonlyMap<string, readonly Root[]>;
  readonly fileName: ReadonlyMap<ModuleUnit, string>;
  readonly supportName: string;
  readonly packed: StripPacks;
}

/** A tool's entry schemas: its request, and with `responses` its response and each async response by status. */
function entriesOf(tool: ToolDef, responses: boolean): { key: string; path: string }[] {
  const request = { key: 'request', path: tool.requestSchema };
  if (!responses) return [request];
  return [request, { key: 'response', path: tool.responseSchema }, ...tool.asyncResponseSchemas.map((path) => ({ key: asyncStatus(path), path }))];
}

/**
 * The strip program over every available tool's entry schemas: every place those schemas can reach (the roots of
 * their files and every `$ref` target in them), rendered into content-addressed shared modules and packed by the
 * entries that reach them. Depends on the release (and whether responses are stripped) alone, never on the selection.
 */
function stripProgram(release: Release, responses: boolean): CompiledProgram {
  // `$ref`s resolved once, by the release's schema graph.
  const analyzer = new StripAnalyzer(release.schemas.resolve, (node) => release.graph.referenceAt(node)?.target);
  const program = new Program(analyzer);
  const available = [...release.tools.values()].filter((t) => !release.unavailable.has(t.name)).sort((a, b) => cmp(a.name, b.name));
  const entryFiles = new Map<string, { key: string; file: SchemaFile }[]>();
  for (const tool of available) {
    const files = entriesOf(tool, responses).flatMap(({ key, path }) => {
      const file = release.schemas.byPath.get(path);
      return file === undefined ? [] : [{ key, file }];
    });
    entryFiles.set(tool.name, files);
  }

  const universe = release.graph.reach([...new Set([...entryFiles.values()].flat().map((e) => e.file))]);
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

  // Every available tool's roots, called by its tool module whichever tools this run emits: worked out once here.
  const shapeOf = new Map<SchemaFile, Shape | undefined>();
  const rootShape = (file: SchemaFile): Shape | undefined => {
    if (!shapeOf.has(file)) {
      const root = analyzer.root(file.schema, file.id, file);
      shapeOf.set(file, analyzer.strippable(root) ? analyzer.shape([root]) : undefined);
    }
    return shapeOf.get(file);
  };
  const bare = new Map<string, { key: string; file: SchemaFile; shape?: Shape }[]>();
  for (const [tool, files] of entryFiles) {
    bare.set(tool, files.map((e) => ({ ...e, shape: rootShape(e.file) })));
    for (const e of bare.get(tool)!) if (e.shape !== undefined) program.markExternal(e.shape);
  }

  const modules = program.modules();
  const supportSource = supportModuleSource();
  const supportName = `support.${shortHash(sha256(supportSource))}.cjs`;
  const inputRef = (f: SchemaFile): InputRef => ({ name: `${release.label}:${f.path}`, hash: f.hash });
  // Dependencies first, so every module knows the content-addressed file names it requires.
  const fileName = new Map<ModuleUnit, string>();
  const rendered: { name: string; contents: string; inputs: InputRef[]; deps: string[] }[] = [];
  for (const unit of modules) {
    const source = program.render(unit, supportName, (dep) => fileName.get(dep)!, release);
    const name = `${unit.slug}.${shortHash(sha256(source))}.cjs`;
    fileName.set(unit, name);
    rendered.push({ name, contents: source, inputs: [...unit.files].sort(byPath).map(inputRef), deps: [supportName, ...[...unit.deps].map((d) => fileName.get(d)!)] });
  }
  const roots = new Map<string, Root[]>();
  for (const [tool, list] of bare) roots.set(tool, list.map((r) => ({ ...r, unit: r.shape === undefined ? undefined : program.unitOf(r.shape) })));

  // Packed by the entries of the release that reach them (packs.ts): a few files per tool instead of one per schema
  // file. Entry sets cover every available tool, so packs do not depend on the selection; a tool's request and its
  // responses are entries apart, so a request never loads what only responses reach.
  const entry = (name: string, rs: readonly Root[]) => ({ tool: name, roots: [supportName, ...rs.flatMap((r) => (r.unit === undefined ? [] : [fileName.get(r.unit)!]))] });
  const packed = packStripModules(
    [{ name: supportName, contents: supportSource, inputs: [], deps: [] }, ...rendered],
    [...roots].flatMap(([tool, rs]) => {
      const request = rs.filter((r) => r.key === 'request');
      return responses ? [entry(tool, request), entry(`${tool}.response`, rs.filter((r) => r.key !== 'request'))] : [entry(tool, request)];
    }),
  );
  return { program, roots, fileName, supportName, packed };
}

/** The tool modules of the selected tools and the packs they reach. */
function emitProgram(release: Release, p: CompiledProgram, selected: readonly ToolDef[], side: 'request' | 'response'): EmittedFile[] {
  const inputRef = (f: SchemaFile): InputRef => ({ name: `${release.label}:${f.path}`, hash: f.hash });
  const need = new Set<ModuleUnit>();
  const out: EmittedFile[] = [];
  for (const def of selected) {
    const roots = p.roots.get(def.name)!.filter((r) => (side === 'request') === (r.key === 'request'));
    const inputs = new Map<string, InputRef>();
    for (const r of roots) {
      inputs.set(r.file.path, inputRef(r.file));
      if (r.unit !== undefined) for (const u of closure(r.unit)) {
        need.add(u);
        for (const f of u.files) inputs.set(f.path, inputRef(f));
      }
    }
    const lines = ['"use strict";', ...(side === 'request' ? requestHead(release, def) : responseHead(release, def)), `const { entry } = ${p.packed.ref(p.supportName, './_shared/')};`];
    const fn = (r: Root): string => (r.shape === undefined || r.unit === undefined ? 'entry((v) => v)' : `entry(${p.packed.ref(p.fileName.get(r.unit)!, './_shared/')}.${p.program.nameOf(r.shape)})`);
    if (side === 'request') {
      const [root] = roots;
      if (root?.shape === undefined || root.unit === undefined) {
        lines.push(comment('Nothing in this request schema is closed: there is never anything to strip.'), 'exports.strip = entry((v) => v);', '');
      } else {
        lines.push(`const root = ${p.packed.ref(p.fileName.get(root.unit)!, './_shared/')};`, `exports.strip = entry(root.${p.program.nameOf(root.shape)});`, '');
      }
    } else {
      const main = roots.find((r) => r.key === 'response')!;
      lines.push(`exports.strip = ${fn(main)};`, 'exports.stripAsync = {', ...roots.filter((r) => r !== main).map((r) => `  ${JSON.stringify(r.key)}: ${fn(r)},`), '};', '');
    }
    const path = side === 'request' ? ARTIFACT_PATHS.strip(release.key, def.name) : ARTIFACT_PATHS.responseStrip(release.key, def.name);
    out.push({ path, contents: lines.join('\n'), inputs: [...inputs.values()].sort((a, b) => cmp(a.name, b.name)) });
  }
  const wanted = new Set([p.supportName, ...[...need].map((u) => p.fileName.get(u)!)]);
  const dir = (rel: string): string => `releases/${release.key}/strip/${rel}`;
  const packs = p.packed.packs.filter((pack) => pack.members.some((m) => wanted.has(m))).map((pack) => ({ path: dir(`_shared/${pack.name}`), contents: pack.contents, inputs: pack.inputs }));
  return [...packs, ...out];
}

function requestHead(release: Release, def: ToolDef): string[] {
  return [comment(`Deep-strip for ${def.name} (${release.label}): removes unknown fields at closed objects of`), comment(`${def.requestSchema}; the per-definition functions live in the shared modules.`)];
}

function responseHead(release: Release, def: ToolDef): string[] {
  return [
    comment(`Deep-strip for ${def.name}'s responses (${release.label}): removes the fields a body converted from a newer`),
    comment(`release carries that the closed objects of ${def.responseSchema} (or the async response of its status) do not know.`),
  ];
}

/** `media-buy/create-media-buy-async-response-input-required.json` → `input-required`: the status it answers. */
function asyncStatus(path: string): string {
  const m = /-async-response-([a-z0-9-]+)\.json$/.exec(path);
  return m ? m[1]! : path;
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

/** Per file, the places anything can enter: its root and every `$ref` target inside it (resolved by the graph). */
function entryPointers(universe: readonly SchemaFile[], release: Release): Map<string, string[]> {
  const sets = new Map<string, Set<string>>(universe.map((f) => [f.path, new Set([''])]));
  for (const f of universe) {
    for (const { target } of release.graph.references(f)) if (target !== undefined) sets.get(target.file.path)?.add(target.pointer);
  }
  return new Map([...sets].map(([path, set]) => [path, [...set].sort(cmp)]));
}

/** A pack both sides emit (the support module's, say) is one file. */
function dedupeByPath(files: readonly EmittedFile[]): EmittedFile[] {
  return [...new Map(files.map((f) => [f.path, f])).values()];
}

function byPath(a: SchemaFile, b: SchemaFile): number {
  return cmp(a.path, b.path);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

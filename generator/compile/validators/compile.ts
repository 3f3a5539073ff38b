import { posix } from 'node:path';
import { ARTIFACT_PATHS } from '../../../runtime/artifacts/contract.js';
import { CodegenError, isPlainObject, walkSchema } from '../../shared/index.js';
import { type EmittedFile, type InputRef, type Release, type SchemaFile, type ToolDef, createCompileAjv, sourceDocuments, type AjvInstance } from '../../load/index.js';
import { selectTools } from '../select-tools.js';
import { itemOutcomes, type ItemOutcomes, type Location } from '../items/index.js';
import { commentText, jsonText } from './code.js';
import { closure, nameModules, SUPPORT_DIR } from './modules.js';
import { packUnits, type PackEntry } from './packs.js';
import { UnitSplitter, type CompiledFn, type Unit } from './split.js';
import { documentName, schemaIds } from './schema-ids.js';
import { supportFiles } from './support.js';

export { createRuntimeAjv } from '../../load/index.js';

/**
 * Compiled canonical validators of one release (issue 7). Every tool's request schema, response schema and async
 * response schemas are compiled by Ajv standalone from the modular draft-07 schemas, split into one unit per
 * compiled definition, packed into `validate/packs/<name>-<hash>.cjs`, and fronted by the per-tool modules the runtime loads
 * (runtime/contract.ts ARTIFACT_PATHS). The definitions are packed into a few modules (packs.ts): one
 * shared by many tools is emitted once, and loading one tool opens a handful of files.
 */
export function compileValidators(release: Release, tools?: readonly string[]): EmittedFile[] {
  return compileValidatorSets([{ release, tools }]);
}

/**
 * The validators of several releases at once: a definition that compiles to the same code (with the same
 * dependencies) in two releases is emitted once, in the packs shared by every release (`validate/packs/`).
 */
export function compileValidatorSets(sets: readonly { release: Release; tools?: readonly string[] | undefined }[]): EmittedFile[] {
  const compiled = sets.map(({ release, tools }) => {
    const selected = selectTools(release, tools);
    // Batch tools answering items one by one: each item's and each row's schema gets a validator of its own.
    const outcomes = new Map<string, ItemOutcomes>();
    for (const tool of selected) {
      const o = itemOutcomes(release, tool);
      if (o !== undefined) outcomes.set(tool.name, o);
    }
    const splits = [...outcomes.values()].flatMap((o) => o.pairings.flatMap((p) => [p.item, p.row])).filter((l) => l.inline && !referencedInside(release, l));
    // Only the documents the selected tools reach (the schema graph): nothing else is compiled.
    const reached = reachedDocuments(release, selected);
    const reachedIds = new Set(reached.map((f) => f.id));
    const { ajv, locations, uriOf } = createCompileAjv(release, [...release.schemas.byId.values()].filter((f) => reachedIds.has(f.id)), splits);
    checkKeywords(release, ajv, reached);
    const ids = schemaIds(release);
    const splitter = new UnitSplitter(locations, release.graph, (l) => documentName(ids, l.file));
    const rootOf = (path: string): Unit => splitter.unitOf(compileRoot(ajv, release, path));
    const unitAt = (l: Location): Unit => splitter.unitOf(compileUri(ajv, release, uriOf(l), `${l.file.path}#${l.pointer}`));
    const toolRoots = selected.map((tool) => ({
      tool,
      request: rootOf(tool.requestSchema),
      response: rootOf(tool.responseSchema),
      async: tool.asyncResponseSchemas.map((path) => ({ status: asyncStatus(release, path), path, unit: rootOf(path) })),
      items: outcomes.get(tool.name),
      pairs: (outcomes.get(tool.name)?.pairings ?? []).map((p) => ({ item: unitAt(p.item), row: unitAt(p.row) })),
    }));
    return { release, toolRoots };
  });

  const { files: out, ref } = emitDefinitions(
    compiled.flatMap(({ release, toolRoots }) =>
      toolRoots.flatMap((t) => [
        { name: `${t.tool.name}.request`, roots: [t.request, ...t.pairs.map((p) => p.item)] },
        { name: `${t.tool.name}.response`, roots: [t.response, ...t.async.map((a) => a.unit), ...t.pairs.map((p) => p.row)] },
      ]).map((e) => ({ ...e, label: release.label })),
    ),
  );
  for (const { release, toolRoots } of compiled) {
    const input = (file: SchemaFile): InputRef => ({ name: `${release.label}:${file.path}`, hash: file.hash });
    const file = (p: string): SchemaFile => release.schemas.byPath.get(p)!;
    const validators = ARTIFACT_PATHS.validators(release.key);
    const from = posix.dirname(validators);
    out.push({
      path: validators,
      contents: validatorsModule(release, toolRoots, (u) => ref(u, from)),
      inputs: toolRoots
        .flatMap((t) => [t.tool.requestSchema, t.tool.responseSchema, ...t.async.map((a) => a.path)])
        .map((p) => input(file(p)))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    });
    for (const t of toolRoots) {
      if (t.items !== undefined) {
        const from = `releases/${release.key}/items`;
        out.push({
          path: ARTIFACT_PATHS.items(release.key, t.tool.name),
          contents: itemsModule(release, t.items, t.pairs, (u) => ref(u, from)),
          inputs: [input(file(t.tool.requestSchema)), input(file(t.tool.responseSchema))],
        });
      }
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Validators for arbitrary schema locations of a release (`<file $id>#<pointer>`), for tests and tools: the
 * definition and support modules, and for each location the path of the module exporting its `validate`.
 */
export function compileSchemaValidators(release: Release, uris: readonly string[]): { files: EmittedFile[]; modules: Map<string, string> } {
  const { ajv, locations } = createCompileAjv(release);
  const ids = schemaIds(release);
  const splitter = new UnitSplitter(locations, release.graph, (l) => documentName(ids, l.file));
  const roots = uris.map((uri) => {
    const fn = ajv.getSchema(uri);
    if (fn === undefined) throw new CodegenError(release.label, '', `no schema at ${uri}`);
    return splitter.unitOf(fn as unknown as CompiledFn);
  });
  const { files, ref } = emitDefinitions(roots.map((root, i) => ({ name: `location-${i}`, roots: [root], label: release.label })));
  const base = `releases/${release.key}/validate/locations`;
  const modules = new Map<string, string>();
  uris.forEach((uri, i) => {
    const path = `${base}/${i}.cjs`;
    files.push({ path, contents: toolModule(uri, [`exports.validate = ${ref(roots[i]!, base)}.validate;`]), inputs: [] });
    modules.set(uri, path);
  });
  return { files, modules };
}

/** Where the definition packs and the vendored support modules of every release live. */
export const VALIDATE_DIR = 'validate';

/**
 * The definition packs of every unit the entries reach (of one or several releases), and the support files they
 * require. `ref(unit, fromDir)` is the expression, in a module of directory `fromDir`, for the unit's exports.
 */
function emitDefinitions(entries: readonly (PackEntry & { label: string })[]): { files: EmittedFile[]; ref: (u: Unit, fromDir: string) => string } {
  const units = closure(entries.flatMap((e) => e.roots));
  // Units are per release (each release has its own Ajv): the release of a unit is the release of its entries.
  const labels = new Map<Unit, string>();
  for (const e of entries) for (const u of closure(e.roots)) labels.set(u, e.label);
  const releaseLabel = (u: Unit): string => labels.get(u)!;
  const packed = packUnits(entries, units, nameModules(units));
  const files: EmittedFile[] = packed.files.map((p) => ({
    path: `${VALIDATE_DIR}/${p.path}`,
    contents: p.contents,
    inputs: [...new Map(p.units.flatMap((u) => sourceDocuments(u.location.file).map((f) => [`${releaseLabel(u)}\0${f.path}\0${f.hash}`, { name: `${releaseLabel(u)}:${f.path}`, hash: f.hash }] as const))).values()]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    // Ajv's code, one statement per line: prettier would indent its deep nesting into three times the bytes (and
    // the parse time at cold start) for no reader — these modules are content-addressed and never edited.
    verbatim: true,
  }));
  files.push(...supportFiles(`${VALIDATE_DIR}/${SUPPORT_DIR}`));
  const ref = (u: Unit, fromDir: string): string => {
    const target = posix.relative(fromDir, `${VALIDATE_DIR}/${packed.pathOf(u)}`);
    return `require(${jsonText(target.startsWith('.') ? target : `./${target}`)})[${jsonText(packed.keyOf(u))}]`;
  };
  return { files, ref };
}

/**
 * `releases/<key>/validate.cjs`: every tool's validators of one release, each a getter that loads its definition
 * pack on first use. One small module per release rather than two per tool: a first call opens one entry file, and
 * the set has 2 × tools fewer files. The table has no prototype, so a tool's name is only ever an own key.
 */
function validatorsModule(release: Release, toolRoots: readonly { tool: ToolDef; request: Unit; response: Unit; async: readonly { status: string; unit: Unit }[] }[], ref: (u: Unit) => string): string {
  const getter = (name: string, u: Unit, indent: string): string[] => [`${indent}get ${jsonText(name)}() {`, `${indent}  return ${ref(u)}.validate;`, `${indent}},`];
  const body = ['const tools = Object.create(null);', 'module.exports = tools;'];
  for (const t of toolRoots) {
    body.push(
      `/* ${commentText(`${t.tool.requestSchema} → ${t.tool.responseSchema}`)} */`,
      `tools[${jsonText(t.tool.name)}] = {`,
      ...getter('request', t.request, '  '),
      ...getter('response', t.response, '  '),
      '  // Async task responses by task status.',
      t.async.length === 0 ? '  responseAsync: {},' : ['  responseAsync: {', ...t.async.flatMap((a) => getter(a.status, a.unit, '    ')), '  },'].join('\n'),
      '};',
    );
  }
  return toolModule(`${release.label}: each tool's request, response and async response validators, loaded on first use`, body);
}

function toolModule(comment: string, body: string[]): string {
  return ['"use strict";', `/* ${comment.replace(/\*\//g, '*\\/')} */`, ...body, ''].join('\n');
}

/**
 * Strict mode, with the place named: Ajv's own "unknown keyword" error does not say where. Every keyword of the
 * documents the tools reach (the schema graph knows each document's keywords) is checked against Ajv's keywords
 * (including the declared annotations); a document holding an unknown one, such as a misspelt `minLenght`, is
 * walked to name the node, and the build fails with its file and pointer.
 */
function checkKeywords(release: Release, ajv: AjvInstance, files: readonly SchemaFile[]): void {
  const known = (key: string): boolean => Object.prototype.hasOwnProperty.call(ajv.RULES.keywords, key);
  for (const file of files) {
    if ([...release.graph.keywords(file)].every(known)) continue;
    walkSchema(file.schema, (node, pointer) => {
      if (!isPlainObject(node)) return;
      const key = Object.keys(node).find((k) => !known(k));
      if (key !== undefined) {
        throw new CodegenError(`${release.label}/${file.path}`, pointer, `unknown keyword ${JSON.stringify(key)} (strict mode; declare annotations as x-* keywords)`);
      }
    });
  }
}

/** Every document the tools' schemas reach, in path order. */
function reachedDocuments(release: Release, tools: readonly ToolDef[]): SchemaFile[] {
  const files = new Set(tools.flatMap((t) => release.graph.tool(t.name)?.all ?? []));
  return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * A tool's per-item outcomes (compile/items/, runtime/items.ts): which request array each response array answers,
 * the row fields copied or set, and getters for the validators of one item and of one row (loaded on first use).
 */
function itemsModule(release: Release, o: ItemOutcomes, units: readonly { item: Unit; row: Unit }[], ref: (u: Unit) => string): string {
  const pairings = o.pairings.map((p, i) =>
    [
      '  {',
      `    request: ${jsonText(p.request)},`,
      `    response: ${jsonText(p.response)},`,
      `    identity: ${jsonText(p.identity)},`,
      `    outcome: ${jsonText(p.outcome)},`,
      ...(p.maxItems !== undefined ? [`    maxItems: ${jsonText(p.maxItems)},`] : []),
      `    get validateItem() {`,
      `      return ${ref(units[i]!.item)}.validate;`,
      '    },',
      `    get validateRow() {`,
      `      return ${ref(units[i]!.row)}.validate;`,
      '    },',
      '  },',
    ].join('\n'),
  );
  const arrays = o.pairings.map((p) => `${p.request}[] -> ${p.response}[]`).join(', ');
  return toolModule(`${release.label} ${o.tool}: per-item outcomes, ${arrays}`, [
    '// `validation_mode`-like request field that must ask for per-item processing (null: always).',
    `exports.gate = ${jsonText(o.gate ?? null)};`,
    '// The success body (besides the rows) when no item is valid; null: the call is then rejected as a whole.',
    `exports.body = ${jsonText(o.body ?? null)};`,
    `exports.pairings = [\n${pairings.join('\n')}\n];`,
  ]);
}

/**
 * Whether a `$ref` of the release lands inside an inline schema: moving it for a validator of its own (splits) would
 * leave that reference dangling, so such a schema is compiled on its own as well instead.
 */
function referencedInside(release: Release, l: Location): boolean {
  for (const file of release.schemas.byPath.values()) {
    for (const r of release.graph.references(file)) {
      const t = r.target;
      if (t !== undefined && t.file === l.file && (t.pointer === l.pointer || t.pointer.startsWith(`${l.pointer}/`))) return true;
    }
  }
  return false;
}

/** Compiles one schema location by URI; an Ajv failure becomes a CodegenError naming the location. */
function compileUri(ajv: AjvInstance, release: Release, uri: string, where: string): CompiledFn {
  try {
    const fn = ajv.getSchema(uri);
    if (fn === undefined) throw new Error(`Ajv has no schema ${uri}`);
    return fn as unknown as CompiledFn;
  } catch (e) {
    throw new CodegenError(`${release.label}/${where}`, '', `cannot compile the validator: ${(e as Error).message}`);
  }
}

/** Compiles one canonical schema file; an Ajv failure becomes a CodegenError naming the file. */
function compileRoot(ajv: AjvInstance, release: Release, path: string): CompiledFn {
  const file = release.schemas.byPath.get(path);
  if (file === undefined) throw new CodegenError(`${release.label}/manifest.json`, '/tools', `schema ${path} is not in the release`);
  try {
    const fn = ajv.getSchema(file.id);
    if (fn === undefined) throw new Error(`Ajv has no schema ${file.id}`);
    return fn as unknown as CompiledFn;
  } catch (e) {
    throw new CodegenError(`${release.label}/${path}`, '', `cannot compile the validator: ${(e as Error).message}`);
  }
}

/**
 * The task status an async response schema answers. Its `status` const when it declares one (3.2
 * `…-async-response-submitted.json`); otherwise the suffix the release names it by (`…-async-response-working`,
 * `…-input-required`), which are the task-status enum values.
 */
export function asyncStatus(release: Release, path: string): string {
  const schema = release.schemas.byPath.get(path)?.schema;
  const props = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : undefined;
  const status = props !== undefined && isPlainObject(props.status) ? props.status.const : undefined;
  if (typeof status === 'string') return status;
  const m = /-async-response-([a-z-]+)\.json$/.exec(path);
  if (m) return m[1]!;
  throw new CodegenError(`${release.label}/${path}`, '/properties/status', 'async response schema declares no status const and its name carries none');
}

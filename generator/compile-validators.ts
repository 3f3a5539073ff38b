import { ARTIFACT_PATHS } from '../runtime/contract.js';
import { CodegenError } from './errors.js';
import type { EmittedFile, InputRef, Release, SchemaFile, ToolDef } from './model.js';
import { isPlainObject } from './schema-walk.js';
import { createCompileAjv, type AjvInstance } from './validators-ajv.js';
import { jsonText } from './validators-code.js';
import { closure, DEFS_DIR, nameModules, renderUnit, SUPPORT_DIR } from './validators-modules.js';
import { locateSchemas, UnitSplitter, type CompiledFn, type Unit } from './validators-split.js';
import { supportFiles } from './validators-support.js';

export { createRuntimeAjv } from './validators-ajv.js';

/**
 * Compiled canonical validators of one release (issue 7). Every tool's request schema, response schema and async
 * response schemas are compiled by Ajv standalone from the modular draft-07 schemas, split into one module per
 * compiled definition (`validate/defs/<location>-<hash>.cjs`), and fronted by the per-tool modules the runtime loads
 * (runtime/contract.ts ARTIFACT_PATHS). A definition shared by many tools is emitted once; loading one tool loads
 * only its own closure.
 */
export function compileValidators(release: Release, tools?: readonly string[]): EmittedFile[] {
  const selected = selectTools(release, tools);
  const { ajv, docs } = createCompileAjv(release);
  const splitter = new UnitSplitter(locateSchemas(docs, release.schemas.byId), (ref, baseId) => release.schemas.resolve(ref, baseId));
  const rootOf = (path: string): Unit => splitter.unitOf(compileRoot(ajv, release, path));

  const toolRoots = selected.map((tool) => ({
    tool,
    request: rootOf(tool.requestSchema),
    response: rootOf(tool.responseSchema),
    async: tool.asyncResponseSchemas.map((path) => ({ status: asyncStatus(release, path), path, unit: rootOf(path) })),
  }));

  const units = closure(toolRoots.flatMap((t) => [t.request, t.response, ...t.async.map((a) => a.unit)]));
  const names = nameModules(units, release.label);
  const base = `releases/${release.key}/validate`;
  const input = (file: SchemaFile): InputRef => ({ name: `${release.label}:${file.path}`, hash: file.hash });
  const defPath = (u: Unit): string => `${DEFS_DIR}/${names.get(u)!}`;

  const out: EmittedFile[] = [];
  for (const u of units) {
    out.push({ path: `${base}/${defPath(u)}`, contents: renderUnit(u, release.label, (d) => names.get(d)!), inputs: [input(u.location.file)] });
  }
  for (const t of toolRoots) {
    const file = (p: string): SchemaFile => release.schemas.byPath.get(p)!;
    out.push({
      path: ARTIFACT_PATHS.request(release.key, t.tool.name),
      contents: toolModule(`${release.label} ${t.tool.name} request: ${t.tool.requestSchema}`, [`exports.validate = require(${jsonText(`./${defPath(t.request)}`)}).validate;`]),
      inputs: [input(file(t.tool.requestSchema))],
    });
    const asyncLines = t.async.map((a) => `  get ${jsonText(a.status)}() {\n    return require(${jsonText(`./${defPath(a.unit)}`)}).validate;\n  },`);
    out.push({
      path: ARTIFACT_PATHS.response(release.key, t.tool.name),
      contents: toolModule(`${release.label} ${t.tool.name} response: ${t.tool.responseSchema}`, [
        `exports.validate = require(${jsonText(`./${defPath(t.response)}`)}).validate;`,
        '// Async task responses by task status; each is loaded on first use only.',
        t.async.length === 0 ? 'exports.validateAsync = {};' : `exports.validateAsync = {\n${asyncLines.join('\n')}\n};`,
      ]),
      inputs: [t.tool.responseSchema, ...t.async.map((a) => a.path)].map((p) => input(file(p))),
    });
  }
  out.push(...supportFiles(`${base}/${SUPPORT_DIR}`));
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function toolModule(comment: string, body: string[]): string {
  return ['"use strict";', `/* ${comment.replace(/\*\//g, '*\\/')} */`, ...body, ''].join('\n');
}

function selectTools(release: Release, tools: readonly string[] | undefined): ToolDef[] {
  const names = tools ?? [...release.tools.keys()].filter((n) => !release.unavailable.has(n));
  return [...new Set(names)].sort().map((name) => {
    const tool = release.tools.get(name);
    if (tool === undefined) throw new CodegenError(`${release.label}/manifest.json`, `/tools`, `no tool ${JSON.stringify(name)} in this release`);
    const why = release.unavailable.get(name);
    if (why !== undefined) throw new CodegenError(`${release.label}/manifest.json`, `/tools/${name}`, `tool ${name} is unavailable: ${why}`);
    return tool;
  });
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

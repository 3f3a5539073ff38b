import { join, relative } from 'node:path';
import { CodegenError, sha256, joinPointer, isPlainObject, readInputFile } from '../shared/index.js';
import type {
  ErrorCodeDef,
  JsonSchemaObject,
  McpProjection,
  McpToolProjection,
  Release,
  ResolvedRef,
  SchemaFile,
  SchemaGraph,
  SchemaRegistry,
  SpecialismDef,
  TaskResultResolution,
  ToolDef,
} from './model.js';
import { entryExists, listDirectory, requireDirectory, treeFiles } from './input-tree.js';
import { parseJson, readJson } from './read-json.js';
import { createRegistry } from './registry.js';
import { buildSchemaGraph } from './schema-graph.js';
import { compareWireVersions, parseWireVersion, wireVersionOf } from '../../runtime/wire/versions.js';

/** Directories of a release that are not modular canonical schemas. */
const NON_MODULAR_DIRS = new Set(['bundled', 'mcp', 'node_modules']);

/**
 * Loads one AdCP release directory (as the spec repo publishes `dist/schemas/<version>/`) into a Release.
 * Nothing here depends on the version: layouts differ only in data (rooted vs absolute `$id`s, MCP projection
 * present or not), and the loader reads whatever the manifest and the files say.
 */
export function loadRelease(dir: string, display: string = dir, digest: ReleaseDigest = digestRelease(dir, display)): Release {
  const manifestFile = `${display}/manifest.json`;
  const manifest = readJson(join(dir, 'manifest.json'), manifestFile);
  if (!isPlainObject(manifest)) throw new CodegenError(manifestFile, '', 'manifest must be a JSON object');
  const version = manifest.adcp_version;
  if (typeof version !== 'string') throw new CodegenError(manifestFile, '/adcp_version', 'must be a version string');
  // The release's name on the wire and in the generated set: release precision with its pre-release tag.
  const key = wireVersionOf(version);
  if (key === undefined) throw new CodegenError(manifestFile, '/adcp_version', `${JSON.stringify(version)} is not a semantic version`);
  const { major, minor, prerelease } = parseWireVersion(key)!;

  const files = readModularSchemas(dir, display);
  const registry = createRegistry(files, display);
  const tools = readTools(manifest, manifestFile);
  // A release copy may omit a whole schema area (the one inside @adcp/sdk ships no compliance/ directory): such a
  // tool is kept out of reach, with the reason, instead of failing every profile that never asks for it.
  const unavailable = new Map<string, string>();
  const graph = buildSchemaGraph(registry, tools);
  const checked = new Set<SchemaFile>();
  for (const tool of tools.values()) {
    const missing = missingToolSchema(tool, registry);
    if (missing !== undefined) unavailable.set(tool.name, `schema ${missing} is not in this copy of the release`);
    else checkToolSchemas(tool, registry, graph, display, checked);
  }

  const mcp = readMcpProjection(dir, display, tools);
  const hash = digest.hash;

  return {
    version,
    key,
    major,
    minor,
    ...(prerelease !== undefined ? { prerelease } : {}),
    dir,
    label: `adcp-${version}`,
    tools,
    unavailable,
    specialisms: readSpecialisms(manifest),
    errorCodes: readErrorCodes(manifest),
    taskResultResolution: readTaskResultResolution(manifest.task_result_resolution),
    schemas: registry,
    graph,
    mcp,
    hash,
  };
}

/** Release order, highest first (semver precedence at release precision: 3.2 above 3.2-beta.5 above 3.1). */
export function highestFirst(a: Pick<Release, 'major' | 'minor' | 'prerelease'>, b: Pick<Release, 'major' | 'minor' | 'prerelease'>): number {
  return compareWireVersions(b, a);
}

/** A release's identity without parsing it: the sha256 of every file the loader may read. */
export interface ReleaseDigest {
  /** sha256 over `path:sha256(bytes)` of every JSON file outside bundled/ and node_modules/, in path order. */
  readonly hash: string;
}

/**
 * Hashes the bytes of every JSON file of a release directory (the modular schemas, the manifest, the MCP
 * projection) without parsing any: cheap enough to decide, before loading anything, that a regeneration has
 * nothing to do. The same digest is the loaded release's `hash`, so both can never disagree.
 */
export function digestRelease(dir: string, display: string = dir): ReleaseDigest {
  requireDirectory(dir, display, 'release directory not found');
  if (!entryExists(join(dir, 'manifest.json'))) {
    throw new CodegenError(`${display}/manifest.json`, '', 'missing manifest.json: not an AdCP release directory');
  }
  const lines: string[] = [];
  for (const rel of releaseJsonFiles(dir, display, DIGEST_SKIPPED_DIRS)) lines.push(`${rel}:${sha256(readInputFile(join(dir, rel), `${display}/${rel}`))}`);
  return { hash: sha256(lines.join('\n')) };
}

/** Top-level directories the digest does not cover: the loader never reads them. */
const DIGEST_SKIPPED_DIRS = new Set(['bundled', 'node_modules']);

/** The `.json` entries of a release, relative and in path order, outside the top-level directories `skipped`. */
function releaseJsonFiles(dir: string, display: string, skipped: ReadonlySet<string>): string[] {
  return treeFiles(dir, display, (e) => !(e.depth === 0 && skipped.has(e.name))).filter((rel) => rel.endsWith('.json'));
}

function readModularSchemas(dir: string, display: string): SchemaFile[] {
  const out: SchemaFile[] = [];
  for (const rel of releaseJsonFiles(dir, display, NON_MODULAR_DIRS)) {
    if (rel === 'manifest.json' || rel === 'index.json') continue;
    const text = readInputFile(join(dir, rel), `${display}/${rel}`).toString('utf8');
    const schema = parseJson(text, `${display}/${rel}`);
    if (!isPlainObject(schema) || typeof schema.$id !== 'string') continue; // data files (adagents.json …) carry no $id
    // The bytes' hash, not a canonical re-serialisation: sorting every key of every file cost more than parsing.
    out.push({ id: schema.$id, path: rel, schema, hash: sha256(text) });
  }
  return out;
}

function readTools(manifest: Record<string, unknown>, file: string): Map<string, ToolDef> {
  const raw = manifest.tools;
  if (!isPlainObject(raw)) throw new CodegenError(file, '/tools', 'must be an object of tool definitions');
  const tools = new Map<string, ToolDef>();
  for (const name of Object.keys(raw).sort()) {
    const t = raw[name];
    const at = joinPointer('/tools', name);
    if (!isPlainObject(t)) throw new CodegenError(file, at, 'tool definition must be an object');
    const str = (key: string, required: boolean): string | undefined => {
      const v = t[key];
      if (v === undefined && !required) return undefined;
      if (typeof v !== 'string' || v === '') throw new CodegenError(file, `${at}/${key}`, 'must be a non-empty string');
      return v;
    };
    const strList = (key: string): string[] => {
      const v = t[key];
      if (v === undefined) return [];
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new CodegenError(file, `${at}/${key}`, 'must be an array of strings');
      return v as string[];
    };
    const lf = t.legacy_fallback;
    tools.set(name, {
      name,
      protocol: str('protocol', true)!,
      mutating: t.mutating === true,
      summary: str('summary', false),
      requestSchema: str('request_schema', true)!,
      responseSchema: str('response_schema', true)!,
      asyncResponseSchemas: strList('async_response_schemas'),
      specialisms: strList('specialisms'),
      deprecatedIn: str('deprecated_in', false),
      supersededBy: t.superseded_by === undefined ? undefined : strList('superseded_by'),
      legacyFallback: isPlainObject(lf) && typeof lf.mode === 'string' && typeof lf.tool === 'string' ? { mode: lf.mode, tool: lf.tool } : undefined,
      addedIn: str('added_in', false),
      idempotencyRequirement: str('idempotency_requirement', false),
    });
  }
  return tools;
}

/** A tool's canonical schemas: request, response, async responses. */
export function toolSchemaPaths(tool: ToolDef): string[] {
  return [tool.requestSchema, tool.responseSchema, ...tool.asyncResponseSchemas];
}

function missingToolSchema(tool: ToolDef, registry: Release['schemas']): string | undefined {
  return toolSchemaPaths(tool).find((p) => !registry.byPath.has(p));
}

/**
 * Every `$ref` reachable from every tool's request, response and async response schema must resolve (the graph
 * recorded each one at load); the error names the schema file holding the reference and the pointer of the
 * reference. Each document is checked once, whichever tools reach it.
 */
function checkToolSchemas(tool: ToolDef, registry: SchemaRegistry, graph: SchemaGraph, display: string, checked: Set<SchemaFile>): void {
  for (const path of toolSchemaPaths(tool)) {
    const stack: SchemaFile[] = [registry.byPath.get(path)!];
    while (stack.length > 0) {
      const current = stack.pop()!;
      if (checked.has(current)) continue;
      checked.add(current);
      for (const { ref, pointer, target, problem } of graph.references(current)) {
        if (target === undefined) {
          throw new CodegenError(`${display}/${current.path}`, `${pointer}/$ref`, `dangling $ref ${JSON.stringify(ref)}: ${problem}`);
        }
        checkRefChain(registry, target, `${display}/${current.path}`, `${pointer}/$ref`);
        if (!checked.has(target.file)) stack.push(target.file);
      }
    }
  }
}

/**
 * Recursive schemas are fine (a product's child products); a chain of schemas that are nothing but `$ref` and
 * come back to where they started describes no value at all, and every validator would loop on it.
 */
function checkRefChain(registry: Release['schemas'], start: ResolvedRef, file: string, pointer: string): void {
  const visited = new Set<string>();
  let node: ResolvedRef = start;
  while (isPlainObject(node.schema) && typeof node.schema.$ref === 'string' && Object.keys(node.schema).every((k) => k === '$ref' || ANNOTATION_ONLY.has(k))) {
    if (visited.has(node.uri)) throw new CodegenError(file, pointer, `$ref cycle: ${[...visited, node.uri].join(' → ')} never reaches a schema`);
    visited.add(node.uri);
    try {
      node = registry.resolve(node.schema.$ref, node.file.id);
    } catch {
      return; // dangling: reported with its own file and pointer when that file is scanned
    }
  }
}

const ANNOTATION_ONLY = new Set(['$schema', '$id', '$comment', 'title', 'description', 'examples', 'deprecated']);

function readMcpProjection(dir: string, display: string, tools: ReadonlyMap<string, ToolDef>): McpProjection | undefined {
  const mcpRoot = join(dir, 'mcp');
  if (!entryExists(mcpRoot)) return undefined;
  // The newest MCP protocol version directory that carries a manifest.
  const versions = listDirectory(mcpRoot, `${display}/mcp`)
    .map((v) => v.name)
    .filter((v) => entryExists(join(mcpRoot, v, 'manifest.json')));
  const protocolVersion = versions[versions.length - 1];
  if (protocolVersion === undefined) return undefined;
  const rel = `mcp/${protocolVersion}`;
  const full = readProjectionManifest(dir, display, rel, tools);
  // The release's production profile (AdCP 3.2: `annotation_mode: "structural"`, no compliance or deprecated tools).
  const productionRel = `${rel}/profiles/production`;
  const production = entryExists(join(dir, productionRel, 'manifest.json')) ? readProjectionManifest(dir, display, productionRel, tools) : undefined;
  return {
    protocolVersion,
    dir: rel,
    schemaDialect: typeof full.manifest.schema_dialect === 'string' ? full.manifest.schema_dialect : 'https://json-schema.org/draft/2020-12/schema',
    tools: full.tools,
    ...(production !== undefined ? { production: production.tools } : {}),
  };
}

/** One projection manifest (`tools` → inputSchema/outputSchema files relative to it) with its schema documents. */
function readProjectionManifest(
  dir: string,
  display: string,
  rel: string,
  tools: ReadonlyMap<string, ToolDef>,
): { manifest: Record<string, unknown>; tools: Map<string, McpToolProjection> } {
  const manifestFile = `${display}/${rel}/manifest.json`;
  const manifest = readJson(join(dir, rel, 'manifest.json'), manifestFile);
  if (!isPlainObject(manifest) || !isPlainObject(manifest.tools)) {
    throw new CodegenError(manifestFile, '/tools', 'MCP projection manifest must map tool names to schemas');
  }
  const out = new Map<string, McpToolProjection>();
  for (const name of Object.keys(manifest.tools).sort()) {
    const entry = manifest.tools[name];
    const at = joinPointer('/tools', name);
    if (!tools.has(name)) throw new CodegenError(manifestFile, at, `tool ${name} is not in the release manifest`);
    if (!isPlainObject(entry) || typeof entry.inputSchema !== 'string' || typeof entry.outputSchema !== 'string') {
      throw new CodegenError(manifestFile, at, 'must name inputSchema and outputSchema files');
    }
    // Parsed on first use: the projection holds every tool's bundled documents (31 MB for 3.2), and a profile reads
    // a dozen of them. The release digest already covers their bytes.
    const lazy = (p: string, key: string): (() => JsonSchemaObject) => {
      let value: JsonSchemaObject | undefined;
      return () => {
        if (value !== undefined) return value;
        const s = readJson(join(dir, rel, p), `${display}/${rel}/${p}`);
        if (!isPlainObject(s)) throw new CodegenError(manifestFile, `${at}/${key}`, `${p} is not a schema object`);
        return (value = s);
      };
    };
    const input = lazy(entry.inputSchema, 'inputSchema');
    const output = lazy(entry.outputSchema, 'outputSchema');
    out.set(name, {
      inputSchemaPath: `${rel}/${entry.inputSchema}`,
      outputSchemaPath: `${rel}/${entry.outputSchema}`,
      get inputSchema() {
        return input();
      },
      get outputSchema() {
        return output();
      },
    });
  }
  return { manifest, tools: out };
}

function readSpecialisms(manifest: Record<string, unknown>): Map<string, SpecialismDef> {
  const out = new Map<string, SpecialismDef>();
  const raw = manifest.specialisms;
  if (!isPlainObject(raw)) return out;
  for (const name of Object.keys(raw).sort()) {
    const s = raw[name];
    if (!isPlainObject(s)) continue;
    const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    out.set(name, {
      protocol: typeof s.protocol === 'string' ? s.protocol : '',
      title: typeof s.title === 'string' ? s.title : undefined,
      entryPointTools: list(s.entry_point_tools),
      exercisedTools: list(s.exercised_tools),
    });
  }
  return out;
}

function readErrorCodes(manifest: Record<string, unknown>): Map<string, ErrorCodeDef> {
  const out = new Map<string, ErrorCodeDef>();
  const raw = manifest.error_codes;
  if (!isPlainObject(raw)) return out;
  for (const code of Object.keys(raw).sort()) {
    const e = raw[code];
    if (!isPlainObject(e)) continue;
    out.set(code, {
      recovery: typeof e.recovery === 'string' ? e.recovery : 'transient',
      description: typeof e.description === 'string' ? e.description : undefined,
      suggestion: typeof e.suggestion === 'string' ? e.suggestion : undefined,
    });
  }
  return out;
}

function readTaskResultResolution(raw: unknown): TaskResultResolution | undefined {
  if (!isPlainObject(raw) || typeof raw.discriminator_field !== 'string') return undefined;
  const overrides: Record<string, string> = {};
  if (isPlainObject(raw.terminal_schema_overrides)) {
    for (const [k, v] of Object.entries(raw.terminal_schema_overrides)) if (typeof v === 'string') overrides[k] = v;
  }
  return {
    discriminatorField: raw.discriminator_field,
    terminalSchemaPointerTemplate: typeof raw.terminal_schema_pointer_template === 'string' ? raw.terminal_schema_pointer_template : '/tools/{task_type}/response_schema',
    terminalSchemaOverrides: overrides,
  };
}

/** Path for messages: relative to the working directory when inside it, never a bare absolute path otherwise. */
export function displayPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel.split('\\').join('/');
}

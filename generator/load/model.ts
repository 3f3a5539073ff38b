/**
 * The in-memory model every stage reads. `load` builds it; nothing after `load` touches the file system
 * for inputs, so every later stage is a pure function of these values.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema node (draft-07 or 2020-12). Booleans are valid schemas. */
export type JsonSchema = boolean | JsonSchemaObject;
export interface JsonSchemaObject {
  [keyword: string]: unknown;
}

/** One modular schema file of a release, registered under its `$id`. */
export interface SchemaFile {
  /** The `$id` exactly as the file declares it (relative `/schemas/3.0.6/...` or absolute URL). */
  readonly id: string;
  /** Path relative to the release directory, with forward slashes (`media-buy/create-media-buy-request.json`). */
  readonly path: string;
  readonly schema: JsonSchemaObject;
  /** sha256 of the file's bytes. */
  readonly hash: string;
}

/** Where a `$ref` lands: the file that holds the target, the pointer inside it, and the target node. */
export interface ResolvedRef {
  readonly file: SchemaFile;
  /** RFC 6901 pointer inside `file.schema` ("" for the root). */
  readonly pointer: string;
  readonly schema: JsonSchema;
  /** The absolute-or-rooted URI of the target (`<file id>#<pointer>`). */
  readonly uri: string;
}

export interface SchemaRegistry {
  readonly byId: ReadonlyMap<string, SchemaFile>;
  readonly byPath: ReadonlyMap<string, SchemaFile>;
  /** Resolve `ref` as written inside the document whose base URI is `baseId`. Throws CodegenError when dangling. */
  resolve(ref: string, baseId: string): ResolvedRef;
}

/**
 * The schema graph of one release, built once when the release is loaded: every document by `$id`, every `$ref`
 * of every document resolved once, which documents each tool's request and responses reach, and which documents
 * refer to each other in cycles. The compilers (validators, strip, normalize, types) and the project stage read
 * it instead of each walking the release again with a reference closure of its own.
 *
 * Nodes are the documents of the release (its modular schema files); an edge is a `$ref` from a schema position
 * of one document into another (or the same) document. `$ref`s are found only at schema positions
 * (shared/schema-walk.ts): a `$ref` key inside `enum`, `const`, `examples` or `x-*` data is data, not an edge.
 */
export interface SchemaGraph {
  /** Every document of the release by its `$id` (the registry's index). */
  readonly documents: ReadonlyMap<string, SchemaFile>;
  /** The `$ref`s of one document, in the order a depth-first walk of its schema positions meets them. */
  references(file: SchemaFile): readonly SchemaReference[];
  /** The reference a schema object holds (`{ $ref }`), by the object's identity: resolved once for every reader. */
  referenceAt(node: object): SchemaReference | undefined;
  /** Where the `$ref` of `node` lands. Throws, with the reason, for a node without a reference or a dangling one. */
  target(node: object): ResolvedRef;
  /** The documents `file` refers to, itself included when it refers into itself, in path order. */
  dependencies(file: SchemaFile): readonly SchemaFile[];
  /** Every document reachable from `roots` (the roots included), in path order. */
  reach(roots: readonly SchemaFile[]): readonly SchemaFile[];
  /** What one available tool's schemas reach. Undefined for a tool the release lacks schemas for. */
  tool(name: string): ToolReach | undefined;
  /**
   * Documents that refer to each other (or to themselves) in a cycle — the recursive definitions of the release
   * (a product's child products) — as strongly connected components, dependencies first, each in path order.
   */
  readonly cycles: readonly (readonly SchemaFile[])[];
  /** Every keyword used at a schema position of one document (Ajv strict mode checks them per reached document). */
  keywords(file: SchemaFile): ReadonlySet<string>;
  /** Every keyword used at a schema position anywhere in the release. */
  readonly vocabulary: ReadonlySet<string>;
  /** Every property name the release declares (`properties`, `required`, `dependencies` keys) anywhere. */
  readonly propertyNames: ReadonlySet<string>;
}

/** One `$ref` at a schema position, with where it lands. */
export interface SchemaReference {
  readonly from: SchemaFile;
  /** RFC 6901 pointer of the schema object that holds the `$ref`, inside `from.schema`. */
  readonly pointer: string;
  /** The `$ref` as written. */
  readonly ref: string;
  /** Where it lands; undefined when it dangles (then `problem` says why). */
  readonly target?: ResolvedRef;
  readonly problem?: string;
}

/** The documents one tool's schemas reach, each list in path order. */
export interface ToolReach {
  /** From the request schema. */
  readonly request: readonly SchemaFile[];
  /** From the response schema and every async response schema. */
  readonly response: readonly SchemaFile[];
  /** Both, without repeats. */
  readonly all: readonly SchemaFile[];
}

export interface LegacyFallback {
  readonly mode: string;
  readonly tool: string;
}

/** A tool as the release manifest declares it. */
export interface ToolDef {
  readonly name: string;
  readonly protocol: string;
  readonly mutating: boolean;
  readonly summary?: string;
  /** Release-relative paths of the canonical schemas. */
  readonly requestSchema: string;
  readonly responseSchema: string;
  readonly asyncResponseSchemas: readonly string[];
  readonly specialisms: readonly string[];
  readonly deprecatedIn?: string;
  readonly supersededBy?: readonly string[];
  readonly legacyFallback?: LegacyFallback;
  readonly addedIn?: string;
  readonly idempotencyRequirement?: string;
}

export interface McpToolProjection {
  readonly inputSchemaPath: string;
  readonly outputSchemaPath: string;
  readonly inputSchema: JsonSchemaObject;
  readonly outputSchema: JsonSchemaObject;
}

/** The `mcp/<protocol-version>/` tools/list projection (AdCP ≥ 3.2). A hint for tools/list only. */
export interface McpProjection {
  readonly protocolVersion: string;
  /** Release-relative directory, e.g. `mcp/2026-07-28`. */
  readonly dir: string;
  readonly schemaDialect: string;
  readonly tools: ReadonlyMap<string, McpToolProjection>;
  /** `profiles/production/` (`annotation_mode: "structural"`), where the release ships it: production tools only. */
  readonly production?: ReadonlyMap<string, McpToolProjection>;
}

export interface TaskResultResolution {
  readonly discriminatorField: string;
  readonly terminalSchemaPointerTemplate: string;
  readonly terminalSchemaOverrides: Readonly<Record<string, string>>;
}

export interface ErrorCodeDef {
  readonly recovery: string;
  readonly description?: string;
  readonly suggestion?: string;
}

export interface SpecialismDef {
  readonly protocol: string;
  readonly title?: string;
  readonly entryPointTools: readonly string[];
  readonly exercisedTools: readonly string[];
}

export interface Release {
  /** Full version from the manifest, e.g. `3.2.0-beta.5`. */
  readonly version: string;
  /**
   * Release precision with the pre-release tag (`3.2-beta.5`, `3.0`): the release's AdCP wire version
   * (runtime/versions.ts), which buyers pin, `supported_versions` lists and the generated set's paths and
   * per-release handler keys use.
   */
  readonly key: string;
  readonly major: number;
  readonly minor: number;
  /** The pre-release tag (`beta.5`), absent for a release. */
  readonly prerelease?: string;
  /** The directory as given (display only; never written into output). */
  readonly dir: string;
  /** How the release is named in headers and manifests: `@adcp/sdk:3.0.6` or `3.2.0-beta.5`, never an absolute path. */
  readonly label: string;
  readonly tools: ReadonlyMap<string, ToolDef>;
  /** Tools the manifest declares whose schemas this copy of the release lacks, with the reason. Never selectable. */
  readonly unavailable: ReadonlyMap<string, string>;
  readonly specialisms: ReadonlyMap<string, SpecialismDef>;
  readonly errorCodes: ReadonlyMap<string, ErrorCodeDef>;
  readonly taskResultResolution?: TaskResultResolution;
  readonly schemas: SchemaRegistry;
  /** The release's schema graph (load/schema-graph.ts), built once at load: what every compiler reads. */
  readonly graph: SchemaGraph;
  readonly mcp?: McpProjection;
  /** The release digest (release.ts digestRelease): its identity in headers and caches. */
  readonly hash: string;
}

export interface Profile {
  readonly name: string;
  /** Path as given in the config (relative to the config's directory when possible). */
  readonly file: string;
  readonly tools: readonly string[];
  readonly capabilities: JsonObject;
  /** Release keys (or unambiguous `MAJOR.MINOR` aliases) the profile names, as written; undefined means every configured release. */
  readonly releases?: readonly string[];
  /** The release served to calls that pin none, as written (a key or an alias, like `releases`); profile.ts resolves it. */
  readonly defaultRelease?: string;
  /** Tool names outside the agent's protocols that the host shares (DESIGN step 2). */
  readonly sharedTools: readonly string[];
  /** `production` (default) excludes the `compliance` protocol; `sandbox` admits it. */
  readonly surface: 'production' | 'sandbox';
  /** How tools/list is advertised: annotation mode (default structural on production, full on sandbox) and outputSchema (default off). */
  readonly advertise: { readonly annotations: 'structural' | 'full'; readonly outputSchema: boolean };
  readonly hash: string;
}

export interface Config {
  /** Path of the config file, or undefined when built from flags alone. */
  readonly file?: string;
  readonly releases: readonly string[];
  readonly profiles: readonly string[];
  readonly normalizations: readonly string[];
  /** Conversion rule files between releases (default: the shipped ones). */
  readonly conversions: readonly string[];
  readonly overlays: readonly string[];
  readonly acceptedRecords: readonly string[];
  readonly out: string;
  readonly strict: boolean;
}

/** A hashed input named in a generated file's do-not-edit header. */
export interface InputRef {
  /** e.g. `adcp-3.2.0-beta.5:media-buy/create-media-buy-request.json`, `profile:guaranteed-publisher`. */
  readonly name: string;
  readonly hash: string;
}

/**
 * One file of the generated output, before formatting and writing. Compile stages return these; `emit` adds the
 * do-not-edit header (from templates/) naming `inputs`, `format` runs prettier, `write` swaps them in atomically.
 */
export interface EmittedFile {
  /** Path relative to the output directory, forward slashes, e.g. `releases/3.2/strip/create_media_buy.cjs`. */
  readonly path: string;
  readonly contents: string;
  readonly inputs: readonly InputRef[];
  /** Machine code the compile stage keeps as it wrote it: the format stage leaves it alone. */
  readonly verbatim?: boolean;
}

/**
 * adcp-codegen, the generator side. The generated sets need none of this at run time.
 */
export { generate, type GenerateOptions, type GenerateResult } from './generate.js';
export { projectSchemaForCapabilities, appliesWhenSatisfied } from './project/index.js';
export { compileStrip, type Resolver as StripResolver } from './compile/index.js';
export { loadRelease, type Release, type Profile, type ToolDef, type JsonSchema, type JsonSchemaObject, type JsonObject, type EmittedFile } from './load/index.js';
export { selectTools, type Selection, type SelectedTool } from './select/index.js';
export { CodegenError, UsageError } from './shared/index.js';

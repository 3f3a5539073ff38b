/**
 * adcp-codegen, the generator side. The generated sets need none of this at run time.
 */
export { generate, type GenerateOptions, type GenerateResult } from './generate.js';
export { projectSchemaForCapabilities, appliesWhenSatisfied } from './project.js';
export { compileStrip } from './compile-strip.js';
export type { Resolver as StripResolver } from './strip-analysis.js';
export { loadRelease } from './load-release.js';
export { selectTools, type Selection, type SelectedTool } from './select.js';
export { CodegenError, UsageError } from './errors.js';
export type { Release, Profile, ToolDef, JsonSchema, JsonSchemaObject, JsonObject, EmittedFile } from './model.js';

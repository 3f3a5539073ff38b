/**
 * Stage 4, compile: per release, one artifact kind per folder — validators/ (Ajv standalone code), strip/
 * (deep-strip of undeclared fields), normalize/ (deprecated fields into their current form), types/ (TypeScript
 * declarations) — as compile units a regeneration can reuse.
 */
export { compile, type CompileResult, type CompileUnit, dedupe, type SkippedRule } from './compile.js';
export { compileNormalizers, deprecatedRequestFields, planNormalizations } from './normalize/index.js';
export { reportSkippedRules } from './report-rules.js';
export { compileStrip, compileStripModules, compileStripSource, interpretStrip, type Resolver } from './strip/index.js';
export { compileTypes } from './types/index.js';
export { itemOutcomes, type ItemOutcomes, type ItemPairing } from './items/index.js';
export { CAT_HELPER, COMPACT_HELPERS, compactCode, compileSchemaValidators, compileValidators, compileValidatorSets, createRuntimeAjv, ERROR_HELPER, PUSH_HELPER, schemaIds, type SchemaIds } from './validators/index.js';

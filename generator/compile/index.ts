/**
 * Stage 4, compile: per release, one artifact kind per folder — validators/ (Ajv standalone code), strip/
 * (deep-strip of undeclared fields), normalize/ (deprecated fields into their current form), types/ (TypeScript
 * declarations), convert/ (between two releases a profile serves: responses down, requests up) — as compile units
 * a regeneration can reuse; codegen/ holds what the rule-driven emitters share.
 */
export { compile, type CompileResult, type CompileUnit, type ConversionReport, dedupe, type SkippedRule } from './compile.js';
export { type Candidate, diffReleases, planConversions, type ReleaseDiff, requestGaps, uncoveredCandidates } from './convert/index.js';
export { conversionPairs, type PairTools } from './pairs.js';
export { compileNormalizers, deprecatedRequestFields, planNormalizations } from './normalize/index.js';
export { reportConversions, reportSkippedRules } from './report-rules.js';
export { compileStrip, compileStripModules, compileStripSource, interpretStrip, type Resolver } from './strip/index.js';
export { compileTypes } from './types/index.js';
export { itemOutcomes, type ItemOutcomes, type ItemPairing } from './items/index.js';
export { CAT_HELPER, COMPACT_HELPERS, compactCode, compileSchemaValidators, compileValidators, compileValidatorSets, createRuntimeAjv, ERROR_HELPER, FAIL_AT_HELPER, FAIL_HELPER, FAIL_TYPE_HELPER, ITEM_ERROR_HELPER, PROPERTY_ERROR_HELPER, PROPERTY_TYPE_HELPER, PUSH_HELPER, schemaIds, type SchemaIds } from './validators/index.js';

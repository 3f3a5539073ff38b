/**
 * Stage 1, load: the config, each AdCP release (its schema files by `$id`, tools, error codes), the profiles
 * checked against the releases they serve, the overlay and normalization rule files, and the previous set's
 * manifest. Every later stage is a pure function of what this stage returns; load imports only shared/.
 */
export { type AjvInstance, ajvOptions, createCompileAjv, createRuntimeAjv, createStandaloneAjv, type SchemaLocation } from './ajv.js';
export { checkFormat, describe, pointerOf } from './check-format.js';
export type { ConfigOverrides } from './config.js';
export { type InputFiles, type Inputs, load, readInputs } from './load.js';
export { IGNORED, JOURNAL, MANIFEST, type OutputManifest, ownablePath, readManifest, type UnitRecord, WORK_DIR } from '../shared/index.js';
export type { EmittedFile, InputRef, JsonObject, JsonSchema, JsonSchemaObject, JsonValue, Profile, Release, ResolvedRef, SchemaFile, SchemaGraph, SchemaReference, ToolDef, ToolReach } from './model.js';
export { ACCEPTED_RECORD, APPLIES_WHEN, loadOverlays, type Overlay, type OverlayEntry } from './overlays.js';
export { checkCapabilities, defaultRelease, readProfile, servedReleases } from './profile.js';
export { capabilitiesIn } from './capabilities-fit.js';
export { readJson } from './read-json.js';
export { type ConversionDirection, type ConversionRule, type ConversionRuleFile, type ConversionTransform, type ConversionWaiver, loadConversionRules } from './conversion-rules.js';
export { loadNormalizationRules, type JsonType, type NormalizationRule, type Transform } from './normalization-rules.js';
export { compileReleaseSchema, releaseAjv } from './release-ajv.js';
export { displayPath, highestFirst, loadRelease } from './release.js';
export { resolveUri, splitFragment } from './uri.js';
export { HOISTED_BASE, sourceDocuments } from './hoist.js';
export { REBASE_CODE, REBASE_SOURCE } from './hoisted-keyword.js';

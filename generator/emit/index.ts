/**
 * Stage 5, emit: the generated set as files — entry modules, per-profile data, MCP/A2A registration, the
 * runtime bundle — each with its do-not-edit header; and the check of every tools/list against the MCP SDK.
 */
export { checkToolsLists, toolsListJson } from './check-tools-list.js';
export { entryFiles, GENERATOR_VERSION, jsonFile, type ProfileData, profileFiles, runtimeFiles, withHeader } from './emit.js';
export { BUNDLE, BUNDLE_FACADE, MODULES, ON_DEMAND, bundleRuntime } from './runtime-bundle.js';
export { PREBUNDLE, prebundled, runtimeSources, writePrebundle } from './prebundle.js';

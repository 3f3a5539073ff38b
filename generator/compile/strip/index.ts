/**
 * Deep-strip: per tool, code that removes what the schema does not declare, decided by an analysis of
 * the schema's unions and closed objects (docs/strip.md).
 */
export type { Resolver } from './schema-nodes.js';
export { compileStrip, compileStripModules, compileStripSource } from './compile.js';
export { interpretStrip } from './interpret.js';

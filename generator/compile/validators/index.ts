/**
 * The compiled validators: Ajv standalone code per release, split into content-addressed definition
 * modules and packs (docs/validators.md).
 */
export { CAT_HELPER, COMPACT_HELPERS, FAIL_CAT_HELPER, ERROR_HELPER, FAIL_AT_HELPER, FAIL_HELPER, FAIL_TYPE_HELPER, ITEM_ERROR_HELPER, PROPERTY_ERROR_HELPER, PROPERTY_TYPE_HELPER, PUSH_HELPER } from './compact.js';
export { compactCode } from './compact-code.js';
export { compileSchemaValidators, compileValidators, compileValidatorSets, createRuntimeAjv } from './compile.js';
export { documentName, schemaIds, type SchemaIds } from './schema-ids.js';

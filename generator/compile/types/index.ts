/**
 * TypeScript declarations of each tool's request and response (json-schema-to-typescript).
 */
export { compileTypes, typeName } from './compile.js';

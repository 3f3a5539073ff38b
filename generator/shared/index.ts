/**
 * What every stage uses and no stage owns: errors that name a file and a JSON pointer, the one way an input file is
 * read (regular files only, of bounded size: input-file.ts), RFC 6901 pointers,
 * the JSON Schema keywords that hold subschemas, hashing, progress logging, the package root, the build cache, the
 * output manifest (what load reads of a previous set and write writes last: here, so that the write stage, which
 * the CLI's main thread imports, does not load load's Ajv), the generator's own code hash, and strongly connected
 * components. Imports nothing from the stages.
 */
export { buildCache, type BuildCache, type BuildCacheArea } from './build-cache.js';
export { dependencyVersion, generatorCodeHash, generatorVersion } from './code-hash.js';
export { CodegenError, UsageError } from './errors.js';
export { stronglyConnected } from './graph.js';
export { hashJson, sha256, shortHash } from './hash.js';
export { commentText, jsLiteral, jsonText } from './js-literal.js';
export { fileKind, inputFileError, MAX_INPUT_FILE_ENV, MAX_INPUT_FILE_MB, maxInputFileBytes, readInputFile, readInputText } from './input-file.js';
export { escapeToken, fragmentFromPointer, getAtPointer, joinPointer, parsePointer, pointerFromFragment } from './json-pointer.js';
export { createLogger, type Logger, silentLogger } from './log.js';
export { IGNORED, JOURNAL, MANIFEST, type OutputManifest, ownablePath, readManifest, type UnitRecord, WORK_DIR } from './manifest.js';
export { packageRoot } from './package-root.js';
export { copySchemaWithout, defineOwn, isPlainObject, SCHEMA_ARRAY_KEYWORDS, SCHEMA_MAP_KEYWORDS, SINGLE_SCHEMA_KEYWORDS, subschemas, walkSchema } from './schema-walk.js';
export { MIN_WORKER_HEAP_MB } from './worker-heap.js';

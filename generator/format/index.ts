/**
 * Stage 6, format: prettier over the files people read, with one fixed configuration.
 */
export { format, formatted, PRETTIER_OPTIONS } from './format.js';

/**
 * Stage 6, format: prettier over the files people read, with one fixed configuration.
 */
export { format, formatted } from './format.js';

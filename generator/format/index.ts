/**
 * Stage 6, format: prettier over the files people read, with one fixed configuration; files the compile stage
 * produced early are formatted ahead, on a thread of their own, while it goes on.
 */
export { format, formatted } from './format.js';
export { FormatAhead } from './format-ahead.js';

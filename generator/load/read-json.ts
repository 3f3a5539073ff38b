import { CodegenError, readInputText } from '../shared/index.js';
import { locateJsonError } from './json-locate.js';

/**
 * Reads a JSON file, turning every failure into a CodegenError that names the file (and, for syntax errors, the
 * line and column) rather than a bare SyntaxError.
 */
export function readJson(path: string, display = path): unknown {
  // Regular files only, of bounded size (input-file.ts).
  return parseJson(readInputText(path, display), display);
}

export function parseJson(text: string, display: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    const message = (e as Error).message;
    const pos = locateJsonError(text);
    let where = '';
    if (pos >= 0) {
      const before = text.slice(0, pos);
      const line = before.split('\n').length;
      const column = pos - before.lastIndexOf('\n');
      where = ` at line ${line}, column ${column}`;
    }
    throw new CodegenError(display, '', `malformed JSON${where}: ${message.split('\n')[0]}`);
  }
}

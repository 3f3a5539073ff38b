import { CodegenError } from '../../shared/index.js';
import type { NormalizationRule } from '../../load/index.js';

/** The text of generated normalizer code: literals, comments and indented lines, safe for any rule content. */

/** A JS literal for any JSON value; U+2028/U+2029 are escaped so the literal is valid in every engine. */
export function lit(value: unknown): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

/** Text for a `//` comment: one line, nothing that could end a comment or a line. */
export function commentText(s: string): string {
  return s.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/\*\//g, '*\\/');
}

export function assertSafeKey(rule: NormalizationRule, key: string): void {
  // The rule format already refuses these; generated code must never depend on that alone.
  if (key === '__proto__' || key === 'constructor' || key === 'prototype') {
    throw new CodegenError(rule.file, rule.pointer, `property name ${JSON.stringify(key)} is not allowed in a rule`);
  }
}


export class Writer {
  private readonly lines: string[] = [];
  private depth = 0;
  line(text = ''): void {
    this.lines.push(text === '' ? '' : '  '.repeat(this.depth) + text);
  }
  open(text: string): void {
    this.line(text);
    this.depth++;
  }
  close(text = '}'): void {
    this.depth--;
    this.line(text);
  }
  /** `} else {` and the like: closes one block and opens the next at the same depth. */
  mid(text: string): void {
    this.depth--;
    this.line(text);
    this.depth++;
  }
  toString(): string {
    return this.lines.join('\n') + '\n';
  }
}

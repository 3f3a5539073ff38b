import { CodegenError } from '../../shared/index.js';

/**
 * Indented lines of generated code (normalizers, conversions), and the one check every rule-driven emitter makes on
 * the property names a rule brings in. Literals and comment text come from shared/js-literal.ts.
 */

/** Where a rule was written, for errors. */
export interface RuleOrigin {
  readonly file: string;
  readonly pointer: string;
}

export function assertSafeKey(rule: RuleOrigin, key: string): void {
  // The rule formats already refuse these; generated code must never depend on that alone.
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
  /** Lines another writer laid out, at their own indentation. */
  raw(text: string): void {
    this.lines.push(...text.replace(/\n$/, '').split('\n'));
  }
  toString(): string {
    return this.lines.join('\n') + '\n';
  }
}

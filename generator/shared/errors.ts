/**
 * Every generation failure is a CodegenError naming the input file and the JSON pointer inside it, so a user can
 * go straight to the offending value. The CLI prints `file#pointer: message` and exits 1.
 */
export class CodegenError extends Error {
  readonly file: string;
  readonly pointer: string;
  readonly detail: string;

  constructor(file: string, pointer: string, detail: string) {
    super(`${file}${pointer === '' ? '' : `#${pointer}`}: ${detail}`);
    this.name = 'CodegenError';
    this.file = file;
    this.pointer = pointer;
    this.detail = detail;
  }
}

/** Raised for bad command-line usage; the CLI exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

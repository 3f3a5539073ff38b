import { CodegenError } from '../../generator/shared/index.js';

/** The CodegenError `f` throws (anything else is rethrown; no throw at all fails the test). */
export function codegenError(f: () => unknown): CodegenError {
  try {
    f();
  } catch (e) {
    if (e instanceof CodegenError) return e;
    throw e;
  }
  throw new Error('expected a CodegenError');
}

import { createRequire } from 'node:module';
import type { Ajv, KeywordCxt } from 'ajv';
import { HOISTED_KEYWORD } from './hoist.js';

/**
 * The keyword a hoisted subschema's places compile to (hoist.ts): `{ "x-adcp-hoisted": "<uri>" }` calls the one
 * function compiled from the hoisted document, exactly as Ajv calls a `$ref` target (its own `getValidate` and
 * `callValidateCode`), and on failure takes that function's errors through `$at` (REBASE_SOURCE) instead of
 * concatenating them: each error the function made itself (no `via`: not taken from a definition it called) gets
 * the place's schema path in front of its own, so the errors read as Ajv's would have, the subschema inline.
 * The place's path is Ajv's own `errSchemaPath` of that node, written into the code as a string by Ajv's code
 * generator (never by concatenation).
 */

/** The scope value the keyword's code names the rebase helper by: compile/validators/split.ts binds it. */
export const REBASE_CODE = '$at';

/**
 * The helper, as the split binds it (a pack declares it once). `at` is `#/…` of the place; a hoisted function's own
 * error paths start at its root, `#`.
 */
export const REBASE_SOURCE =
  '(vErrors, callee, at) => { const errors = callee.errors; for (let i = 0; i < errors.length; i++) { const e = errors[i]; if (e.via === undefined) e.schemaPath = at + e.schemaPath.slice(1); } return vErrors === null ? errors : vErrors.concat(errors); }';

// Ajv's code generator and reference helpers: not in its typed entry points, read from its CommonJS build.
const require = createRequire(import.meta.url);
const codegen = require('ajv/dist/compile/codegen') as { _: (s: TemplateStringsArray, ...v: unknown[]) => unknown; nil: unknown };
const names = require('ajv/dist/compile/names').default as { vErrors: unknown; errors: unknown };
const compileModule = require('ajv/dist/compile') as { resolveRef: (this: Ajv, root: unknown, baseId: string, ref: string) => unknown; SchemaEnv: new (...a: unknown[]) => unknown };
const refModule = require('ajv/dist/vocabularies/core/ref') as { getValidate: (cxt: KeywordCxt, sch: unknown) => unknown };
const codeModule = require('ajv/dist/vocabularies/code') as { callValidateCode: (cxt: KeywordCxt, func: unknown, context: unknown) => unknown };

/** Adds the keyword to a build-time Ajv. */
export function addHoistedKeyword(ajv: Ajv): void {
  const { _, nil } = codegen;
  ajv.addKeyword({
    keyword: HOISTED_KEYWORD,
    schemaType: 'string',
    code(cxt: KeywordCxt) {
      const { gen, it, schema } = cxt;
      const env = compileModule.resolveRef.call(it.self, it.schemaEnv.root, it.baseId, schema as string);
      if (!(env instanceof compileModule.SchemaEnv)) throw new Error(`hoisted schema ${String(schema)} is not registered`);
      const v = refModule.getValidate(cxt, env);
      const rebase = gen.scopeValue('func', { ref: rebaseErrors, code: _`$at` as never });
      // The node holding the keyword is the place itself: its path is the place's.
      const at = it.errSchemaPath;
      cxt.result(
        codeModule.callValidateCode(cxt, v, nil) as never,
        () => undefined,
        () => {
          gen.assign(names.vErrors as never, _`${rebase}(${names.vErrors}, ${v}, ${at})` as never);
          gen.assign(names.errors as never, _`${names.vErrors}.length` as never);
        },
      );
    },
  });
}

/** What REBASE_SOURCE does, for the build-time Ajv's own functions (never emitted: the split binds the source). */
function rebaseErrors(vErrors: unknown[] | null, callee: { errors: { via?: unknown; schemaPath: string }[] }, at: string): unknown[] {
  const errors = callee.errors;
  for (const e of errors) if (e.via === undefined) e.schemaPath = at + e.schemaPath.slice(1);
  return vErrors === null ? errors : vErrors.concat(errors);
}

/**
 * The compacted form of Ajv's code, for issue 12's size goal, and the helpers it calls. compact-code.ts rewrites one
 * Ajv function's code, token by token (the scanner in code.ts, never a regular expression over code that holds schema
 * strings). A quarter of Ajv's standalone output is error objects, and a tenth is whitespace:
 *
 * - An error object literal `{instancePath:…,schemaPath:"…/<keyword>",keyword:"<keyword>",params:…}` becomes
 *   `ERROR(instancePath expr, "…", "<keyword>", params expr)`: the same four properties, in the same order, with the
 *   same values (the schema path is rebuilt as `<path>/<keyword>`, Ajv's own rule for every keyword's error). Where
 *   the instance path is the function's own plus a constant run of plain property names (`P+"/budget/amount"`) and
 *   the schema path follows them through `properties` (`#/properties/budget/properties/amount`), as three errors in
 *   four do, it becomes `PROPERTY_ERROR(P, "/budget/amount", "<keyword>", params expr)`, which rebuilds both paths:
 *   the schema path is not written twice (a twentieth of the packs).
 *   A wrong type there, the most frequent error, is `PROPERTY_TYPE(P, "/budget/amount", "<type>")`.
 * - Ajv's "fail on the first error" statements (`validate.errors=[<error>];return false;`) become
 *   `return FAIL(validate,<error>);`: the same array of one error on the function, the same `false` (`FAIL_AT` and
 *   `FAIL_TYPE` take a property-run error's arguments).
 * - Ajv's "collect an error" statement (`const errN = …; if(vErrors === null){vErrors = [errN];} else
 *   {vErrors.push(errN);}`) becomes `vErrors=PUSH(vErrors,…);`: the same array, pushed or created.
 * - Ajv's "take a called definition's errors" statement (`vErrors = vErrors === null ? f.errors :
 *   vErrors.concat(f.errors);`, run only when `f` failed) becomes `vErrors=CAT(vErrors,f);`: the same array, taken or
 *   concatenated. CAT also notes on each error (`via`) the location of every definition it passed through, innermost
 *   first, one string joined by line feeds (locations hold none: modules.ts): the runtime names the schema that
 *   rejected (`schema_id`) and tells a union's arms apart by it. A valid payload runs it too, for the arms of its
 *   unions that failed before one matched, so it is one string per error, never an array or a property descriptor
 *   (those halved the validation of a valid sync_creatives). Outside a union, where the function then ends with
 *   those errors (`errors=vErrors.length;F.errors=vErrors;return false;`, load/ajv-flow.ts), the four statements
 *   are `return FAIL_CAT(F,vErrors,f);`.
 * - Whitespace between tokens is dropped wherever the two tokens cannot run together; a line break is kept where
 *   Ajv put one after a `;`, `{` or `}`, so a reader still follows one statement per line.
 *
 * The helpers are defined once per pack (`COMPACT_HELPERS`). Nothing here changes what the code computes: every
 * rewrite is a fixed, checked token sequence, and anything unexpected is left as Ajv wrote it.
 */

export const ERROR_HELPER = '$err';
export const PROPERTY_ERROR_HELPER = '$propErr';
export const ITEM_ERROR_HELPER = '$itemErr';
export const PROPERTY_TYPE_HELPER = '$propType';
export const FAIL_HELPER = '$fail';
export const FAIL_AT_HELPER = '$failAt';
export const FAIL_TYPE_HELPER = '$failType';
export const PUSH_HELPER = '$push';
export const CAT_HELPER = '$cat';
export const FAIL_CAT_HELPER = '$failCat';

/** The helpers' definitions, placed once ahead of the definitions that use them. */
export const COMPACT_HELPERS = [
  `function ${ERROR_HELPER}(instancePath, schemaPath, keyword, params) {`,
  '  return { instancePath, schemaPath: schemaPath + "/" + keyword, keyword, params };',
  '}',
  '// An error at a run of property names below the function\'s own path: `/a/b` is `#/properties/a/properties/b`; through',
  '// array items, each `*`: `/a/*/b` is `#/properties/a/items/properties/b`. Each run\'s schema path is made once (a',
  '// rejected call answers as fast as with the path written out).',
  'const $schemaPaths = new Map();',
  'function $schemaPath(names) {',
  '  if (names === "") return "#";',
  '  let path = $schemaPaths.get(names);',
  '  if (path === undefined) $schemaPaths.set(names, (path = "#" + names.replace(/\\/(?!\\*)/g, "/properties/").replace(/\\/\\*/g, "/items")));',
  '  return path;',
  '}',
  `function ${PROPERTY_ERROR_HELPER}(base, names, keyword, params) {`,
  '  return { instancePath: base + names, schemaPath: $schemaPath(names) + "/" + keyword, keyword, params };',
  '}',
  `function ${ITEM_ERROR_HELPER}(instancePath, names, keyword, params) {`,
  '  return { instancePath, schemaPath: $schemaPath(names) + "/" + keyword, keyword, params };',
  '}',
  '// The most frequent of them: a wrong type at a run of property names.',
  `function ${PROPERTY_TYPE_HELPER}(base, names, type) {`,
  `  return ${PROPERTY_ERROR_HELPER}(base, names, "type", { type });`,
  '}',
  '// A definition failing on its first error: `validate.errors = [error]; return false;`; the two most frequent, at a',
  '// run of property names, with their arguments.',
  `function ${FAIL_HELPER}(validate, error) {`,
  '  validate.errors = [error];',
  '  return false;',
  '}',
  `function ${FAIL_AT_HELPER}(validate, base, names, keyword, params) {`,
  `  return ${FAIL_HELPER}(validate, ${PROPERTY_ERROR_HELPER}(base, names, keyword, params));`,
  '}',
  `function ${FAIL_TYPE_HELPER}(validate, base, names, type) {`,
  `  return ${FAIL_HELPER}(validate, ${PROPERTY_TYPE_HELPER}(base, names, type));`,
  '}',
  `function ${PUSH_HELPER}(vErrors, error) {`,
  '  if (vErrors === null) return [error];',
  '  vErrors.push(error);',
  '  return vErrors;',
  '}',
  `function ${CAT_HELPER}(vErrors, callee) {`,
  '  const errors = callee.errors;',
  '  const at = callee.location;',
  '  for (let i = 0; i < errors.length; i++) {',
  '    const e = errors[i];',
  '    e.via = e.via === undefined ? at : e.via + "\\n" + at;',
  '  }',
  '  return vErrors === null ? errors : vErrors.concat(errors);',
  '}',
  '// A called definition failing outside a union ends the caller with its errors (load/ajv-flow.ts).',
  `function ${FAIL_CAT_HELPER}(validate, vErrors, callee) {`,
  `  validate.errors = ${CAT_HELPER}(vErrors, callee);`,
  '  return false;',
  '}',
];

/** The helpers the compacted code calls, in the order the helpers module exports them. */
export const HELPER_NAMES = [ERROR_HELPER, PROPERTY_ERROR_HELPER, ITEM_ERROR_HELPER, PROPERTY_TYPE_HELPER, FAIL_HELPER, FAIL_AT_HELPER, FAIL_TYPE_HELPER, PUSH_HELPER, CAT_HELPER, FAIL_CAT_HELPER] as const;
/** Every name the support module binds: Ajv's code must use none of them (compact-code.ts checks). */
export const RESERVED_NAMES: ReadonlySet<string> = new Set<string>(['$schemaPaths', '$schemaPath', 'define', ...HELPER_NAMES]);

/** What a pack calls to initialise its definitions (packs.ts): `const define = definer(exports)`. */
export const DEFINER = 'definer';

/**
 * What every validator pack requires (`validate/support/pack.cjs`): its definitions' initialiser and the error
 * helpers, 3 kB written once, not in each of a set's eighty-odd packs.
 */
export function packSupportModule(): string {
  return [
    '"use strict";',
    '// What every validator pack requires: its definitions\' initialiser (packs.ts) and the error helpers of the',
    '// compacted code (compact.ts). Generated by adcp-codegen from generator/compile/validators/.',
    '// Each definition is initialised on first use: `define` installs a getter that runs it once, then notes where',
    '// the definition lives on its function (what `$cat` notes on the errors passing through it).',
    `function ${DEFINER}(pack) {`,
    '  return (name, location, init) => {',
    '    Object.defineProperty(pack, name, { configurable: true, enumerable: true, get() {',
    '      const unit = {};',
    '      Object.defineProperty(pack, name, { value: unit, enumerable: true });',
    '      init(unit);',
    '      unit.validate.location = location;',
    '      return unit;',
    '    } });',
    '  };',
    '}',
    ...COMPACT_HELPERS,
    `module.exports = { ${[DEFINER, ...HELPER_NAMES].join(', ')} };`,
    '',
  ].join('\n');
}

/** The helpers a piece of compacted code calls (a name followed by its call's parenthesis). */
export function helpersUsed(code: string): string[] {
  return HELPER_NAMES.filter((name) => code.includes(`${name}(`));
}

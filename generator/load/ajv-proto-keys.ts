import { copySchemaWithout, defineOwn, isPlainObject, walkSchema } from '../shared/index.js';

/**
 * Ajv skips the name `__proto__` wherever a schema maps names (`properties`, `patternProperties`,
 * `dependencies`: ajv/lib/vocabularies/code.ts allSchemaProperties), against prototype pollution. A schema that
 * declares a `__proto__` property therefore compiles to a validator that never checks its value, and that calls it
 * an unknown property wherever `additionalProperties: false` closes the object. The build-time copies are rewritten
 * into equivalent schemas Ajv does read:
 *
 * - `properties: { __proto__: S }` → `patternProperties: { "^__proto__$": S }` (a name matching both a property
 *   and a pattern must satisfy both, so the move keeps the meaning, and `additionalProperties` counts it as known);
 * - a pattern written `__proto__` → `(?:__proto__)`, the same regular expression under another key;
 * - `dependencies: { __proto__: D }` → one more `allOf` member, `if: { required: ["__proto__"] }, then: …`.
 *
 * `required: ["__proto__"]` needs no rewrite: the release declares a prototype name, so the validators check own
 * properties (ajv.ts declaresPrototypeNames). Only copies are changed, and only their own keys are reassigned
 * (a map may still be shared with the release's schema).
 */
export const PROTO = '__proto__';
const PROTO_PATTERN = `^${PROTO}$`;

/**
 * The schema as Ajv should be given it: itself when no map in it names `__proto__` (every AdCP release so far),
 * else a rewritten copy. For the run-time Ajv (the capabilities check, the tests' and benches' reference verdicts),
 * which is handed the release's own objects.
 */
export function readableByAjv<T>(schema: T): T {
  let found = false;
  walkSchema(schema, (node) => {
    if (found || !isPlainObject(node)) return;
    for (const keyword of ['properties', 'patternProperties', 'dependencies']) {
      const map = Object.prototype.hasOwnProperty.call(node, keyword) ? node[keyword] : undefined;
      if (isPlainObject(map) && hasOwn(map, PROTO)) found = true;
    }
  });
  if (!found) return schema;
  const copy = copySchemaWithout(schema, () => false);
  readableProtoKeys(copy);
  return copy as T;
}

export function readableProtoKeys(copy: unknown): void {
  walkSchema(copy, (node) => {
    if (!isPlainObject(node)) return;
    const own = (keyword: string): Record<string, unknown> | undefined => {
      const v = Object.prototype.hasOwnProperty.call(node, keyword) ? node[keyword] : undefined;
      return isPlainObject(v) ? v : undefined;
    };
    const patterns = own('patternProperties');
    if (patterns !== undefined && hasOwn(patterns, PROTO)) {
      const next = without(patterns, PROTO);
      put(next, `(?:${PROTO})`, patterns[PROTO]);
      defineOwn(node, 'patternProperties', next);
    }
    const properties = own('properties');
    if (properties !== undefined && hasOwn(properties, PROTO)) {
      const moved = properties[PROTO];
      const next = without(own('patternProperties') ?? {}, '');
      put(next, PROTO_PATTERN, moved);
      defineOwn(node, 'properties', without(properties, PROTO));
      defineOwn(node, 'patternProperties', next);
    }
    const dependencies = own('dependencies');
    if (dependencies !== undefined && hasOwn(dependencies, PROTO)) {
      const dep = dependencies[PROTO];
      const then = Array.isArray(dep) ? { required: dep } : dep;
      const allOf = Array.isArray(node.allOf) ? node.allOf : [];
      defineOwn(node, 'allOf', [...allOf, { if: { required: [PROTO] }, then }]);
      defineOwn(node, 'dependencies', without(dependencies, PROTO));
    }
  });
}

function hasOwn(map: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(map, key);
}

/** A copy of `map` without `key` ('' keeps every key), own data properties only. */
function without(map: Record<string, unknown>, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(map)) if (k !== key) defineOwn(out, k, map[k]);
  return out;
}

/** `schema` under `key`, together with (allOf) what the map already holds there. */
function put(map: Record<string, unknown>, key: string, schema: unknown): void {
  defineOwn(map, key, hasOwn(map, key) ? { allOf: [map[key], schema] } : schema);
}


import * as assert from 'uvu/assert';
import { compileStrip, interpretStrip } from '../../generator/compile/index.js';
import type { JsonSchema } from '../../generator/load/index.js';
import type { StripFn } from '../../runtime/artifacts/contract.js';

/** Compiled and interpreted strips of one schema; every call runs both and insists they agree exactly. */
export function strips(schema: JsonSchema): StripFn {
  const compiled = compileStrip(schema);
  const interpreted = interpretStrip(schema);
  return (data) => {
    const a = compiled(data);
    const b = interpreted(data);
    assert.equal(a, b, 'compiled and interpreted strips agree');
    return a;
  };
}

export const obj = (properties: Record<string, JsonSchema>, extra: Record<string, unknown> = {}): JsonSchema => ({ type: 'object', properties, additionalProperties: false, ...extra });

export function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

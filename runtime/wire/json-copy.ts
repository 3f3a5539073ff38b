import type { Issue } from '../artifacts/contract.js';
import { escapeToken } from './pointer.js';

export type Read = { ok: true; value: unknown } | { ok: false; issue: Issue; context?: unknown };
export type Copy = { ok: true; value: unknown } | { ok: false; tooDeep: boolean };

/** A JSON object: not null, not an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The parse-once step. AdCP payloads are JSON: a copy through JSON is the value a buyer could have sent, whatever
 * object the caller passed. Anything that cannot be read that way (a throwing getter or toJSON, a proxy trap, a
 * cycle, a BigInt, nesting deep enough to overflow the serializer) is an INVALID_REQUEST naming the top-level field
 * it is in, never an exception; the caller's `context` is then echoed only when it alone can be read.
 */
export function readRequest(args: unknown): Read {
  const whole = jsonCopy(args);
  if (whole.ok) return whole;
  let pointer = '';
  let tooDeep = whole.tooDeep;
  let context: unknown;
  try {
    if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
      for (const key of Object.keys(args)) {
        let field: Copy;
        try {
          field = jsonCopy((args as Record<string, unknown>)[key]);
        } catch {
          field = { ok: false, tooDeep: false }; // the getter itself threw
        }
        if (key === 'context' && field.ok) context = field.value;
        if (!field.ok && pointer === '') {
          pointer = `/${escapeToken(key)}`;
          tooDeep = field.tooDeep;
        }
      }
    }
  } catch {
    // The object itself cannot be inspected (a proxy whose traps throw): the request as a whole, and no echo.
    pointer = '';
    context = undefined;
  }
  const issue: Issue = tooDeep
    ? { pointer, keyword: 'maxDepth', message: 'nests too deeply to process' }
    : { pointer, keyword: 'type', message: 'is not a JSON value: it cannot be read (a throwing getter or proxy), or it holds a cycle or a BigInt' };
  return { ok: false, issue, ...(context !== undefined ? { context } : {}) };
}

export function jsonCopy(value: unknown): Copy {
  try {
    const text = JSON.stringify(value);
    return { ok: true, value: text === undefined ? undefined : JSON.parse(text) };
  } catch (e) {
    // Only classified, never read: the thrown value may itself be a hostile object.
    let tooDeep = false;
    try {
      tooDeep = e instanceof RangeError;
    } catch {
      /* a proxy that refuses even instanceof */
    }
    return { ok: false, tooDeep };
  }
}

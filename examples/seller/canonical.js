// @ts-check
import { createHash } from 'node:crypto';

/**
 * RFC 8785 JSON Canonicalization Scheme: object members sorted by UTF-16 code units, no whitespace, strings and
 * numbers as ECMAScript's JSON.stringify writes them (which is what JCS §3.2.2 prescribes). Values here come from a
 * parsed JSON request, so there is no undefined, function or non-finite number to meet.
 * @param {unknown} value
 * @returns {string}
 */
export function canonicalJson(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = /** @type {Record<string, unknown>} */ (value);
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
    .join(',')}}`;
}

/** SHA-256 of a value's canonical form, hex. */
export function canonicalHash(/** @type {unknown} */ value) {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/**
 * Schema and rule content reaches generated code only through these: a JSON value as source text, and text as
 * comment content. Property names and values may hold quotes, `*\/`, line separators or `__proto__`; none of them
 * may change what the generated code does. Built as Ajv's code generator builds its literals (`safeStringify`:
 * JSON text with U+2028/U+2029 escaped), plus the two cases its call sites avoid and ours cannot.
 */

/**
 * JSON text for a value, safe to place in JavaScript or TypeScript source and in a JSON file alike: quotes,
 * backslashes and control characters are JSON-escaped; U+2028/U+2029 (line terminators inside a JS string before
 * ES2019) are escaped; `*\/` is written `*\/` (a JSON and JS escape of `/`), so the text can never end a block comment
 * it ends up in. In JSON text `*` and `/` occur only inside strings, so the replacement never touches syntax.
 * `indent` as JSON.stringify's. `undefined` (not JSON) is written `null`.
 */
export function jsonText(value: unknown, indent?: number): string {
  return (JSON.stringify(value ?? null, null, indent) ?? 'null').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029').replace(/\*\//g, '*\\/');
}

/**
 * A JavaScript expression evaluating to a copy of the JSON value `value`. JSON text is an expression except for one
 * case: an object literal's `"__proto__": x` member sets the new object's prototype instead of creating a property,
 * so a value holding that key anywhere is written `JSON.parse(<its JSON text as a string>)`, which keeps it data.
 */
export function jsLiteral(value: unknown): string {
  const text = jsonText(value);
  return holdsProtoKey(value) ? `JSON.parse(${jsonText(text)})` : text;
}

function holdsProtoKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsProtoKey);
  if (value !== null && typeof value === 'object') {
    return Object.keys(value).some((k) => k === '__proto__' || holdsProtoKey((value as Record<string, unknown>)[k]));
  }
  return false;
}

/**
 * Text for a comment, line or block: one line (line terminators become spaces, so a `//` comment cannot end early
 * and run the rest as code), and `*\/` written `*\/` so a block comment cannot either.
 */
export function commentText(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/\*\//g, '*\\/');
}

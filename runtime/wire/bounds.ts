import type { Issue } from '../artifacts/contract.js';

/**
 * How large a rejection may grow, whatever the caller sent: an error must never amplify a request. A request with a
 * million unknown fields is answered with the first MAX_REJECTION_ISSUES issues and the count of the rest
 * (`details.issues_omitted`), and text taken from the payload (a property name in a pointer or a message, a value
 * quoted back) is clipped to MAX_PAYLOAD_TEXT characters per field. Issue producers bound their work with the same
 * constant (drift.ts builds no more issues than a rejection carries); the cap on the body itself is applied in one
 * place, where the INVALID_REQUEST body is built (errors.ts invalidRequest).
 */

/** Issues one rejection carries at most. */
export const MAX_REJECTION_ISSUES = 50;
/** Characters of payload-derived text per string field of an issue or message. */
export const MAX_PAYLOAD_TEXT = 1024;

const ELLIPSIS = '…';

/** `text` clipped to MAX_PAYLOAD_TEXT characters (an ellipsis marks the cut); never splits a surrogate pair. */
export function clip(text: string, max: number = MAX_PAYLOAD_TEXT): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return text.slice(0, end) + ELLIPSIS;
}

/**
 * An issue whose every string is clipped. A pointer longer than the cap becomes the pointer of the deepest ancestor
 * that fits (still an RFC 6901 pointer into the payload, to the object holding the overlong name), with
 * `truncated: true` on the issue.
 */
export function boundedIssue(issue: Issue): Issue {
  let changed = false;
  const out = {} as Record<string, unknown>;
  for (const key of Object.keys(issue)) {
    const value = (issue as unknown as Record<string, unknown>)[key];
    const bounded = key === 'pointer' && typeof value === 'string' ? ancestorWithin(value) : boundedValue(value);
    if (bounded !== value) changed = true;
    Object.defineProperty(out, key, { value: bounded, enumerable: true, writable: true, configurable: true });
  }
  if (!changed) return issue;
  out.truncated = true;
  return out as unknown as Issue;
}

function ancestorWithin(pointer: string): string {
  if (pointer.length <= MAX_PAYLOAD_TEXT) return pointer;
  const cut = pointer.lastIndexOf('/', MAX_PAYLOAD_TEXT);
  return cut <= 0 ? '' : pointer.slice(0, cut);
}

/** Strings clipped at any depth of a small JSON value (an issue's fields); shared where nothing changes. */
function boundedValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return clip(value);
  if (value === null || typeof value !== 'object' || depth > 4) return value;
  if (Array.isArray(value)) {
    // Lengths come from the schema (allowedValues) or are bounded where they are made (forbiddenProperties).
    const items = value.map((v) => boundedValue(v, depth + 1));
    return items.every((v, i) => v === value[i]) ? value : items;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    const b = boundedValue(v, depth + 1);
    if (b !== v || clip(key) !== key) changed = true;
    Object.defineProperty(out, clip(key), { value: b, enumerable: true, writable: true, configurable: true });
  }
  return changed ? out : value;
}

/**
 * The deepest a JSON-RPC message may nest where the entry hands it to an SDK that serializes, clones or stores it
 * whole (A2A: its Task's history, the task store, the answer): real AdCP messages nest 15–25 levels (JSON-RPC, message,
 * part, data, input, the payload's own 5–8), so 128 refuses only what no buyer sends, well below the depth at which
 * JSON.stringify or structuredClone overflows the stack (a few thousand levels).
 */
export const MAX_MESSAGE_DEPTH = 128;

/** Whether a parsed JSON value nests at most `max` levels of arrays and objects (walked without recursion). */
export function nestsWithin(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) return false;
    for (const child of Array.isArray(node) ? node : Object.values(node as object)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return true;
}

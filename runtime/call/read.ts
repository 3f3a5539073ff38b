import { invalidRequest } from '../wire/errors.js';
import { isObject, jsonCopy, readRequest } from '../wire/json-copy.js';
import { UnknownToolError } from '../wire/results.js';
import type { Answer, Call } from './call.js';

/**
 * Read once, before anything looks at the arguments: a private JSON copy, exactly what the wire would carry (no
 * getters, proxies, shared references or prototypes). Every later stage sees this copy; the caller's object is never
 * read again. A tool the profile does not serve throws UnknownToolError, which the transports answer.
 */
export function read(call: Call): Answer | void {
  const { tool } = call;
  if (typeof tool !== 'string' || !call.served.tools.has(tool)) throw new UnknownToolError(typeof tool === 'string' ? tool : `(${typeof tool})`);
  const request = readRequest(call.input);
  if (!request.ok) {
    call.echo = request.context === undefined ? undefined : { context: request.context };
    return call.reject(invalidRequest(tool, [request.issue]));
  }
  // An AdCP tool's arguments are one JSON object: null, an array, a number, a string or a boolean is a request no
  // schema can accept, and one with no context to echo.
  if (!isObject(request.value)) {
    return call.reject(invalidRequest(tool, [{ pointer: '', keyword: 'type', message: `must be an object (the tool's arguments), not ${jsonType(request.value)}` }]));
  }
  call.args = request.value;
  // The context to echo, copied now: whatever runs later (authorize, the handler) may change the parsed value, which
  // shares its objects with the arguments, or return a context of its own; the buyer gets back what it sent.
  call.echo = contextSnapshot(call.args);
}

function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : v === undefined ? 'nothing' : `a ${typeof v}`;
}

/** `{ context }` holding a private copy of the arguments' context, or undefined when there is none. */
function contextSnapshot(args: Record<string, unknown>): { context: unknown } | undefined {
  if (!Object.prototype.hasOwnProperty.call(args, 'context') || args.context === undefined) return undefined;
  // The arguments are the parse-once copy, so the copy cannot fail.
  const copy = jsonCopy(args.context);
  return copy.ok ? { context: copy.value } : undefined;
}

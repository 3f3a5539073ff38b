import { escapeToken } from '../../shared/index.js';
import type { JsonType } from '../../load/index.js';
import { jsLiteral } from '../../shared/index.js';

/**
 * Expressions over a payload path in the generated code: reading it, testing a value's JSON type, and setting or
 * removing a member copy-on-write (the input is never mutated; untouched subtrees are shared).
 */

export function acceptsCheck(types: readonly JsonType[] | undefined, v: string): string | undefined {
  if (types === undefined) return undefined;
  const checks = types.map((t) => {
    switch (t) {
      case 'string':
        return `typeof ${v} === 'string'`;
      case 'number':
        return `typeof ${v} === 'number'`;
      case 'integer':
        return `Number.isInteger(${v})`;
      case 'boolean':
        return `typeof ${v} === 'boolean'`;
      case 'object':
        return `isObject(${v})`;
      case 'array':
        return `Array.isArray(${v})`;
      case 'null':
        return `${v} === null`;
    }
  });
  return checks.length === 1 ? checks[0] : `(${checks.join(' || ')})`;
}

/** `node["a"]["b"]` for a path. */
export function access(node: string, path: readonly string[]): string {
  return node + path.map((k) => `[${jsLiteral(k)}]`).join('');
}

/** Whether the full target path is present (every intermediate an object). */
export function presentExpr(node: string, path: readonly string[]): string {
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const parent = access(node, path.slice(0, i));
    if (i > 0) parts.push(`isObject(${parent})`);
    parts.push(`hasOwn(${parent}, ${jsLiteral(path[i])})`);
  }
  return parts.join(' && ');
}

/** Whether an intermediate of the target path exists but is not an object: nowhere to put the value. */
export function blockedExpr(node: string, path: readonly string[]): string | undefined {
  const parts: string[] = [];
  for (let i = 0; i < path.length - 1; i++) {
    const prefix: string[] = [];
    for (let j = 0; j <= i; j++) {
      if (j > 0) prefix.push(`isObject(${access(node, path.slice(0, j))})`);
      prefix.push(`hasOwn(${access(node, path.slice(0, j))}, ${jsLiteral(path[j])})`);
    }
    prefix.push(`!isObject(${access(node, path.slice(0, i + 1))})`);
    parts.push(prefix.length === 1 ? prefix[0]! : `(${prefix.join(' && ')})`);
  }
  return parts.length === 0 ? undefined : parts.join(' || ');
}

/** `withMember(o, "a", withMember(o.a or {}, "b", value))`: sets a nested path by copying along it. */
export function setExpr(target: string, original: string, path: readonly string[], value: string): string {
  const [head, ...rest] = path;
  if (rest.length === 0) return `withMember(${target}, ${jsLiteral(head)}, ${value})`;
  const inner = access(original, [head!]);
  const existing = `(hasOwn(${original}, ${jsLiteral(head)}) ? ${inner} : {})`;
  return `withMember(${target}, ${jsLiteral(head)}, ${setExpr(existing, inner, rest, value)})`;
}

export function pointerOf(base: string, path: readonly string[]): string {
  return `${base} + ${jsLiteral(path.map((k) => '/' + escapeToken(k)).join(''))}`;
}

/** `node` without the property at `path`, copying each object along the way (the parents stay, even if emptied). */
export function removeExpr(node: string, path: readonly string[]): string {
  const [head, ...rest] = path;
  if (rest.length === 0) return `without(${node}, ${jsLiteral(head)})`;
  return `withMember(${node}, ${jsLiteral(head)}, ${removeExpr(access(node, [head!]), rest)})`;
}


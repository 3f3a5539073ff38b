/**
 * How the issue collection (issue-collect.ts) gets past one finding on its private copy of the payload: a value
 * outside an enum takes the first allowed one, an unknown field is removed, a missing or wrong value becomes a
 * placeholder shaped by the validator's own complaints (an empty value of the type it asks for, an example of the
 * format or pattern it names, a length or bound it states). Copied into the generated output with the runtime.
 */
import type { Finding } from './finding.js';
import { jsonOf, typesOf } from './issue-text.js';
import { patternExample } from './pattern-example.js';
import { escapeToken, unescapeToken } from '../wire/pointer.js';

export interface Fix {
  /** Where the change goes. */
  readonly pointer: string;
  /** The new value, or delete the property. */
  readonly value?: unknown;
  readonly remove?: boolean;
  /** Set when the new value is the repair's own: issues at or under it are not the caller's. */
  readonly placeholder?: boolean;
}

/** A value of each JSON Schema format AdCP uses, for placeholders. */
const FORMAT_EXAMPLES: Readonly<Record<string, string>> = {
  'date-time': '2000-01-01T00:00:00Z',
  date: '2000-01-01',
  time: '00:00:00Z',
  uri: 'https://example.com/',
  'uri-reference': 'https://example.com/',
  'uri-template': 'https://example.com/',
  url: 'https://example.com/',
  email: 'placeholder@example.com',
  hostname: 'example.com',
  uuid: '00000000-0000-4000-8000-000000000000',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
};

const EMPTY: Readonly<Record<string, () => unknown>> = {
  object: () => ({}),
  array: () => [],
  string: () => '',
  number: () => 0,
  integer: () => 0,
  boolean: () => false,
  null: () => null,
};

/** The placeholders tried in turn where a `not` refuses the one there: null first (what a missing value starts as). */
const NEXT_PLACEHOLDER: readonly (() => unknown)[] = [() => null, () => ({}), () => [], () => '', () => 0, () => false];

function sameKind(a: unknown, b: unknown): boolean {
  if (a === null || b === null) return a === b;
  return typeof a === typeof b && Array.isArray(a) === Array.isArray(b);
}

/** Placeholder items an array may be padded with to reach its `minItems`. */
const MAX_PADDING = 64;

/**
 * The changes that get past `f`, or undefined when it cannot be got past (the collection stops there, or gives up
 * on an arm). `synthetic`: the value at the finding is the collection's own placeholder. `current`: that value;
 * `siblings`: the other items of the array holding it, if one does.
 */
export function repair(f: Finding, synthetic: boolean, current: unknown, siblings: readonly unknown[] = []): Fix[] | undefined {
  const at = f.issue.pointer;
  const p = f.params;
  const here = (value: unknown): Fix[] | undefined => (at === '' ? undefined : [{ pointer: at, value, placeholder: true }]);
  switch (f.issue.keyword) {
    case 'enum':
    case 'const': {
      const allowed = f.issue.allowedValues;
      if (allowed === undefined || allowed.length === 0) return undefined;
      // An item of an array takes an allowed value none of the others holds: the first one may already be there, and
      // a duplicate under `uniqueItems` would be the repair's own defect, met again at each run (the arm lost).
      const taken = new Set(siblings.map(jsonOf));
      return here(structuredClone(allowed.find((v) => !taken.has(jsonOf(v))) ?? allowed[0]));
    }
    case 'additionalProperties':
      return at === '' ? undefined : [{ pointer: at, remove: true }];
    case 'required':
    case 'dependencies':
    case 'dependentRequired':
      return here(null);
    case 'type': {
      const make = EMPTY[typesOf(p.type)[0] ?? ''];
      return make === undefined ? undefined : here(make());
    }
    case 'format': {
      const example = FORMAT_EXAMPLES[String(p.format)];
      return example === undefined ? undefined : here(example);
    }
    case 'pattern': {
      const example = typeof p.pattern === 'string' ? patternExample(p.pattern) : undefined;
      return example === undefined ? undefined : here(example);
    }
    case 'minLength': {
      const text = typeof current === 'string' ? current : '';
      const n = Number(p.limit);
      return Number.isInteger(n) && n <= 4096 ? here(text + 'a'.repeat(Math.max(0, n - [...text].length))) : undefined;
    }
    case 'maxLength':
      return typeof current === 'string' && Number.isInteger(p.limit) ? here([...current].slice(0, Number(p.limit)).join('')) : undefined;
    case 'minimum':
    case 'maximum':
      return typeof p.limit === 'number' ? here(p.limit) : undefined;
    case 'exclusiveMinimum':
      return typeof p.limit === 'number' ? here(Math.floor(p.limit) + 1) : undefined;
    case 'exclusiveMaximum':
      return typeof p.limit === 'number' ? here(Math.ceil(p.limit) - 1) : undefined;
    case 'multipleOf':
      return typeof p.multipleOf === 'number' && p.multipleOf > 0 ? here(typeof current === 'number' ? Math.ceil(current / p.multipleOf) * p.multipleOf : 0) : undefined;
    case 'minItems': {
      const n = Number(p.limit);
      if (!Array.isArray(current) || !Number.isInteger(n) || n - current.length > MAX_PADDING) return undefined;
      const fixes: Fix[] = [{ pointer: at, value: [...current, ...new Array<null>(n - current.length).fill(null)] }];
      for (let i = current.length; i < n; i++) fixes.push({ pointer: `${at}/${i}`, value: null, placeholder: true });
      return fixes;
    }
    case 'maxItems':
      return Array.isArray(current) && Number.isInteger(p.limit) ? [{ pointer: at, value: current.slice(0, Number(p.limit)) }] : undefined;
    case 'not': {
      const forbidden = f.issue.forbiddenProperties;
      if (forbidden !== undefined && forbidden.length > 0) return forbidden.map((name) => ({ pointer: `${at}/${escapeToken(name)}`, remove: true }));
      // A placeholder the `not` refuses (`not: { required: [x] }` refuses every non-object): the next kind of value.
      if (synthetic) {
        const next = NEXT_PLACEHOLDER.findIndex((make) => sameKind(make(), current)) + 1;
        return next > 0 && next < NEXT_PLACEHOLDER.length ? here(NEXT_PLACEHOLDER[next]!()) : undefined;
      }
      return current !== null && typeof current === 'object' ? undefined : here(null);
    }
    case 'false schema':
      return at === '' ? undefined : [{ pointer: at, remove: true }];
    case 'propertyNames':
      return typeof p.propertyName === 'string' ? [{ pointer: `${at}/${escapeToken(p.propertyName)}`, remove: true }] : undefined;
    case 'oneOf':
    case 'anyOf':
    case 'uniqueItems':
    case 'contains':
    case 'minProperties':
    case 'maxProperties':
      return undefined;
    default:
      // A caller's value the validator refuses for another reason: a placeholder whose own complaints (its type
      // first) shape it; a placeholder's own value it cannot get past ends the collection.
      return synthetic ? undefined : here(null);
  }
}

/**
 * A new root with the fix applied, copying only the containers on the fix's path (the input is never mutated);
 * undefined when the path is gone. A container already in `owned` is this collection's own copy and changed in place,
 * so a large array is copied once.
 */
export function apply(root: unknown, fix: Fix, owned: WeakSet<object> = new WeakSet()): { value: unknown } | undefined {
  if (fix.pointer === '') return fix.remove === true ? undefined : { value: fix.value };
  const tokens = fix.pointer.slice(1).split('/').map(unescapeToken);
  const own = <T extends object>(node: T, make: () => T): T => {
    if (owned.has(node)) return node;
    const made = make();
    owned.add(made);
    return made;
  };
  const copy = (node: unknown, i: number): unknown => {
    if (node === null || typeof node !== 'object') return NO_PATH;
    const t = tokens[i]!;
    const last = i === tokens.length - 1;
    if (Array.isArray(node)) {
      if (!/^(0|[1-9]\d*)$/.test(t) || Number(t) >= node.length) return NO_PATH;
      if (last && fix.remove === true) return NO_PATH; // removing an item would shift the pointers after it
      const child = last ? fix.value : copy(node[Number(t)], i + 1);
      if (child === NO_PATH) return NO_PATH;
      const out = own(node, () => node.slice());
      out[Number(t)] = child;
      return out;
    }
    const out = own(node as Record<string, unknown>, () => ({ ...(node as Record<string, unknown>) }));
    if (last) {
      if (fix.remove === true) delete out[t];
      else Object.defineProperty(out, t, { value: fix.value, enumerable: true, writable: true, configurable: true });
      return out;
    }
    if (!Object.prototype.hasOwnProperty.call(out, t)) return NO_PATH;
    const child = copy(out[t], i + 1);
    if (child === NO_PATH) return NO_PATH;
    Object.defineProperty(out, t, { value: child, enumerable: true, writable: true, configurable: true });
    return out;
  };
  const value = copy(root, 0);
  return value === NO_PATH ? undefined : { value };
}

const NO_PATH = Symbol('no path');

/**
 * Every issue of a failed payload that can be reached without Ajv's `allErrors`, and what an unmet `not` forbids.
 * Copied into the generated output with the rest of the runtime: imports nothing but the contract and pointers.
 *
 * The validators stop at the first failure (`allErrors: false`, docs/validators.md): measured on 3.0.6's
 * create_media_buy, `allErrors: true` is no larger, but a million wrong array items then make a million errors and
 * one call ran for over 40 minutes, where the first-failure validator answers in under a millisecond. So a failed
 * call is re-validated, a bounded number of times, on a private copy "repaired" past each issue found: a value
 * outside an enum takes the first allowed value, an unknown field is removed, any other wrong or missing value is
 * replaced by a placeholder the validator's own complaints shape (an empty value of the type it asks for, a value of
 * the format it names). Issues under a placeholder are the repair's, never reported; the loop stops at the first
 * issue it cannot get past, a union branch it would have to guess, or its bounds. Only failed calls pay for it.
 */
import type { Issue } from './contract.js';
import { escapeToken, unescapeToken } from './pointer.js';

/** Validations of the repaired copy per failed call, and issues reported per rejection. */
const MAX_ROUNDS = 24;
const MAX_ISSUES = 12;
/** Properties probed, one removal each, to name what an unmet `not` forbids. */
const MAX_NOT_PROBES = 24;

/** Runs the validator and returns its issues ([] when the value is valid). */
export type IssuesOf = (data: unknown) => Issue[];

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

/**
 * `first` (the issues of the failed run) followed by the further issues the repaired copies show. Never throws:
 * anything unexpected (absurd nesting, say) ends the collection with what was found.
 */
export function collectIssues(issuesOf: IssuesOf, data: unknown, first: Issue[]): Issue[] {
  const out = first.map((i) => (i.keyword === 'not' ? explainNot(issuesOf, data, i) : i));
  if (out.some((i) => i.discriminator !== undefined)) return out; // going on would mean guessing the caller's branch
  const seen = new Set(out.map(key));
  // Copy-on-write: each repair copies only the containers on its path, so the caller's value is never touched and a
  // large payload is not copied whole.
  let work: unknown = data;
  const owned = new WeakSet<object>();
  const placeholders: string[] = [];
  const under = (pointer: string) => placeholders.some((p) => pointer === p || pointer.startsWith(`${p}/`));
  let round = first;
  try {
    for (let n = 0; n < MAX_ROUNDS && out.length < MAX_ISSUES; n++) {
      let progressed = false;
      for (const issue of round) {
        const fix = repair(issue, under(issue.pointer));
        if (fix === undefined) return out;
        const root = apply(work, fix, owned);
        if (root === undefined) return out;
        work = root.value;
        if (fix.placeholder !== undefined) placeholders.push(fix.placeholder);
        progressed = true;
      }
      if (!progressed) return out;
      round = issuesOf(work);
      if (round.length === 0) return out;
      for (const issue of round) {
        if (issue.discriminator !== undefined) return out;
        const reported = issue.keyword === 'required' ? `${issue.pointer}/${escapeToken(issue.missingProperty ?? '')}` : issue.pointer;
        if (under(issue.pointer) || under(reported)) continue;
        if (seen.has(key(issue))) return out; // the repair did not get past it
        seen.add(key(issue));
        out.push(issue.keyword === 'not' ? explainNot(issuesOf, work, issue) : issue);
        if (out.length >= MAX_ISSUES) return out;
      }
    }
  } catch {
    return out;
  }
  return out;
}

function key(i: Issue): string {
  return `${i.pointer}\0${i.keyword}\0${i.missingProperty ?? ''}\0${i.additionalProperty ?? ''}`;
}

interface Fix {
  /** Where the change goes. */
  readonly pointer: string;
  /** The new value, or delete the property. */
  readonly value?: unknown;
  readonly remove?: boolean;
  /** Set when the new value is the repair's own: issues at or under it are not the caller's. */
  readonly placeholder?: string;
}

/** How to get past one issue, or undefined when it cannot be (the collection stops there). */
function repair(issue: Issue, synthetic: boolean): Fix | undefined {
  const at = issue.pointer;
  const allowed = issue.allowedValues;
  switch (issue.keyword) {
    case 'enum':
    case 'const':
      return allowed !== undefined && allowed.length > 0 ? { pointer: at, value: structuredClone(allowed[0]), ...(synthetic ? { placeholder: at } : {}) } : undefined;
    case 'additionalProperties':
      return at === '' ? undefined : { pointer: at, remove: true };
    case 'required':
      return issue.missingProperty === undefined ? undefined : placeholder(`${at}/${escapeToken(issue.missingProperty)}`, null);
    case 'type': {
      const wanted = /^must be (\w+)/.exec(issue.message)?.[1];
      const empty = wanted === undefined ? undefined : EMPTY[wanted];
      return empty === undefined || at === '' ? undefined : placeholder(at, empty());
    }
    case 'format': {
      const name = /^must be a valid (.+)$/.exec(issue.message)?.[1];
      const example = name === undefined ? undefined : FORMAT_EXAMPLES[name];
      return example === undefined || at === '' ? undefined : placeholder(at, example);
    }
    case 'minLength': {
      const n = Number(/than (\d+) characters/.exec(issue.message)?.[1]);
      return Number.isInteger(n) && at !== '' ? placeholder(at, 'x'.repeat(n)) : undefined;
    }
    default:
      // A caller's value the validator refuses for another reason: a placeholder whose own complaints (its type
      // first) shape it; a placeholder's own value it cannot get past ends the collection.
      return synthetic || at === '' ? undefined : placeholder(at, null);
  }
}

function placeholder(pointer: string, value: unknown): Fix {
  return { pointer, value, placeholder: pointer };
}

const EMPTY: Readonly<Record<string, () => unknown>> = {
  object: () => ({}),
  array: () => [],
  string: () => '',
  number: () => 0,
  integer: () => 0,
  boolean: () => false,
  null: () => null,
};

/**
 * A new root with the fix applied, copying only the containers on the fix's path (the input is never mutated);
 * undefined when the path is gone.
 */
function apply(root: unknown, fix: Fix, owned: WeakSet<object> = new WeakSet()): { value: unknown } | undefined {
  if (fix.pointer === '') return fix.remove === true ? undefined : { value: fix.value };
  const tokens = fix.pointer.slice(1).split('/').map(unescapeToken);
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
  // A container this collection already copied is its own: changed in place, so a large array is copied once.
  const own = <T extends object>(node: T, make: () => T): T => {
    if (owned.has(node)) return node;
    const made = make();
    owned.add(made);
    return made;
  };
  const value = copy(root, 0);
  return value === NO_PATH ? undefined : { value };
}

const NO_PATH = Symbol('no path');

/**
 * An unmet `not`, said in terms of the payload: for a scalar, the value itself is what is forbidden; for an object,
 * the properties whose removal satisfies the `not` (probed on copies): each one whose removal alone does, or else
 * the smallest set found whose removal together does (`not: { anyOf: [{ required: [a] }, { required: [b] }] }`
 * with both present).
 */
function explainNot(issuesOf: IssuesOf, data: unknown, issue: Issue): Issue {
  try {
    const value = valueAt(data, issue.pointer);
    if (value === null || typeof value !== 'object') return { ...issue, message: `must NOT be ${JSON.stringify(value)} here` };
    if (Array.isArray(value)) return issue;
    const names = Object.keys(value).slice(0, MAX_NOT_PROBES);
    const satisfiedWithout = (removed: readonly string[]): boolean => {
      let copy: unknown = data;
      for (const name of removed) copy = apply(copy, { pointer: `${issue.pointer}/${escapeToken(name)}`, remove: true })!.value;
      return !issuesOf(copy).some((i) => i.keyword === 'not' && i.pointer === issue.pointer);
    };
    let forbidden = names.filter((n) => satisfiedWithout([n]));
    if (forbidden.length === 0) {
      const together: string[] = [];
      for (const n of names) {
        together.push(n);
        if (satisfiedWithout(together)) break;
      }
      if (!satisfiedWithout(together)) return issue;
      forbidden = together.filter((n) => !satisfiedWithout(together.filter((m) => m !== n)));
    }
    if (forbidden.length === 0) return issue;
    const listed = forbidden.map((n) => `'${n}'`);
    const phrase = listed.length > 1 ? `${listed.slice(0, -1).join(', ')} or ${listed[listed.length - 1]}` : listed[0]!;
    return { ...issue, message: `must NOT have ${phrase} here`, forbiddenProperties: forbidden };
  } catch {
    return issue;
  }
}

function valueAt(data: unknown, pointer: string): unknown {
  if (pointer === '') return data;
  let node = data;
  for (const raw of pointer.slice(1).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[unescapeToken(raw)];
  }
  return node;
}

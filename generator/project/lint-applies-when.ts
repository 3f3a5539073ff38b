import { getAtPointer, joinPointer, pointerFromFragment, isPlainObject, subschemas } from '../shared/index.js';
import {
  ACCEPTED_RECORD,
  APPLIES_WHEN,
  type InPlaceContext,
  type RequiredCache,
  isClosed,
  isProtected,
  parseAppliesWhen,
} from './project.js';

/**
 * Build-time lint of `x-adcp-applies-when` (and `x-adcp-accepted-record`) in one schema document — a modular
 * schema or an advertised (MCP-shaped) bundle. Every finding names a place where the annotation will not do what
 * its author meant: it is malformed or unknown (the property is always kept), it can never act (required, closed
 * object, not on a property), it would act where it should not (the name is required by a `$ref` referrer, which
 * projection does not follow), or acting on it would hide how buyers choose a union arm. The lead prints findings as
 * warnings, and as errors with `--strict`.
 */
export interface LintFinding {
  readonly file: string;
  /** Pointer of the annotation inside the document. */
  readonly pointer: string;
  readonly message: string;
  readonly severity: 'warning';
}

const IN_PLACE = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'dependencies']);

export function lintAppliesWhen(doc: unknown, file: string): LintFinding[] {
  const findings: LintFinding[] = [];
  const warn = (pointer: string, message: string): void => {
    findings.push({ file, pointer, message, severity: 'warning' });
  };
  const arms = unionArms(doc);
  const cache: RequiredCache = new WeakMap();
  // Pass 1: every annotation with its place, and who uses each schema node through a local $ref.
  const referrers: Referrers = new Map();
  const pending: [Record<string, unknown>, string, PropertyPlace | undefined][] = [];

  const visit = (node: unknown, pointer: string, context: InPlaceContext | undefined, property?: PropertyPlace): void => {
    if (!isPlainObject(node)) return;
    const here: InPlaceContext = { node, closed: (context?.closed ?? false) || isClosed(node), outer: context };
    if (Object.prototype.hasOwnProperty.call(node, ACCEPTED_RECORD) && node[ACCEPTED_RECORD] !== true) {
      warn(joinPointer(pointer, ACCEPTED_RECORD), `${ACCEPTED_RECORD} must be true; ${JSON.stringify(node[ACCEPTED_RECORD])} is ignored`);
    }
    if (Object.prototype.hasOwnProperty.call(node, APPLIES_WHEN)) pending.push([node, joinPointer(pointer, APPLIES_WHEN), property]);
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) {
      const target = getAtPointer(doc, pointerFromFragment(node.$ref));
      if (isPlainObject(target)) {
        const list = referrers.get(target) ?? [];
        list.push({ context: here, pointer });
        referrers.set(target, list);
      }
    }
    for (const sub of subschemas(node, pointer)) {
      if (sub.keyword === 'properties') {
        visit(sub.schema, sub.pointer, undefined, { name: String(sub.key), parent: here });
      } else {
        const inPlace = IN_PLACE.has(sub.keyword);
        visit(sub.schema, sub.pointer, inPlace ? here : undefined);
      }
    }
  };
  visit(doc, '', undefined);
  // Pass 2: judge each annotation.
  for (const [node, at, property] of pending) lintAnnotation(node, at, property, { arms, referrers, doc, cache }, warn);
  return findings;
}

interface PropertyPlace {
  readonly name: string;
  readonly parent: InPlaceContext;
}

/** Schema node → the places that use it through a local `$ref`, with their in-place context. */
type Referrers = Map<object, { context: InPlaceContext; pointer: string }[]>;

/**
 * Projection does not follow `$ref`s, so a name that a referrer requires (`allOf: [{ $ref: X }], required: [name]`)
 * does not protect the property in X. Returns the pointer of such a referrer, if any.
 */
function requiredThroughRef(name: string, context: InPlaceContext, referrers: Referrers, cache: RequiredCache, seen: Set<object> = new Set()): string | undefined {
  for (let c: InPlaceContext | undefined = context; c !== undefined; c = c.outer) {
    if (seen.has(c.node)) continue;
    seen.add(c.node);
    for (const r of referrers.get(c.node) ?? []) {
      if (isProtected(name, r.context, cache)) return r.pointer;
      const deeper = requiredThroughRef(name, r.context, referrers, cache, seen);
      if (deeper !== undefined) return deeper;
    }
  }
  return undefined;
}

function lintAnnotation(
  node: Record<string, unknown>,
  at: string,
  property: PropertyPlace | undefined,
  { arms, referrers, doc, cache }: { arms: ReadonlySet<object>; referrers: Referrers; doc: unknown; cache: RequiredCache },
  warn: (pointer: string, message: string) => void,
): void {
  const parsed = parseAppliesWhen(node[APPLIES_WHEN]);
  for (const problem of parsed.problems) warn(at, `malformed ${APPLIES_WHEN}: ${problem}; the property is always kept`);
  if (parsed.unknownKeys.length > 0) {
    const keys = parsed.unknownKeys.map((k) => JSON.stringify(k)).join(', ');
    warn(at, `unknown ${APPLIES_WHEN} key ${keys} (known: delivery_types, pricing_models, capabilities); the property is always kept`);
  }
  if (property === undefined) {
    warn(at, `${APPLIES_WHEN} outside a properties entry has no effect (only properties are ever removed)`);
    return;
  }
  const { name, parent } = property;
  if (parent.closed) {
    warn(at, `${JSON.stringify(name)} is inside a closed object (additionalProperties or unevaluatedProperties false) and is never dropped`);
  }
  if (isProtected(name, parent, cache)) {
    warn(at, `${JSON.stringify(name)} is required in its parent (required, a combinator arm, if/then/else or a dependency) and is never dropped`);
  } else {
    const via = requiredThroughRef(name, parent, referrers, cache);
    if (via !== undefined) {
      warn(at, `${JSON.stringify(name)} is required where this schema is used through $ref (${via || '/'}); projection does not follow $refs and would drop it there`);
    }
  }
  const selector = unionSelector(name, node, parent, arms, doc);
  if (selector !== undefined) warn(at, `${JSON.stringify(name)} ${selector}; dropping it would hide how buyers tell the union's arms apart`);
}

/**
 * Does the property take part in choosing a oneOf/anyOf arm? Either its parent (or a schema around it for the same
 * instance) declares `discriminator.propertyName` for it or holds a union whose arms pin it with `const`, or the
 * parent is itself a union arm and pins it with `const`.
 */
function unionSelector(name: string, property: Record<string, unknown>, parent: InPlaceContext, arms: ReadonlySet<object>, doc: unknown): string | undefined {
  for (let c: InPlaceContext | undefined = parent; c !== undefined; c = c.outer) {
    const discriminator = c.node.discriminator;
    if (isPlainObject(discriminator) && discriminator.propertyName === name) return 'is the discriminator of a union';
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const list = c.node[keyword];
      if (!Array.isArray(list)) continue;
      if (list.some((arm) => pinsConst(resolveLocal(arm, doc), name, doc))) return `is pinned with const by the ${keyword} arms it sits beside`;
    }
  }
  for (let c: InPlaceContext | undefined = parent; c !== undefined; c = c.outer) {
    if (arms.has(c.node) && hasConst(resolveLocal(property, doc))) return 'pins a union arm with const';
  }
  return undefined;
}

function pinsConst(arm: unknown, name: string, doc: unknown): boolean {
  if (!isPlainObject(arm) || !isPlainObject(arm.properties) || !Object.prototype.hasOwnProperty.call(arm.properties, name)) return false;
  return hasConst(resolveLocal(arm.properties[name], doc));
}

function hasConst(schema: unknown): boolean {
  return isPlainObject(schema) && Object.prototype.hasOwnProperty.call(schema, 'const');
}

/** Follows local `#…` refs (a few hops); anything else is returned as is. */
function resolveLocal(schema: unknown, doc: unknown): unknown {
  let node = schema;
  for (let hops = 0; hops < 8 && isPlainObject(node) && typeof node.$ref === 'string' && node.$ref.startsWith('#'); hops++) {
    const target = getAtPointer(doc, pointerFromFragment(node.$ref));
    if (target === undefined) break;
    node = target;
  }
  return node;
}

/** Every schema node that describes one arm of a oneOf/anyOf, including local-ref targets of arms and their allOf parts. */
function unionArms(doc: unknown): ReadonlySet<object> {
  const arms = new Set<object>();
  const add = (node: unknown): void => {
    if (!isPlainObject(node) || arms.has(node)) return;
    arms.add(node);
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) add(getAtPointer(doc, pointerFromFragment(node.$ref)));
    if (Array.isArray(node.allOf)) node.allOf.forEach(add);
  };
  const walk = (node: unknown): void => {
    if (!isPlainObject(node)) return;
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const list = node[keyword];
      if (Array.isArray(list)) list.forEach(add);
    }
    for (const sub of subschemas(node)) walk(sub.schema);
  };
  walk(doc);
  return arms;
}

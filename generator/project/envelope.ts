import type { Release, ToolDef } from '../load/index.js';
import { isPlainObject } from '../shared/index.js';

/**
 * Fields the runtime adds to every success body: the task `status` (when the handler gave none), the release, and
 * the caller's `context` echoed.
 */
export const ENVELOPE_FIELDS = ['status', 'adcp_version', 'context'] as const;

/**
 * The envelope fields a tool's canonical response schema refuses: some AdCP 3.2 responses are closed objects that
 * declare neither `status` nor `adcp_version` (list_products, decline_proposals, …), and a body carrying them
 * would fail the release's own schema (and any client validating against it); decline_proposals' synchronous body
 * forbids `status` outright (`not: { required: ["status"] }`). A field is refused when a closed object, or a
 * `not` forbidding its presence, on the body's path (the root, an `allOf` member, or a `oneOf`/`anyOf` arm, through `$ref`s) does not
 * declare it. Conservative for the buyer: a field one arm refuses is left out whatever arm the body takes.
 */
export function refusedEnvelopeFields(release: Release, tool: ToolDef): string[] {
  const root = release.schemas.byPath.get(tool.responseSchema);
  if (root === undefined) return [];
  return ENVELOPE_FIELDS.filter((field) => !admits(root.schema, root.id, field, release, new Set()));
}

/** `not: { required: [field] }`, or a `not` over an `anyOf` with such an arm: the field's mere presence fails. */
function forbids(not: unknown, field: string): boolean {
  if (!isPlainObject(not)) return false;
  if (Array.isArray(not.required) && not.required.length === 1 && not.required[0] === field && Object.keys(not).every((k) => k === 'required' || k === 'description')) return true;
  return Array.isArray(not.anyOf) && not.anyOf.some((arm) => forbids(arm, field));
}

function admits(node: unknown, base: string, field: string, release: Release, seen: Set<unknown>): boolean {
  if (!isPlainObject(node) || seen.has(node)) return true;
  seen.add(node);
  if (typeof node.$ref === 'string') {
    const target = release.schemas.resolve(node.$ref, base);
    if (!admits(target.schema, target.file.id, field, release, seen)) return false;
  }
  const declared = isPlainObject(node.properties) && Object.prototype.hasOwnProperty.call(node.properties, field);
  const closed = node.additionalProperties === false || node.unevaluatedProperties === false;
  if (closed && !declared) return false;
  if (forbids(node.not, field)) return false;
  for (const k of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = node[k];
    if (Array.isArray(list) && list.some((m) => !admits(m, base, field, release, seen))) return false;
  }
  return true;
}

import type { Release, ToolDef } from '../load/index.js';
import { isPlainObject } from '../shared/index.js';

/**
 * Fields the runtime adds to success bodies: the task `status` (when the handler gave none), the release, the
 * caller's `context` echoed, and `replayed: true` on an idempotent replay.
 */
export const ENVELOPE_FIELDS = ['status', 'adcp_version', 'context', 'replayed'] as const;

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

/** AdCP's task statuses (enums/task-status.json, the same from 3.0 to 3.2). */
const TASK_STATUSES: ReadonlySet<string> = new Set(['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown']);

/**
 * Whether the tool's `status` is its response's own state in this release rather than the task's: some declaration
 * of the body's `status` (at the root, an `allOf` member or a `oneOf`/`anyOf` arm, through `$ref`s) admits a value that
 * is no task status — 3.0's create_media_buy (the media buy's `pending_creatives`), check_governance (`approved`).
 * There the runtime never fills a missing status with `completed`, which would state something else.
 */
export function statusIsDomainState(release: Release, tool: ToolDef): boolean {
  return domainStatusValues(release, tool).length > 0;
}

/**
 * The `status` values a tool's response declares that are no task status (3.0's create_media_buy: `pending_creatives`,
 * `active` …), sorted: the runtime accepts a handler's own status among them without validating the whole body.
 */
export function domainStatusValues(release: Release, tool: ToolDef): string[] {
  const root = release.schemas.byPath.get(tool.responseSchema);
  if (root === undefined) return [];
  const seen = new Set<unknown>();
  const found = new Set<string>();
  const values = (node: unknown, base: string, depth: number): string[] => {
    if (!isPlainObject(node) || depth > 8) return [];
    const own = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : [];
    const out = own.filter((v): v is string => typeof v === 'string');
    if (typeof node.$ref === 'string') {
      const t = release.schemas.resolve(node.$ref, base);
      out.push(...values(t.schema, t.file.id, depth + 1));
    }
    for (const k of ['allOf', 'oneOf', 'anyOf'] as const) if (Array.isArray(node[k])) for (const m of node[k] as unknown[]) out.push(...values(m, base, depth + 1));
    return out;
  };
  const visit = (node: unknown, base: string): void => {
    if (!isPlainObject(node) || seen.has(node)) return;
    seen.add(node);
    if (isPlainObject(node.properties) && Object.prototype.hasOwnProperty.call(node.properties, 'status')) {
      for (const v of values(node.properties.status, base, 0)) if (!TASK_STATUSES.has(v)) found.add(v);
    }
    if (typeof node.$ref === 'string') {
      const t = release.schemas.resolve(node.$ref, base);
      visit(t.schema, t.file.id);
    }
    for (const k of ['allOf', 'oneOf', 'anyOf'] as const) if (Array.isArray(node[k])) for (const m of node[k] as unknown[]) visit(m, base);
  };
  visit(root.schema, root.id);
  return [...found].sort();
}

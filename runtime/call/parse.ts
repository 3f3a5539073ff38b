import type { AppliedNormalization, Issue } from '../artifacts/contract.js';
import type { ToolSlots, Served } from '../artifacts/served.js';
import { COMPLIANCE_CONTROLLER, controllerRejection } from '../issues/controller-rejection.js';
import { driftIssues, driftOf } from '../issues/drift.js';
import { invalidRequest } from '../wire/errors.js';
import { isObject } from '../wire/json-copy.js';
import type { Answer, Call } from './call.js';
import { planBatch, type ItemsPlan } from './items.js';

/**
 * Normalize → strip (production) or drift issues (development) → validate, in the answering release. A batch tool
 * whose only defects are inside some items answers those as failed rows (items.ts): the plan goes on, the rest is
 * rejected whole.
 */
export function parse(call: Call): Answer | void {
  const { served, slot } = call;
  const parsed = parseIn(served, slot, call.args);
  const plan = parsed.ok ? undefined : itemsPlan(served, slot, parsed);
  if (!parsed.ok && plan === undefined) {
    const issues = served.wire(slot, parsed.issues);
    return call.tool === COMPLIANCE_CONTROLLER
      ? controllerRejection(issues, parsed.found, call.echo, call.release.key)
      : call.reject(invalidRequest(call.tool, issues, parsed.found));
  }
  call.plan = plan;
  call.asked = call.value = plan?.value ?? parsed.value!;
  call.applied = { normalized: parsed.normalized ?? [], stripped: parsed.stripped ?? [] };
}

type Parsed =
  | { ok: true; value: Record<string, unknown>; normalized: AppliedNormalization[]; stripped: string[] }
  | { ok: false; issues: Issue[]; found: number; value?: Record<string, unknown>; normalized?: AppliedNormalization[]; stripped?: string[]; drift?: readonly string[] };

/** A request that fails keeps what it was parsed into: a batch tool may still answer its valid items. */
export function parseIn(served: Served, s: ToolSlots, input: unknown): Parsed {
  try {
    const normalized = served.normalize(s)(input);
    const stripped = served.strip(s)(normalized.value);
    // Both modes validate the stripped value, so the validator reports every other problem; development then
    // rejects the unknown fields production would have dropped, one issue per field — as many as a rejection
    // carries, the rest only counted (a million unknown fields make fifty issues, not a million).
    const verdict = served.request(s)(stripped.value);
    const drifted = served.mode === 'development' ? driftOf(stripped) : [];
    const issues = [...(drifted.length > 0 ? driftIssues(drifted) : []), ...(verdict.ok ? [] : verdict.issues)];
    const value = stripped.value as Record<string, unknown>;
    if (issues.length > 0) {
      const found = drifted.length + (verdict.ok ? 0 : verdict.issues.length);
      return { ok: false, issues, found, ...(isObject(value) ? { value, normalized: normalized.applied, stripped: stripped.removed, drift: drifted } : {}) };
    }
    return { ok: true, value, normalized: normalized.applied, stripped: stripped.removed };
  } catch (e) {
    // Strip bounds its recursion (a RangeError naming the place); so does every other stage, by the stack.
    if (e instanceof RangeError) return { ok: false, issues: [{ pointer: '', keyword: 'maxDepth', message: `nests too deeply to process: ${e.message}` }], found: 1 };
    throw e;
  }
}

/** The per-item plan of a failed batch request (items.ts), or undefined: it is rejected as a whole. */
function itemsPlan(served: Served, s: ToolSlots, failed: { value?: Record<string, unknown>; drift?: readonly string[] }): ItemsPlan | undefined {
  const module = failed.value === undefined ? null : served.items(s);
  if (module === null) return undefined;
  return planBatch(module, failed.value!, {
    tool: s.tool,
    raw: served.rawRequest(s),
    idBase: s.release.schemaIds?.base,
    drift: failed.drift ?? [],
    wire: (issues) => served.wire(s, issues),
  });
}

import type { Issue } from '../artifacts/contract.js';
import { conversionFailed } from '../artifacts/conversions.js';
import { invalidRequest } from '../wire/errors.js';
import { unescapeToken } from '../wire/pointer.js';
import { faultFields, type Answer, type Call } from './call.js';

/**
 * A request pinned to an older release than its handler's: converted up to the handler's release (the pair's rules,
 * then that release's normalizer and deep-strip), then validated there. The older release's schema may admit what
 * the newer one refuses (3.0's open request roots take `paused: "yes"`; 3.2 declares `paused` a boolean): a handler
 * only ever sees a value valid in its own release, and a defect found there is the buyer's INVALID_REQUEST. The one
 * thing an older request may lack is a field only the newer release requires (a gap: the handler's types make it
 * optional, generator/compile/convert/gaps.ts), so its absence is no defect.
 */
export function convertUp(call: Call): Answer | void {
  if (convertUp.idle(call)) return;
  const { served, tool, shape } = call;
  let value: Record<string, unknown>;
  try {
    value = served.convertUp(shape, call.release, tool, call.value);
  } catch (e) {
    return call.reject(conversionFailed(tool, `the AdCP ${call.release.key} request to AdCP ${shape.key}`, e, call.env.log, faultFields(call)));
  }
  const target = served.slot(shape, tool)!;
  const verdict = served.request(target)(value);
  const issues = verdict.ok ? [] : defects(verdict.issues, served.requestGaps(shape, call.release, tool));
  if (issues.length > 0) {
    const error = invalidRequest(tool, served.wire(target, issues));
    return call.reject({ ...error, message: `${error.message} (as AdCP ${shape.key} reads it: this agent serves ${tool} in AdCP ${shape.key})` });
  }
  call.value = value;
}

/** The handler is written in the answering release: nothing to convert. */
convertUp.idle = (call: Call): boolean => !call.converted;

/** Keywords whose issue sums up the failed arms of a union at its pointer. */
const UNIONS = new Set(['oneOf', 'anyOf']);

/**
 * The issues that are defects of a converted request: a missing field at a gap place is not one, nor a union that
 * failed at one of its ancestors only for want of it.
 */
export function defects(issues: readonly Issue[], gaps: readonly string[]): Issue[] {
  if (gaps.length === 0) return [...issues];
  const excused = issues.filter((i) => i.keyword === 'required' && gaps.includes(placeOf(i.pointer)));
  if (excused.length === 0) return [...issues];
  const rest = issues.filter((i) => !excused.includes(i));
  if (!rest.every((i) => UNIONS.has(i.keyword) && excused.some((e) => e.pointer.startsWith(`${i.pointer}/`)))) return rest;
  return [];
}

/** A pointer's place as gaps.ts writes places: array indexes as `*` (`/packages/0/format_kind` → `packages/*\/format_kind`). */
function placeOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((t) => (/^(0|[1-9]\d*)$/.test(t) ? '*' : unescapeToken(t)))
    .join('/');
}

import { MAX_REJECTION_ISSUES } from '../wire/bounds.js';
import type { Issue, StripResult } from '../artifacts/contract.js';
import { unescapeToken } from '../wire/pointer.js';

/**
 * Development mode rejects what production strips: every unknown field the strip function found at a closed object
 * becomes an INVALID_REQUEST issue whose pointer is the unknown field itself (what a buyer has to remove) and whose
 * `additionalProperty` names it. At most `limit` of them are built (a rejection carries no more, bounds.ts): the
 * rest are counted by the caller from `result.removed.length`, never made into a million objects to be dropped.
 */
export function driftIssues(removed: readonly string[], limit: number = MAX_REJECTION_ISSUES): Issue[] {
  return removed.slice(0, Math.max(0, limit)).map((pointer) => {
    const slash = pointer.lastIndexOf('/');
    const parent = slash < 0 ? '' : pointer.slice(0, slash);
    const name = unescapeToken(slash < 0 ? pointer : pointer.slice(slash + 1));
    return {
      pointer,
      keyword: 'additionalProperties',
      additionalProperty: name,
      message: `unknown field ${JSON.stringify(name)} at ${parent === '' ? 'the top level' : parent}: this AdCP release does not define it here`,
    };
  });
}

/**
 * The negotiation fields at the top level of a request (core/version-envelope.json): any buyer may send them on
 * every call, and release selection has already read and checked them before the request is parsed. A release whose
 * closed request schema predates one of them (3.0's governance and list tools know `adcp_major_version` but not
 * `adcp_version`) strips it like any unknown field, but that is not drift a buyer must fix: a 3.1+ buyer pinning
 * "3.0" is doing what versioning.mdx asks.
 */
const NEGOTIATION_POINTERS: ReadonlySet<string> = new Set(['/adcp_version', '/adcp_major_version']);

/** What development mode rejects of what the strip removed: everything but the negotiation fields. */
export function driftOf(result: StripResult): readonly string[] {
  return result.removed.some((p) => NEGOTIATION_POINTERS.has(p)) ? result.removed.filter((p) => !NEGOTIATION_POINTERS.has(p)) : result.removed;
}

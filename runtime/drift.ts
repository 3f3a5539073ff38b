import { MAX_REJECTION_ISSUES } from './bounds.js';
import type { Issue, StripResult } from './contract.js';
import { unescapeToken } from './pointer.js';

/**
 * Development mode rejects what production strips: every unknown field the strip function found at a closed object
 * becomes an INVALID_REQUEST issue whose pointer is the unknown field itself (what a buyer has to remove) and whose
 * `additionalProperty` names it. At most `limit` of them are built (a rejection carries no more, bounds.ts): the
 * rest are counted by the caller from `result.removed.length`, never made into a million objects to be dropped.
 */
export function driftIssues(result: StripResult, limit: number = MAX_REJECTION_ISSUES): Issue[] {
  return result.removed.slice(0, Math.max(0, limit)).map((pointer) => {
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

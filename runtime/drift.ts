import type { Issue, StripResult } from './contract.js';

/**
 * Development mode rejects what production strips: every unknown field the strip function found at a closed object
 * becomes an INVALID_REQUEST issue. Like Ajv's `additionalProperties` errors, the issue's pointer is the object
 * holding the field and `additionalProperty` names the field, so a validator error for the same field reads the same.
 */
export function driftIssues(result: StripResult): Issue[] {
  return result.removed.map((pointer) => {
    const slash = pointer.lastIndexOf('/');
    const parent = slash < 0 ? '' : pointer.slice(0, slash);
    const name = (slash < 0 ? pointer : pointer.slice(slash + 1)).replace(/~1/g, '/').replace(/~0/g, '~');
    return {
      pointer: parent,
      keyword: 'additionalProperties',
      additionalProperty: name,
      message: `unknown field ${JSON.stringify(name)} at ${parent === '' ? 'the top level' : parent}: this AdCP release does not define it here`,
    };
  });
}

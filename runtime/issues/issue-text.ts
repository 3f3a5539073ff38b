/**
 * The AdCP issue one Ajv error stands for: its pointer, its keyword and the message a buyer reads. Pure text; the
 * tree of errors (unions, their arms) is issue-tree.ts's. Copied into the generated output with the rest of the
 * runtime.
 */
import type { AjvErrorObject, Issue } from '../artifacts/contract.js';
import { escapeToken } from '../wire/pointer.js';

/** Values listed in a message; `allowedValues` always carries them all. */
const MAX_LISTED = 12;

/**
 * `pointer` is the field the issue is about (error-handling.mdx: `field` is `issues[0].pointer`): a missing property
 * is named by its own pointer (as @adcp/sdk's validator writes it), an unknown one too.
 */
export function issueOf(error: AjvErrorObject): Issue {
  const p = error.params;
  const at = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { pointer: `${at}/${escapeToken(String(p.missingProperty))}`, keyword: 'required', message: 'is required', missingProperty: String(p.missingProperty) };
    case 'dependencies':
    case 'dependentRequired':
      return {
        pointer: `${at}/${escapeToken(String(p.missingProperty))}`,
        keyword: error.keyword,
        message: `is required when '${String(p.property)}' is present`,
        missingProperty: String(p.missingProperty),
      };
    case 'additionalProperties':
      return {
        pointer: `${at}/${escapeToken(String(p.additionalProperty))}`,
        keyword: 'additionalProperties',
        message: `unknown property '${String(p.additionalProperty)}' is not allowed here`,
        additionalProperty: String(p.additionalProperty),
      };
    case 'enum': {
      const values = Array.isArray(p.allowedValues) ? p.allowedValues.slice() : [];
      return { pointer: at, keyword: 'enum', message: `must be one of ${listValues(values)}`, allowedValues: values };
    }
    case 'const':
      return { pointer: at, keyword: 'const', message: `must be ${jsonOf(p.allowedValue)}`, allowedValues: [p.allowedValue] };
    case 'type':
      return { pointer: at, keyword: 'type', message: `must be ${typesOf(p.type).join(' or ')}` };
    case 'pattern':
      return { pointer: at, keyword: 'pattern', message: `must match pattern ${jsonOf(p.pattern)}` };
    case 'format':
      return { pointer: at, keyword: 'format', message: `must be a valid ${String(p.format)}` };
    case 'minLength':
    case 'maxLength':
      return { pointer: at, keyword: error.keyword, message: `must NOT have ${error.keyword === 'minLength' ? 'fewer' : 'more'} than ${String(p.limit)} characters` };
    case 'minItems':
    case 'maxItems':
      return { pointer: at, keyword: error.keyword, message: `must NOT have ${error.keyword === 'minItems' ? 'fewer' : 'more'} than ${String(p.limit)} items` };
    case 'minProperties':
    case 'maxProperties':
      return { pointer: at, keyword: error.keyword, message: `must NOT have ${error.keyword === 'minProperties' ? 'fewer' : 'more'} than ${String(p.limit)} properties` };
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { pointer: at, keyword: error.keyword, message: `must be ${String(p.comparison)} ${String(p.limit)}` };
    case 'multipleOf':
      return { pointer: at, keyword: 'multipleOf', message: `must be a multiple of ${String(p.multipleOf)}` };
    case 'uniqueItems':
      return { pointer: at, keyword: 'uniqueItems', message: `must NOT have duplicate items (items ${String(p.j)} and ${String(p.i)} are identical)` };
    case 'false schema':
      return { pointer: at, keyword: 'false schema', message: 'is not allowed here' };
    case 'not':
      return { pointer: at, keyword: 'not', message: 'must NOT match a disallowed shape' };
    case 'contains':
      return { pointer: at, keyword: 'contains', message: 'must contain at least one valid item' };
    case 'propertyNames':
      return { pointer: at, keyword: 'propertyNames', message: `property name '${String(p.propertyName)}' is invalid` };
    case 'oneOf':
    case 'anyOf':
      return { pointer: at, keyword: error.keyword, message: unionText(error.keyword) };
    default:
      return { pointer: at, keyword: error.keyword, message: `must satisfy ${error.keyword}` };
  }
}

export function unionText(keyword: string): string {
  return keyword === 'oneOf' ? 'must match exactly one of the allowed shapes' : 'must match at least one of the allowed shapes';
}

/** Ajv's `type` param: one name, a comma-joined list, or an array of names. */
export function typesOf(type: unknown): string[] {
  return (Array.isArray(type) ? type.map(String) : String(type).split(',')).filter((t) => t !== '');
}

export function jsonOf(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

export function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LISTED).map(jsonOf).join(', ');
  return values.length > MAX_LISTED ? `${shown}, … (${values.length} values)` : shown;
}

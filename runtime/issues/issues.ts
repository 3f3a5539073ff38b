/**
 * Raw validators made into pure ValidateFns that answer with AdCP issues (`adcp_error.issues[]`): one failed run's
 * errors as findings (issue-tree.ts), the further ones the collection reaches (issue-collect.ts), each published
 * with the schema that rejected. Copied into the generated output with the rest of the runtime.
 */
import type { AjvErrorObject, CheckResult, Issue, RawValidateFn, ResponseValidatorModule, ValidateFn } from '../artifacts/contract.js';
import { collectIssues } from './issue-collect.js';
import { flatten, type Finding } from './finding.js';
import { findingsOf } from './issue-tree.js';
import { isObject } from '../wire/json-copy.js';

export interface WrapOptions {
  /**
   * The release's `$id` prefix (every schema's `$id` is it followed by the file's path): each issue then names the
   * schema that rejected (`schema_id`) and where in it (`schemaPath`).
   */
  readonly idBase?: string;
}

/** The answer to every valid payload: one frozen object, so the valid path allocates nothing. */
const VALID: { readonly ok: true } = Object.freeze({ ok: true });

/**
 * A pure validator: copies the errors Ajv leaves on the function before returning (and clears them, so no state or
 * payload fragment survives the call). Input too deeply nested for the call stack is a clean failure, not a crash.
 * The valid path is the raw call and nothing else; only a failed run is explained.
 */
export function wrapValidator(raw: RawValidateFn, options: WrapOptions = {}): ValidateFn {
  const explain = explainer(raw, options);
  return (data: unknown): CheckResult => {
    // The raw call inline, not through runGuarded: for a payload of a few fields the validation itself takes ~50 ns,
    // and a second frame with a try/finally costs a fifth of that. The errors are cleared on every way out.
    let errors: AjvErrorObject[] | typeof TOO_DEEP;
    try {
      if (raw(data) === true) {
        raw.errors = null;
        return VALID;
      }
    } catch (e) {
      raw.errors = null;
      if (!(e instanceof RangeError)) throw e;
      errors = TOO_DEEP;
    }
    errors ??= Array.isArray(raw.errors) ? raw.errors.slice() : [];
    raw.errors = null;
    return { ok: false, issues: explain(errors, data).issues };
  };
}

/** A check's answer, and for a failed one the payload repaired past every issue, when the collection got there. */
export type RepairingResult = { ok: true } | { ok: false; issues: Issue[]; repaired?: { value: unknown } };

/**
 * wrapValidator's check, answering also with the repaired copy (runtime/items.ts proves with it that a batch call's
 * only defects are inside the items it answers as failed rows).
 */
export function wrapRepairing(raw: RawValidateFn, options: WrapOptions = {}): (data: unknown) => RepairingResult {
  const explain = explainer(raw, options);
  return (data: unknown): RepairingResult => {
    const errors = runGuarded(raw, data);
    return errors === undefined ? VALID : explain(errors, data);
  };
}

/** A payload nested beyond the call stack: its run threw a RangeError. */
const TOO_DEEP = Symbol('too deep');

/** runRaw, a stack overflow turned into TOO_DEEP. */
function runGuarded(raw: RawValidateFn, data: unknown): AjvErrorObject[] | undefined | typeof TOO_DEEP {
  try {
    return runRaw(raw, data);
  } catch (e) {
    if (e instanceof RangeError) return TOO_DEEP;
    throw e;
  }
}

/** The issues of a failed run: its findings, then the collection's (only failed calls pay for either). */
function explainer(raw: RawValidateFn, options: WrapOptions): (errors: AjvErrorObject[] | typeof TOO_DEEP, data: unknown) => { ok: false; issues: Issue[]; repaired?: { value: unknown } } {
  return (errors, data) => {
    if (errors === TOO_DEEP) return { ok: false, issues: [{ pointer: '', keyword: 'maxDepth', message: 'payload is nested too deeply to validate' }] };
    // The root definition's location, read after the run: its pack initialises it on first use.
    const root = typeof raw.location === 'string' ? raw.location : undefined;
    let found: Finding[];
    try {
      found = findingsOf(errors, data, root); // may re-run a union branch (issue-tree.ts branchFindings)
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      found = [];
    }
    if (found.length === 0) return { ok: false, issues: [{ pointer: '', keyword: 'schema', message: 'does not match the schema' }] };
    // The issues past the first failure, and what an unmet `not` forbids (issue-collect.ts): only failed calls pay.
    const collected = collectIssues((d) => rerun(raw, d, root), data, found);
    return { ok: false, issues: collected.findings.map((f) => published(f, options.idBase)), ...(collected.repaired !== undefined ? { repaired: collected.repaired } : {}) };
  };
}

/**
 * One run of the raw validator: undefined when the value is valid, else a copy of the errors Ajv left on the
 * function. They are cleared whatever happens (a throw included), so no payload fragment outlives the call.
 */
function runRaw(raw: RawValidateFn, data: unknown): AjvErrorObject[] | undefined {
  try {
    if (raw(data) === true) return undefined;
    return Array.isArray(raw.errors) ? raw.errors.slice() : [];
  } finally {
    raw.errors = null;
  }
}

/** One more run of the raw validator, for the collection: its findings ([] when valid, or when it throws). */
function rerun(raw: RawValidateFn, data: unknown, root: string | undefined): Finding[] {
  let errors: AjvErrorObject[] | undefined;
  try {
    errors = runRaw(raw, data);
  } catch {
    return [];
  }
  return errors === undefined ? [] : findingsOf(errors, data, root);
}

/** A finding as an issue: with the rejecting schema's `$id` and the path in it, when the release's ids are known. */
function published(f: Finding, idBase: string | undefined): Issue {
  if (idBase === undefined || f.location === undefined) return f.issue;
  const hash = f.location.indexOf('#');
  const file = hash < 0 ? f.location : f.location.slice(0, hash);
  const pointer = hash < 0 ? '' : f.location.slice(hash + 1);
  const path = f.schemaPath.startsWith('#') ? f.schemaPath.slice(1) : '';
  return { ...f.issue, schema_id: `${idBase}${file}`, schemaPath: `#${pointer}${path}` };
}

/**
 * AdCP issues from one run's errors, nothing probed or re-run beyond a discriminated branch: a union's closest arm
 * by depth, then the union. (The validators' answers collect further: wrapValidator.)
 */
export function toIssues(errors: readonly AjvErrorObject[], data: unknown): Issue[] {
  return flatten(findingsOf(errors, data)).map((f) => f.issue);
}

/**
 * Response validation (issue 7, point 5). The body is validated as it goes on the wire, envelope fields at its
 * root, against the canonical schema the release publishes: 3.2 response schemas compose `core/version-envelope`
 * and `core/protocol-envelope` themselves (status, context, adcp_version, task_id, … declared, `status` required),
 * and 3.0 response schemas are open at the root, so the envelope fields the protocol layer adds are accepted as
 * they are — nothing is added or stripped here, because the spec already says what it intends. An async task
 * response is picked by the body's `status` (`submitted`, `working`, `input-required`) when the tool publishes a
 * schema for that status; every other status (`completed`, `failed`, …) is checked against the response schema.
 */
export function wrapResponseValidator(module: ResponseValidatorModule, options: WrapOptions = {}): ValidateFn {
  const sync = wrapValidator(module.validate, options);
  const byStatus = new Map<string, ValidateFn>();
  return (body: unknown): CheckResult => {
    const status = isObject(body) && Object.prototype.hasOwnProperty.call(body, 'status') ? body.status : undefined;
    if (typeof status === 'string' && Object.prototype.hasOwnProperty.call(module.validateAsync, status)) {
      let fn = byStatus.get(status);
      if (fn === undefined) byStatus.set(status, (fn = wrapValidator(module.validateAsync[status]!, options)));
      return fn(body);
    }
    return sync(body);
  };
}

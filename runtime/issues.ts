/**
 * Turns Ajv's raw errors into AdCP issues (`adcp_error.issues[]`), and raw validators into pure ValidateFns.
 * Copied into the generated output with the rest of the runtime: imports nothing but the contract.
 */
import type { AjvErrorObject, CheckResult, Issue, RawValidateFn, ResponseValidatorModule, ValidateFn } from './contract.js';
import { collectIssues } from './issue-collect.js';
import { escapeToken, unescapeToken } from './pointer.js';

/** At most this many branch issues stand for a failed union (the closest branch's), never the whole cascade. */
const MAX_BRANCH_ISSUES = 3;
/** Values listed in a message; `allowedValues` always carries them all. */
const MAX_LISTED = 12;

/**
 * A pure validator: copies the errors Ajv leaves on the function before returning (and clears them, so no state or
 * payload fragment survives the call). Input too deeply nested for the call stack is a clean failure, not a crash.
 */
export function wrapValidator(raw: RawValidateFn): ValidateFn {
  return (data: unknown): CheckResult => {
    let errors: AjvErrorObject[] | undefined;
    try {
      errors = runRaw(raw, data);
    } catch (e) {
      if (e instanceof RangeError) {
        return { ok: false, issues: [{ pointer: '', keyword: 'maxDepth', message: 'payload is nested too deeply to validate' }] };
      }
      throw e;
    }
    if (errors === undefined) return { ok: true };
    let issues: Issue[];
    try {
      issues = toIssues(errors, data); // may re-run a union branch (see branchIssues)
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      issues = [];
    }
    if (issues.length === 0) return { ok: false, issues: [{ pointer: '', keyword: 'schema', message: 'does not match the schema' }] };
    // The issues past the first failure, and what an unmet `not` forbids (issue-collect.ts): only failed calls pay.
    return { ok: false, issues: collectIssues((d) => rerun(raw, d), data, issues) };
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

/** One more run of the raw validator, for the collection: its issues ([] when valid, or when it throws). */
function rerun(raw: RawValidateFn, data: unknown): Issue[] {
  let errors: AjvErrorObject[] | undefined;
  try {
    errors = runRaw(raw, data);
  } catch {
    return [];
  }
  return errors === undefined ? [] : toIssues(errors, data);
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
export function wrapResponseValidator(module: ResponseValidatorModule): ValidateFn {
  const sync = wrapValidator(module.validate);
  const byStatus = new Map<string, ValidateFn>();
  return (body: unknown): CheckResult => {
    const status = isObject(body) && Object.prototype.hasOwnProperty.call(body, 'status') ? body.status : undefined;
    if (typeof status === 'string' && Object.prototype.hasOwnProperty.call(module.validateAsync, status)) {
      let fn = byStatus.get(status);
      if (fn === undefined) byStatus.set(status, (fn = wrapValidator(module.validateAsync[status]!)));
      return fn(body);
    }
    return sync(body);
  };
}

interface Node {
  readonly error: AjvErrorObject;
  /** For oneOf/anyOf/if: the errors of the branches it tried, as Ajv left them before the failure. */
  readonly children: Node[];
}

/**
 * AdCP issues from Ajv's errors. With `allErrors: false` Ajv stops at the first failure, which comes last; before
 * it, the errors of the union branches it tried. A union becomes one summary (the discriminator value expected,
 * or the closest branch's few issues), never every branch's cascade.
 */
export function toIssues(errors: readonly AjvErrorObject[], data: unknown): Issue[] {
  const top: Node[] = [];
  for (const raw of errors) {
    if (raw === null || typeof raw !== 'object') continue;
    const error = copyError(raw);
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf' || error.keyword === 'if') {
      // Its branch errors are the run of preceding errors at or below its instance path — up to one that Ajv left
      // for a sibling branch of an enclosing union (a nested union follows its enclosing union's earlier branches).
      let start = top.length;
      while (start > 0 && within(top[start - 1]!.error.instancePath, error.instancePath) && !siblingBranch(top[start - 1]!.error.schemaPath, error.schemaPath)) start--;
      top.push({ error, children: top.splice(start) });
    } else {
      top.push({ error, children: [] });
    }
  }
  const out: Issue[] = [];
  const seen = new Set<string>();
  for (const node of top) {
    for (const issue of nodeIssues(node, data)) {
      const key = `${issue.pointer}\0${issue.keyword}\0${issue.message}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push(issue);
      }
    }
  }
  return out;
}

function nodeIssues(node: Node, data: unknown): Issue[] {
  const { error, children } = node;
  if (error.keyword === 'if') return children.length > 0 ? children.flatMap((c) => nodeIssues(c, data)) : [issue(error)];
  if (error.keyword !== 'oneOf' && error.keyword !== 'anyOf') return [issue(error)];
  return unionIssues(error, children, data);
}

function unionIssues(error: AjvErrorObject, children: Node[], data: unknown): Issue[] {
  const at = error.instancePath;
  const passing = error.params.passingSchemas;
  if (Array.isArray(passing)) {
    return [{ pointer: at, keyword: error.keyword, message: `matches more than one of the allowed shapes (branches ${passing.join(' and ')}); it must match exactly one` }];
  }
  const hint = discriminatorHint(error.params.discriminator);
  const target = valueAt(data, at);
  let branchNodes = children;
  if (hint !== undefined) {
    const discriminator = { property: hint.property, allowedValues: hint.allowedValues.slice() };
    const choices = listValues(hint.allowedValues);
    if (!isObject(target)) {
      return [{ pointer: at, keyword: 'type', message: `must be an object whose '${hint.property}' is one of ${choices}`, discriminator }];
    }
    const where = `${at}/${escapeToken(hint.property)}`;
    if (!Object.prototype.hasOwnProperty.call(target, hint.property)) {
      return [{ pointer: at, keyword: 'required', message: `must have required property '${hint.property}' (${choices})`, missingProperty: hint.property, discriminator }];
    }
    const value = target[hint.property];
    if (!hint.allowedValues.some((v) => sameJson(v, value))) {
      return [{ pointer: where, keyword: error.keyword, message: `must be one of ${choices}`, allowedValues: hint.allowedValues.slice(), discriminator }];
    }
    // The value selects its branch: what the other branches said (inline ones are recognisable by their schema
    // path, `<union>/<index>/…`), including their rejection of the value, is beside the point.
    const selected = new Set(hint.branches.flatMap((values, i) => (values.some((v) => sameJson(v, value)) ? [String(i)] : [])));
    // A branch that is a `$ref`: run it alone, its errors are then exactly the selected branch's.
    if (selected.size === 1) {
      const own = branchIssues(hint.validators[Number([...selected][0])], target, at, data);
      if (own !== undefined) return own;
    }
    const prefix = `${error.schemaPath}/`;
    branchNodes = children.filter((c) => {
      if (c.error.instancePath === where && (c.error.keyword === 'const' || c.error.keyword === 'enum')) return false;
      if (!c.error.schemaPath.startsWith(prefix)) return true;
      return selected.has(c.error.schemaPath.slice(prefix.length).split('/')[0]!);
    });
  }
  const summary: Issue = { pointer: at, keyword: error.keyword, message: unionMessage(error.keyword, branchNodes, at) };
  const deeper = branchNodes.filter((c) => depth(c.error.instancePath) > depth(at));
  if (deeper.length === 0) {
    // A branch for another JSON type (`must be array` when an object came) is not what the caller meant; if what
    // remains is one nested union (a `$ref` to a union of shapes), its own summary is the useful one.
    const sameType = branchNodes.filter((c) => !(c.error.instancePath === at && c.error.keyword === 'type'));
    const nested = sameType.filter((c) => c.children.length > 0 || c.error.keyword === 'oneOf' || c.error.keyword === 'anyOf');
    if (nested.length === 1 && sameType.length === 1) return [...nodeIssues(nested[0]!, data).slice(0, MAX_BRANCH_ISSUES), summary];
    return [summary];
  }
  // The branch that got furthest into the payload is most likely the one the caller meant.
  const deepest = Math.max(...deeper.map((c) => depth(c.error.instancePath)));
  const closest = deeper.filter((c) => depth(c.error.instancePath) === deepest).slice(-MAX_BRANCH_ISSUES);
  return [...closest.flatMap((c) => nodeIssues(c, data)).slice(0, MAX_BRANCH_ISSUES), summary];
}

function unionMessage(keyword: string, children: Node[], at: string): string {
  const base = keyword === 'oneOf' ? 'must match exactly one of the allowed shapes' : 'must match at least one of the allowed shapes';
  const missing = [...new Set(children.filter((c) => c.error.keyword === 'required' && c.error.instancePath === at).map((c) => String(c.error.params.missingProperty)))];
  return missing.length > 0 ? `${base} (each requires one of: ${missing.map((m) => `'${m}'`).join(', ')})` : base;
}

function issue(error: AjvErrorObject): Issue {
  const p = error.params;
  const at = error.instancePath;
  switch (error.keyword) {
    case 'required':
      return { pointer: at, keyword: 'required', message: `must have required property '${String(p.missingProperty)}'`, missingProperty: String(p.missingProperty) };
    case 'dependencies':
    case 'dependentRequired':
      return {
        pointer: at,
        keyword: error.keyword,
        message: `must have property '${String(p.missingProperty)}' when property '${String(p.property)}' is present`,
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
      return { pointer: at, keyword: 'type', message: `must be ${String(p.type).split(',').join(' or ')}` };
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
      return { pointer: at, keyword: error.keyword, message: error.keyword === 'oneOf' ? 'must match exactly one of the allowed shapes' : 'must match at least one of the allowed shapes' };
    default:
      return { pointer: at, keyword: error.keyword, message: `must satisfy ${error.keyword}` };
  }
}

/** A detached copy: nothing of Ajv's objects (or the function's `errors`) escapes into an issue. */
function copyError(raw: AjvErrorObject): AjvErrorObject {
  const params = raw.params !== null && typeof raw.params === 'object' ? raw.params : {};
  return {
    keyword: String(raw.keyword),
    instancePath: typeof raw.instancePath === 'string' ? raw.instancePath : '',
    schemaPath: typeof raw.schemaPath === 'string' ? raw.schemaPath : '',
    params: { ...params },
  };
}

interface DiscriminatorHint {
  property: string;
  allowedValues: unknown[];
  branches: unknown[][];
  /** Per branch that is a `$ref`: a thunk returning the branch's compiled function (see generator/compile/validators/split.ts). */
  validators: unknown[];
}

function discriminatorHint(raw: unknown): DiscriminatorHint | undefined {
  if (!isObject(raw) || typeof raw.property !== 'string' || !Array.isArray(raw.allowedValues)) return undefined;
  const branches = Array.isArray(raw.branches) ? raw.branches.map((b) => (Array.isArray(b) ? b : [])) : [];
  return { property: raw.property, allowedValues: raw.allowedValues, branches, validators: Array.isArray(raw.validators) ? raw.validators : [] };
}

/**
 * The issues of one `$ref` branch, re-run alone on the value (only ever on a failed call). The thunk returns the
 * branch's binding: a loading stub on first use, which replaces itself, so the function that ran — and holds the
 * errors — is what the thunk returns after the call.
 */
function branchIssues(thunk: unknown, target: unknown, at: string, data: unknown): Issue[] | undefined {
  if (typeof thunk !== 'function') return undefined;
  const run = (thunk as () => unknown)();
  if (typeof run !== 'function') return undefined;
  const ok = (run as (d: unknown, o: object) => unknown)(target, { instancePath: at, rootData: data });
  if (ok === true) return undefined;
  const fn = (thunk as () => { errors?: unknown })();
  const errors = Array.isArray(fn.errors) ? (fn.errors.slice() as AjvErrorObject[]) : [];
  // As runRaw does: no payload fragment outlives the call on a shared compiled function.
  fn.errors = null;
  const issues = toIssues(errors, data);
  return issues.length > 0 ? issues : undefined;
}

/**
 * Whether an error's schema path lies in another branch of a union enclosing `union` in the same schema:
 * `#/oneOf/1/required` against `#/oneOf/2/anyOf`. Errors of called definitions have paths relative to their own
 * schema and rarely look like that; when one does, it is only summarised one level up.
 */
function siblingBranch(path: string, union: string): boolean {
  const a = path.split('/');
  const b = union.split('/');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const kw = a[i - 1];
  return i > 0 && i < a.length && i < b.length && (kw === 'oneOf' || kw === 'anyOf') && /^\d+$/.test(a[i]!) && /^\d+$/.test(b[i]!);
}

function within(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}/`);
}

function depth(pointer: string): number {
  let n = 0;
  for (let i = 0; i < pointer.length; i++) if (pointer.charCodeAt(i) === 47) n++;
  return n;
}

/** The value at an RFC 6901 pointer, own properties only; iterative, so any depth is fine. */
function valueAt(data: unknown, pointer: string): unknown {
  if (pointer === '') return data;
  let node = data;
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescapeToken(raw);
    if (Array.isArray(node)) node = /^(0|[1-9]\d*)$/.test(token) ? node[Number(token)] : undefined;
    else if (isObject(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return jsonOf(a) === jsonOf(b);
}

function jsonOf(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LISTED).map(jsonOf).join(', ');
  return values.length > MAX_LISTED ? `${shown}, … (${values.length} values)` : shown;
}

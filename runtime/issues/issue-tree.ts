/**
 * Ajv's errors of one failed run as findings: AdCP issues with what the collection (issue-collect.ts) needs to get
 * past each one. Copied into the generated output with the rest of the runtime.
 *
 * With `allErrors: false` Ajv stops at the first failure, which comes last; a failed union (`oneOf`/`anyOf`, and an
 * `if` whose `then` failed) is preceded by what its arms tried, arm after arm, each stopping at its own first
 * failure (a wrong `type` and a typeless `const` beside it can both report). The compiled code says how many arms
 * a union has (`params.arms`) and where every error was made: errors taken from a called definition carry `via`,
 * the definitions they passed through, innermost first (generator/compile/validators/compact.ts). So the errors
 * before a union's error are told apart by arm — by the arm index in the schema path of the union's own errors, by
 * the definition an arm called for the others — and a union no arm of which matched is reported as the issues of
 * the arm the payload selects by its discriminator, or of the arm the collection finds closest, instead of only
 * "must match one of the allowed shapes".
 */
import type { AjvErrorObject, Issue, IssueDiscriminator } from '../artifacts/contract.js';
import { depth, findingKey, flatten, isScalar, MAX_BRANCH_ISSUES, sameJson, valueAt, within, type Finding } from './finding.js';
import { issueOf, listValues, unionText } from './issue-text.js';
import { isObject } from '../wire/json-copy.js';
import { escapeToken } from '../wire/pointer.js';
import { switchErrors, switchOf, type VacuousSwitch } from './condition-switch.js';
import { discriminatorHint, namesOf, type DiscriminatorHint } from './union-hint.js';

interface Node {
  readonly error: AjvErrorObject;
  readonly children: Node[];
  /** The children by arm, in arm order, when they could be told apart (one group per arm). */
  readonly arms?: Node[][];
}

/** The findings of one failed run. `root` is the location of the validator's own definition. */
export function findingsOf(errors: readonly AjvErrorObject[], data: unknown, root?: string): Finding[] {
  const top: Node[] = [];
  for (const raw of errors) {
    if (raw === null || typeof raw !== 'object') continue;
    const error = copyError(raw);
    const want = expectedArms(error);
    if (want === 0) {
      top.push({ error, children: [] });
      continue;
    }
    // The run of earlier nodes this one stands over, walking back while they are its arms' (at most `want` arms).
    let start = top.length;
    let groups = 0;
    let last: string | undefined;
    while (start > 0 && inside(top[start - 1]!.error, error)) {
      const sig = armSignature(top[start - 1]!.error, error);
      if (sig !== last && want !== undefined && groups === want) break;
      if (sig !== last) groups++;
      last = sig;
      start--;
    }
    const children = top.splice(start);
    const arms = want === undefined ? undefined : byArm(children, error, want);
    top.push({ error, children, ...(arms !== undefined ? { arms } : {}) });
  }
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const node of top) {
    for (const f of nodeFindings(node, data, root)) {
      const key = findingKey(f);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(f);
    }
  }
  return out;
}

/**
 * Which arm's failure an error is, as far as the error says: the arm index in the schema path for an error the
 * union's own definition made (`#/oneOf/1/…`; `then`/`else` for an `if`), else the definition it called.
 */
function armSignature(c: AjvErrorObject, u: AjvErrorObject): string {
  const cv = viaOf(c);
  const uv = viaOf(u);
  if (cv.length > uv.length) return `call ${cv[cv.length - uv.length - 1]!}`;
  const base = u.keyword === 'if' ? u.schemaPath.slice(0, -'/if'.length) : u.schemaPath;
  return `own ${c.schemaPath.slice(base.length + 1).split('/')[0]!}`;
}

/**
 * The nodes before a union, one group per arm in arm order — when there is exactly one group per arm and every
 * group the union itself made sits at the position of the arm its schema path names; else undefined.
 */
function byArm(children: readonly Node[], u: AjvErrorObject, arms: number): Node[][] | undefined {
  const groups: Node[][] = [];
  let last: string | undefined;
  for (const c of children) {
    const sig = armSignature(c.error, u);
    if (sig === last) groups[groups.length - 1]!.push(c);
    else groups.push([c]);
    last = sig;
  }
  if (groups.length !== arms) return undefined;
  for (let k = 0; k < groups.length; k++) {
    const sig = armSignature(groups[k]![0]!.error, u);
    if (u.keyword !== 'if' && sig.startsWith('own ') && sig !== `own ${k}`) return undefined;
  }
  return groups;
}

/** How many arms a grouping error stands over (0 for an error that is a failure of its own; undefined: unknown). */
function expectedArms(error: AjvErrorObject): number | undefined {
  switch (error.keyword) {
    case 'oneOf':
    case 'anyOf':
      if (Array.isArray(error.params.passingSchemas)) return undefined;
      return typeof error.params.arms === 'number' ? error.params.arms : discriminatorHint(error.params.discriminator)?.branches.length;
    case 'if':
      return 1;
    default:
      return 0;
  }
}

/**
 * Whether `c`, before the union `u` in the run, is one of its arms' failures: at or under its instance path, and
 * made while `u` was evaluated — by a definition `u`'s own definition called (its `via` extends `u`'s), or by that
 * definition itself under `u`'s schema path (an inline arm, or `if`'s `then`/`else`).
 */
function inside(c: AjvErrorObject, u: AjvErrorObject): boolean {
  if (!within(c.instancePath, u.instancePath)) return false;
  const cv = viaOf(c);
  const uv = viaOf(u);
  if (cv.length < uv.length) return false;
  for (let i = 1; i <= uv.length; i++) if (cv[cv.length - i] !== uv[uv.length - i]) return false;
  if (cv.length > uv.length) return true;
  if (u.keyword === 'if') {
    const base = u.schemaPath.slice(0, -'/if'.length);
    return c.schemaPath.startsWith(`${base}/then/`) || c.schemaPath.startsWith(`${base}/else/`);
  }
  return c.schemaPath.startsWith(`${u.schemaPath}/`);
}

function nodeFindings(node: Node, data: unknown, root: string | undefined): Finding[] {
  const { error, children } = node;
  if (error.keyword === 'oneOf' || error.keyword === 'anyOf') return unionFindings(node, data, root);
  const { vacuous, refused, within } = switchOf(error, data);
  if (vacuous !== undefined) return switchFindings(error, vacuous, root);
  // The caller's switch value refused: the error stands, and what each value would require is asked once the rest is found.
  if (refused !== undefined) return [{ ...finding(error, root), conditions: { property: refused.names[0]!, values: refused.values, at: refused.at }, union: refused.id }];
  if (error.keyword === 'if') return children.length > 0 ? children.flatMap((c) => nodeFindings(c, data, root)) : [finding(error, root)];
  return [within === undefined ? finding(error, root) : { ...finding(error, root), within }];
}

function unionFindings(node: Node, data: unknown, root: string | undefined): Finding[] {
  const { error, children, arms } = node;
  const at = error.instancePath;
  const passing = error.params.passingSchemas;
  if (Array.isArray(passing)) {
    return [finding(error, root, { message: `matches more than one of the allowed shapes (branches ${passing.join(' and ')}); it must match exactly one` })];
  }
  const hint = discriminatorHint(error.params.discriminator);
  if (hint !== undefined) return discriminated(node, hint, data, root);
  const summary = finding(error, root, { message: unionMessage(error.keyword, children, at) });
  if (arms !== undefined) {
    const names = namesOf(error.params.names, arms.length);
    return [{ ...summary, arms: arms.map((group) => group.flatMap((c) => nodeFindings(c, data, root))), union: unionId(error), ...(names !== undefined ? { armNames: names } : {}) }];
  }
  // Arms not told apart (a run of an older validator): the branch that got furthest into the payload.
  const deeper = children.filter((c) => depth(c.error.instancePath) > depth(at));
  if (deeper.length === 0) {
    // A branch for another JSON type (`must be array` when an object came) is not what the caller meant; if what
    // remains is one nested union (a `$ref` to a union of shapes), its own summary is the useful one.
    const sameType = children.filter((c) => !(c.error.instancePath === at && c.error.keyword === 'type'));
    const nested = sameType.filter((c) => c.children.length > 0 || c.error.keyword === 'oneOf' || c.error.keyword === 'anyOf');
    if (nested.length === 1 && sameType.length === 1) return [...flatten(nodeFindings(nested[0]!, data, root)).slice(0, MAX_BRANCH_ISSUES), summary];
    return [summary];
  }
  const deepest = Math.max(...deeper.map((c) => depth(c.error.instancePath)));
  const closest = deeper.filter((c) => depth(c.error.instancePath) === deepest).slice(-MAX_BRANCH_ISSUES);
  return [...flatten(closest.flatMap((c) => nodeFindings(c, data, root))).slice(0, MAX_BRANCH_ISSUES), summary];
}

/**
 * A union whose arms pin one property to constants. No discriminator value, or one no arm takes: that issue alone
 * (choosing an arm would be guessing what the caller meant), marked so the collection can get past it without
 * reporting what a guessed arm says. A value that selects an arm: that arm's issues, with the value as the
 * variant selected (`discriminator`, error-handling.mdx).
 */
function discriminated(node: Node, hint: DiscriminatorHint, data: unknown, root: string | undefined): Finding[] {
  const { error, children, arms } = node;
  const at = error.instancePath;
  const target = valueAt(data, at);
  const choices = listValues(hint.allowedValues);
  const pick = { property: hint.property, branches: hint.branches, at, ...(hint.names !== undefined ? { names: hint.names } : {}) };
  const union = unionId(error);
  const where = `${at}/${escapeToken(hint.property)}`;
  if (!isObject(target)) {
    return [finding(error, root, { keyword: 'type', message: `must be an object whose '${hint.property}' is one of ${choices}` }, { type: 'object' })];
  }
  if (!Object.prototype.hasOwnProperty.call(target, hint.property)) {
    return [{ ...finding(error, root, { pointer: where, keyword: 'required', message: `is required (one of ${choices})`, missingProperty: hint.property, allowedValues: hint.allowedValues.slice() }, { missingProperty: hint.property }), pick, union }];
  }
  const value = target[hint.property];
  const selected = hint.branches.flatMap((values, i) => (values.some((v) => sameJson(v, value)) ? [i] : []));
  if (selected.length === 0) {
    return [{ ...finding(error, root, { pointer: where, message: `must be one of ${choices}`, allowedValues: hint.allowedValues.slice() }, { allowedValues: hint.allowedValues }), pick, union }];
  }
  const variant: IssueDiscriminator[] | undefined = isScalar(value) ? [{ property_name: hint.property, value }] : undefined;
  const mark = (fs: Finding[]): Finding[] => fs.map((f) => withVariant(f, variant, union));
  if (arms !== undefined && selected.length === 1) return mark(arms[selected[0]!]!.flatMap((c) => nodeFindings(c, data, root)));
  // Arms not told apart: a selected `$ref` arm is re-run alone; an inline one is recognised by its schema path.
  if (selected.length === 1) {
    const own = branchFindings(hint.validators[selected[0]!], target, at, data);
    if (own !== undefined) return mark(own);
  }
  const prefix = `${error.schemaPath}/`;
  const chosen = new Set(selected.map(String));
  const kept = children.filter((c) => {
    if (c.error.instancePath === where && (c.error.keyword === 'const' || c.error.keyword === 'enum')) return false;
    return !c.error.schemaPath.startsWith(prefix) || chosen.has(c.error.schemaPath.slice(prefix.length).split('/')[0]!);
  });
  return mark(unionFindings({ error: { ...error, params: { ...error.params, discriminator: undefined, arms: undefined } }, children: kept }, data, root));
}

/** A finding of the arm a discriminator value selected: the value as the variant (unless a nearer union set one). */
function withVariant(f: Finding, variant: IssueDiscriminator[] | undefined, union: string): Finding {
  const arms = f.arms?.map((arm) => arm.map((g) => withVariant(g, variant, union)));
  const issue = f.issue.discriminator === undefined && variant !== undefined ? { ...f.issue, discriminator: variant } : f.issue;
  return { ...f, issue, within: f.within ?? union, ...(arms !== undefined ? { arms } : {}) };
}

function finding(error: AjvErrorObject, root: string | undefined, over: Partial<Issue> = {}, params: Record<string, unknown> = error.params): Finding {
  const location = viaOf(error)[0] ?? root;
  return { issue: { ...issueOf(error), ...over }, params, schemaPath: error.schemaPath, ...(location !== undefined ? { location } : {}) };
}

function switchFindings(error: AjvErrorObject, missing: VacuousSwitch, root: string | undefined): Finding[] {
  const conditions = missing.values.length === 0 ? undefined : { property: missing.names[0]!, values: missing.values, at: missing.at };
  return switchErrors(error, missing).map((e) => (conditions === undefined ? finding(e, root) : { ...finding(e, root), conditions, union: missing.id }));
}

function unionId(error: AjvErrorObject): string {
  return `${viaOf(error).join('>')}|${error.schemaPath}|${error.instancePath}`;
}

/** A copied error's `via` (copyError makes it a list). */
function viaOf(error: AjvErrorObject): readonly string[] {
  return Array.isArray(error.via) ? error.via : [];
}

function unionMessage(keyword: string, children: Node[], at: string): string {
  const missing = [...new Set(children.filter((c) => c.error.keyword === 'required' && c.error.instancePath === at).map((c) => String(c.error.params.missingProperty)))];
  return missing.length > 0 ? `${unionText(keyword)} (each requires one of: ${missing.map((m) => `'${m}'`).join(', ')})` : unionText(keyword);
}

/** A detached copy: nothing of Ajv's objects (or the function's `errors`) escapes into a finding. */
function copyError(raw: AjvErrorObject): AjvErrorObject {
  const params = raw.params !== null && typeof raw.params === 'object' ? raw.params : {};
  // The compiled code's `via` is one string, locations joined by line feeds (compact.ts); an array is read too.
  const via = typeof raw.via === 'string' ? raw.via.split('\n') : Array.isArray(raw.via) ? raw.via.filter((v): v is string => typeof v === 'string') : undefined;
  return {
    keyword: String(raw.keyword),
    instancePath: typeof raw.instancePath === 'string' ? raw.instancePath : '',
    schemaPath: typeof raw.schemaPath === 'string' ? raw.schemaPath : '',
    params: { ...params },
    ...(via !== undefined && via.length > 0 ? { via } : {}),
  };
}

/**
 * The findings of one `$ref` branch, re-run alone on the value (only ever on a failed call). The thunk returns the
 * branch's binding: a loading stub on first use, which replaces itself, so the function that ran — and holds the
 * errors — is what the thunk returns after the call.
 */
function branchFindings(thunk: unknown, target: unknown, at: string, data: unknown): Finding[] | undefined {
  if (typeof thunk !== 'function') return undefined;
  const run = (thunk as () => unknown)();
  if (typeof run !== 'function') return undefined;
  const ok = (run as (d: unknown, o: object) => unknown)(target, { instancePath: at, rootData: data });
  if (ok === true) return undefined;
  const fn = (thunk as () => { errors?: unknown; location?: unknown })();
  const errors = Array.isArray(fn.errors) ? (fn.errors.slice() as AjvErrorObject[]) : [];
  // As runRaw does: no payload fragment outlives the call on a shared compiled function.
  fn.errors = null;
  const found = findingsOf(errors, data, typeof fn.location === 'string' ? fn.location : undefined);
  return found.length > 0 ? flatten(found) : undefined;
}

import { CodegenError } from '../../shared/index.js';
import type { NormalizationRule } from '../../load/index.js';
import { commentText, jsLiteral } from '../../shared/index.js';
import { acceptsCheck, access, assertSafeKey, blockedExpr, pointerOf, presentExpr, removeExpr, setExpr, Writer } from '../codegen/index.js';

/**
 * One rule's code: read the deprecated field, translate it by the rule's transform (rename, wrap, unwrap, move into
 * ext, URL to domain, drop), apply the conflict policy when the current field is already there, and report it.
 */

export function emitRule(w: Writer, rule: NormalizationRule, node: string, base: string): void {
  for (const k of [...rule.from, ...(rule.to ?? [])]) assertSafeKey(rule, k);
  const t = rule.transform;
  const fromPtr = pointerOf(base, rule.from);
  const removed = removeExpr(node, rule.from);
  const id = jsLiteral(rule.id);
  // The rule file by name only: generated code never carries a path of the machine that generated it.
  const origin = `${rule.file.split(/[\\/]/).pop()}#${rule.pointer}`;
  w.line(`// ${commentText(rule.id)} (${commentText(origin)})${rule.summary === undefined ? '' : `: ${commentText(rule.summary)}`}`);
  w.open(`if (${presentExpr(node, rule.from)}) {`);
  w.line(`const deprecated = ${access(node, rule.from)};`);

  if (t.kind === 'drop') {
    w.line(`${node} = ${removed};`);
    w.line(`applied.push({ rule: ${id}, from: ${fromPtr}, to: '', reason: ${jsLiteral(t.reason)} });`);
    w.close();
    return;
  }

  if (t.kind === 'unwrap') {
    const members = Object.entries(t.members);
    for (const [m, target] of members) {
      assertSafeKey(rule, m);
      assertSafeKey(rule, target);
    }
    const known = members.map(([m]) => `k === ${jsLiteral(m)}`).join(' || ');
    w.line('// Only an object whose members all have a place moves; anything else stays for validation.');
    w.open(`if (isObject(deprecated) && Object.keys(deprecated).length > 0 && Object.keys(deprecated).every((k) => ${known})) {`);
    w.line(`${node} = ${removed};`);
    for (const [m, target] of members) {
      const entry = `rule: ${id}, from: ${pointerOf(base, [...rule.from, m])}, to: ${pointerOf(base, [target])}`;
      w.open(`if (hasOwn(deprecated, ${jsLiteral(m)})) {`);
      w.open(`if (hasOwn(${node}, ${jsLiteral(target)})) {`);
      w.line(`applied.push({ ${entry}, conflict: true });`);
      w.mid('} else {');
      w.line(`${node} = withMember(${node}, ${jsLiteral(target)}, deprecated[${jsLiteral(m)}]);`);
      w.line(`applied.push({ ${entry} });`);
      w.close();
      w.close();
    }
    w.close();
    w.close();
    return;
  }

  const to = rule.to!;
  const entry = `rule: ${id}, from: ${fromPtr}, to: ${pointerOf(base, to)}`;
  // Only a deprecated value the rule can translate takes part: a malformed one stays where it is for validation to
  // reject, whether or not the current field is there too. That keeps the policy one rule and normalization
  // idempotent (a second pass finds exactly what the first left).
  const accepts = acceptsCheck(rule.accepts, 'deprecated');
  if (accepts !== undefined) w.open(`if (${accepts}) {`);
  const value = transformValue(rule, w);
  if (value.guard !== undefined) w.open(`if (${value.guard}) {`);
  w.open(`if (${presentExpr(node, to)}) {`);
  w.line('// The current field wins; the deprecated one goes, and the conflict is reported.');
  w.line(`${node} = ${removed};`);
  w.line(`applied.push({ ${entry}, conflict: true });`);
  const blocked = blockedExpr(node, to);
  w.mid(blocked === undefined ? '} else {' : `} else if (!(${blocked})) {`);
  // The loader refuses a nested source that shares its parent with the target, so reading the target's parents
  // from the original container cannot bring the removed source back.
  w.line(`${node} = ${setExpr(removed, node, to, value.expr)};`);
  w.line(`applied.push({ ${entry} });`);
  w.close();
  if (value.guard !== undefined) w.close();
  if (accepts !== undefined) w.close();
  w.close();
}

/** The current value built from `deprecated`, with the condition under which the rule can build it. */
export function transformValue(rule: NormalizationRule, w: Writer): { expr: string; guard?: string } {
  const t = rule.transform;
  switch (t.kind) {
    case 'rename':
    case 'move':
    case 'move-into-ext':
      return { expr: 'deprecated' };
    case 'wrap-array':
      // A deprecated singular field holding an array is not the shape this rule knows.
      return { expr: '[deprecated]', guard: rule.accepts?.includes('array') ? '!Array.isArray(deprecated)' : undefined };
    case 'wrap-object': {
      assertSafeKey(rule, t.key);
      if (t.pick !== undefined) assertSafeKey(rule, t.pick);
      const members: string[] = [];
      for (const [k, v] of Object.entries(t.const ?? {})) {
        assertSafeKey(rule, k);
        members.push(`${jsLiteral(k)}: ${jsLiteral(v)}`);
      }
      if (t.pick === undefined) {
        members.push(`${jsLiteral(t.key)}: deprecated`);
        return { expr: `{ ${members.join(', ')} }` };
      }
      const pick = jsLiteral(t.pick);
      members.push(`${jsLiteral(t.key)}: deprecated[${pick}]`);
      // Only an object holding nothing but the picked member: other members would be lost silently.
      return {
        expr: `{ ${members.join(', ')} }`,
        guard: `isObject(deprecated) && Object.keys(deprecated).length === 1 && hasOwn(deprecated, ${pick})`,
      };
    }
    case 'url-to-domain': {
      const source =
        t.urlMember === undefined ? 'deprecated' : `(isObject(deprecated) ? (hasOwn(deprecated, ${jsLiteral(t.urlMember)}) ? deprecated[${jsLiteral(t.urlMember)}] : undefined) : deprecated)`;
      w.line(`const domain = domainOf(${source});`);
      return { expr: '{ domain }', guard: 'domain !== undefined' };
    }
    case 'unwrap':
    case 'drop':
      throw new CodegenError(rule.file, rule.pointer, `${t.kind} has no single target value`);
  }
}


import { commentText, escapeToken, jsLiteral } from '../../shared/index.js';
import { access, assertSafeKey, blockedExpr, pointerOf, presentExpr, setExpr, type Writer } from '../codegen/index.js';
import type { Step } from './plan.js';

/**
 * One step's code in a conversion module (module.ts lays out the containers): the transform of its rule applied to
 * the field at one place, copy-on-write, each change reported in `applied` with the rule and the pointers.
 */

/** Module-level constants (value lists), named once per distinct literal. */
export class Constants {
  private readonly byText = new Map<string, string>();
  name(values: readonly unknown[]): string {
    const text = jsLiteral(values);
    let n = this.byText.get(text);
    if (n === undefined) this.byText.set(text, (n = `VALUES_${this.byText.size + 1}`));
    return n;
  }
  lines(): string[] {
    return [...this.byText].map(([text, name]) => `const ${name} = ${text};`);
  }
}

export function emitStep(w: Writer, step: Step, node: string, base: string, depth: number, consts: Constants): void {
  const { rule, field } = step;
  assertSafeKey(rule, field);
  for (const k of step.target ?? []) assertSafeKey(rule, k);
  const t = rule.transform;
  const f = jsLiteral(field);
  const value = `${node}[${f}]`;
  const id = jsLiteral(rule.id);
  const from = pointerOf(base, [field]);
  // The rule file by name only: generated code never carries a path of the machine that generated it.
  const origin = `${rule.file.split(/[\\/]/).pop()}#${rule.pointer}`;
  w.line(`// ${commentText(rule.id)} (${commentText(origin)})${rule.summary === undefined ? '' : `: ${commentText(rule.summary)}`}`);
  const unless = Object.entries(rule.unless ?? {}).map(([k, vs]) => {
    assertSafeKey(rule, k);
    return `(hasOwn(${node}, ${jsLiteral(k)}) && oneOf(${node}[${jsLiteral(k)}], ${consts.name(vs)}))`;
  });
  const guard = unless.length === 0 ? '' : ` && !(${unless.join(' || ')})`;
  switch (t.kind) {
    case 'rename':
    case 'move': {
      const target = step.target!;
      const entry = `rule: ${id}, from: ${from}, to: ${pointerOf(base, target)}`;
      const removed = `without(${node}, ${f})`;
      const blocked = blockedExpr(node, target);
      // An intermediate of the target that is there but not an object leaves nowhere to put the value: nothing moves.
      w.open(`if (hasOwn(${node}, ${f})${blocked === undefined ? '' : ` && !(${blocked})`}${guard}) {`);
      w.line(`const value = ${value};`);
      if (t.conflict === 'keep') {
        w.open(`if (${presentExpr(node, target)}) {`);
        w.line('// The field already there is kept; the value read goes.');
        w.line(`${node} = ${removed};`);
        w.line(`applied.push({ ${entry}, conflict: true });`);
        w.mid('} else {');
        w.line(`${node} = ${setExpr(removed, node, target, 'value')};`);
        w.line(`applied.push({ ${entry} });`);
        w.close();
      } else {
        w.line('// The value read replaces one already there, which meant something else in this release.');
        w.line(`const replaced = ${presentExpr(node, target)};`);
        w.line(`${node} = ${setExpr(removed, node, target, 'value')};`);
        w.line(`applied.push(replaced ? { ${entry}, conflict: true } : { ${entry} });`);
      }
      w.close();
      return;
    }
    case 'drop': {
      const reason = jsLiteral(t.reason);
      if (step.elements === true) {
        const admitted = consts.name(step.admitted!);
        w.open(`if (hasOwn(${node}, ${f}) && Array.isArray(${value})${guard}) {`);
        w.line(`const list = ${value};`);
        w.line(`const kept = list.filter((v) => oneOf(v, ${admitted}));`);
        w.open('if (kept.length !== list.length) {');
        w.line(`for (let i = 0; i < list.length; i++) if (!oneOf(list[i], ${admitted})) applied.push({ rule: ${id}, from: ${from} + '/' + i, to: '', reason: ${reason} });`);
        w.line(`${node} = withMember(${node}, ${f}, kept);`);
        w.close();
        w.close();
        return;
      }
      w.open(`if (hasOwn(${node}, ${f})${condition(step, value, consts)}${guard}) {`);
      w.line(`${node} = without(${node}, ${f});`);
      w.line(`applied.push({ rule: ${id}, from: ${from}, to: '', reason: ${reason} });`);
      w.close();
      return;
    }
    case 'drop-parent': {
      w.open(`if (${t.missing ? `!hasOwn(${node}, ${f})` : `hasOwn(${node}, ${f})${condition(step, value, consts)}`}${guard}) {`);
      w.line(`drop${depth} = true;`);
      w.line(`applied.push({ rule: ${id}, from: ${base}, to: '', reason: ${jsLiteral(t.reason)} });`);
      w.close();
      return;
    }
    case 'default': {
      w.open(`if (!hasOwn(${node}, ${f})${guard}) {`);
      w.line(`${node} = withMember(${node}, ${f}, ${jsLiteral(t.value)});`);
      w.line(`applied.push({ rule: ${id}, from: '', to: ${from} });`);
      w.close();
      return;
    }
    case 'map': {
      // One entry at most: the first whose `from` members all match.
      t.table.forEach((entry, i) => {
        const match = Object.entries(entry.from).map(([k, v]) => {
          assertSafeKey(rule, k);
          return `hasOwn(${node}, ${jsLiteral(k)}) && sameValue(${node}[${jsLiteral(k)}], ${jsLiteral(v)})`;
        });
        let next = node;
        for (const k of Object.keys(entry.from)) if (!Object.prototype.hasOwnProperty.call(entry.to, k)) next = `without(${next}, ${jsLiteral(k)})`;
        for (const [k, v] of Object.entries(entry.to)) {
          assertSafeKey(rule, k);
          next = `withMember(${next}, ${jsLiteral(k)}, ${jsLiteral(v)})`;
        }
        const head = `if (${match.join(' && ')}${guard}) {`;
        if (i === 0) w.open(head);
        else w.mid(`} else ${head}`);
        w.line(`${node} = ${next};`);
        w.line(`applied.push({ rule: ${id}, from: ${from}, to: ${from} });`);
      });
      w.close();
      return;
    }
    case 'refuse': {
      const when = t.missing ? `!hasOwn(${node}, ${f})` : t.present ? `hasOwn(${node}, ${f})` : `hasOwn(${node}, ${f}) && oneOf(${value}, ${consts.name(t.values!)})`;
      w.line(`if (${when}${guard}) return { value: data, applied, refused: ${jsLiteral(t.reason)} };`);
      return;
    }
    case 'pluck': {
      const target = step.target!;
      const m = jsLiteral(t.member);
      assertSafeKey(rule, t.member);
      w.open(`if (hasOwn(${node}, ${f}) && Array.isArray(${value}) && !hasOwn(${node}, ${jsLiteral(target[0])})${guard}) {`);
      w.line('const picked = [];');
      const admitted = step.admitted === undefined ? '' : ` && oneOf(e[${m}], ${consts.name(step.admitted)})`;
      w.line(`for (const e of ${value}) if (isObject(e) && hasOwn(e, ${m})${admitted} && !picked.some((x) => sameValue(x, e[${m}]))) picked.push(e[${m}]);`);
      w.line('// An empty list says "nothing allowed" only when the list read was empty too.');
      w.open(`if (picked.length > 0 || ${value}.length === 0) {`);
      w.line(`${node} = withMember(${node}, ${jsLiteral(target[0])}, picked);`);
      w.line(`applied.push({ rule: ${id}, from: ${from}, to: ${pointerOf(base, target)} });`);
      w.close();
      w.close();
      return;
    }
    case 'from-request': {
      for (const k of t.path) assertSafeKey(rule, k);
      w.open(`if (!hasOwn(${node}, ${f}) && isObject(requested) && ${presentExpr('requested', t.path)}${guard}) {`);
      w.line(`${node} = withMember(${node}, ${f}, ${access('requested', t.path)});`);
      w.line(`applied.push({ rule: ${id}, from: ${jsLiteral(t.path.map((k) => '/' + escapeToken(k)).join(''))}, to: ${from}, origin: 'request' });`);
      w.close();
      return;
    }
  }
}

/** ` && <when the step removes the value>`: always, one of the rule's values, or one the receiving release lacks. */
function condition(step: Step, value: string, consts: Constants): string {
  const t = step.rule.transform;
  if (t.kind !== 'drop' && t.kind !== 'drop-parent') return '';
  if (step.admitted !== undefined) return ` && !oneOf(${value}, ${consts.name(step.admitted)})`;
  if (t.values !== undefined) return ` && oneOf(${value}, ${consts.name(t.values)})`;
  return '';
}

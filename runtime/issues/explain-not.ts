import type { Issue } from '../artifacts/contract.js';
import { escapeToken } from '../wire/pointer.js';
import { flatten, valueAt, type Finding } from './finding.js';
import { apply } from './repair.js';

/** Properties probed, one removal each, to name what an unmet `not` forbids. */
const MAX_NOT_PROBES = 24;

/**
 * An unmet `not`, said in terms of the payload: for a scalar, the value itself is what is forbidden; for an object,
 * the properties whose removal satisfies the `not` (probed on copies): each one whose removal alone does, or else
 * the smallest set found whose removal together does (`not: { anyOf: [{ required: [a] }, { required: [b] }] }`
 * with both present). `run` validates one copy (it throws when the collection is out of runs).
 */
export function explainNot(data: unknown, f: Finding, run: (copy: unknown) => Finding[]): Finding {
  const issue: Issue = f.issue;
  try {
    const value = valueAt(data, issue.pointer);
    if (value === null || typeof value !== 'object') return { ...f, issue: { ...issue, message: `must NOT be ${JSON.stringify(value)} here` } };
    if (Array.isArray(value)) return f;
    const names = Object.keys(value).slice(0, MAX_NOT_PROBES);
    const satisfiedWithout = (removed: readonly string[]): boolean => {
      let copy: unknown = data;
      for (const name of removed) copy = apply(copy, { pointer: `${issue.pointer}/${escapeToken(name)}`, remove: true })!.value;
      return !flatten(run(copy)).some((g) => g.issue.keyword === 'not' && g.issue.pointer === issue.pointer);
    };
    let forbidden = names.filter((n) => satisfiedWithout([n]));
    if (forbidden.length === 0) {
      const together: string[] = [];
      for (const n of names) {
        together.push(n);
        if (satisfiedWithout(together)) break;
      }
      if (!satisfiedWithout(together)) return f;
      forbidden = together.filter((n) => !satisfiedWithout(together.filter((m) => m !== n)));
    }
    if (forbidden.length === 0) return f;
    const listed = forbidden.map((n) => `'${n}'`);
    const phrase = listed.length > 1 ? `${listed.slice(0, -1).join(', ')} or ${listed[listed.length - 1]}` : listed[0]!;
    return { ...f, issue: { ...issue, message: `must NOT have ${phrase} here`, forbiddenProperties: forbidden } };
  } catch {
    return f;
  }
}

import type { EmittedFile, InputRef, Release } from '../../load/index.js';
import { declarationSource } from './declaration.js';
import { moduleSource } from './module.js';
import { ruleInput, type NormalizationPlan } from './plan.js';
import { selectTools } from '../select-tools.js';

/**
 * Compiles a normalization plan into one CommonJS module per tool (`releases/<key>/normalize/<tool>.cjs`,
 * `module.exports = { normalize }`, runtime/contract.ts NormalizeFn) plus its typed declaration (`.d.cts`).
 *
 * The module is straight-line code: one block per rule, in plan order, nested under the containers the rules
 * name; no rule table is read at run time. Copy-on-write all the way: the input is never mutated, untouched
 * subtrees are shared, and a payload with nothing to translate comes back as the very same object.
 *
 * Conflict policy (one for all rules): when the current field is already present it wins, the deprecated field
 * is removed, and the conflict is reported in `applied`. A deprecated value the rule cannot translate (wrong
 * type, not a URL, an object with members the rule does not know) is left in place for validation to reject —
 * with or without the current field beside it.
 */
export function compileNormalizers(release: Release, plan: NormalizationPlan, tools?: readonly string[]): EmittedFile[] {
  const out: EmittedFile[] = [];
  for (const def of selectTools(release, tools)) {
    const tool = def.name;
    const rules = plan.emitted.filter((p) => p.tool === tool).map((p) => p.rule);
    const schema = release.schemas.byPath.get(def.requestSchema);
    const inputs: InputRef[] = [];
    if (schema !== undefined) inputs.push({ name: `${release.label}:${schema.path}`, hash: schema.hash });
    for (const rule of rules) {
      const input = ruleInput(rule);
      if (!inputs.some((i) => i.name === input.name)) inputs.push(input);
    }
    const base = `releases/${release.key}/normalize/${tool}`;
    out.push({ path: `${base}.cjs`, contents: moduleSource(release, tool, rules), inputs });
    out.push({ path: `${base}.d.cts`, contents: declarationSource(release, tool, rules), inputs });
  }
  return out;
}


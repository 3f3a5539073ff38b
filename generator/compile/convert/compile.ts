import { ARTIFACT_PATHS } from '../../../runtime/contract.js';
import type { EmittedFile, InputRef, Release } from '../../load/index.js';
import { declarationSource } from './declaration.js';
import { requestGaps } from './gaps.js';
import { moduleSource, SUPPORT_PATH, SUPPORT_SOURCE } from './module.js';
import type { ConversionPlan } from './plan.js';

/**
 * Compiles a pair's conversion plan: per tool both releases serve, `releases/<older>/convert/<newer>/<tool>.cjs`
 * (`module.exports = { response, request }`, runtime/contract.ts ConvertModule) and its `.d.cts`, and the helpers
 * every conversion module requires, `convert/support.<hash>.cjs` (content-addressed: one file for every pair).
 */
export function compileConversions(plan: ConversionPlan): EmittedFile[] {
  const { newer, older } = plan;
  const out: EmittedFile[] = [{ path: SUPPORT_PATH, contents: SUPPORT_SOURCE, inputs: [] }];
  const ruleInputs: InputRef[] = plan.files.map((f) => ({ name: `conversion:${f.file}`, hash: f.fileHash }));
  for (const conversion of plan.tools) {
    const path = ARTIFACT_PATHS.convert(older.key, newer.key, conversion.tool);
    const inputs = [...schemaInputs(newer, conversion.tool), ...schemaInputs(older, conversion.tool), ...ruleInputs];
    out.push({ path, contents: moduleSource(plan, conversion, relativeTo(path, SUPPORT_PATH)), inputs });
    const paths = { newerTypes: relativeTo(path, `releases/${newer.key}/types.js`), olderTypes: relativeTo(path, `releases/${older.key}/types.js`), runtime: relativeTo(path, 'runtime/agent.js') };
    out.push({ path: path.replace(/\.cjs$/, '.d.cts'), contents: declarationSource(plan, conversion, requestGaps(newer, older, conversion.tool), paths), inputs });
  }
  return out;
}

/** The tool's canonical schemas in one release, as headers name them. */
function schemaInputs(release: Release, tool: string): InputRef[] {
  const def = release.tools.get(tool)!;
  return [def.requestSchema, def.responseSchema, ...def.asyncResponseSchemas]
    .map((p) => release.schemas.byPath.get(p))
    .filter((f) => f !== undefined)
    .map((f) => ({ name: `${release.label}:${f.path}`, hash: f.hash }));
}

/** `./x` or `../../y` from the directory of `from` to `to` (both relative to the output directory). */
function relativeTo(from: string, to: string): string {
  const a = from.split('/').slice(0, -1);
  const b = to.split('/');
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  const up = a.length - i;
  return `${up === 0 ? './' : '../'.repeat(up)}${b.slice(i).join('/')}`;
}

import { ARTIFACT_PATHS } from '../../../runtime/artifacts/contract.js';
import type { EmittedFile, InputRef, Release } from '../../load/index.js';
import { CodegenError, commentText, jsLiteral, sha256, shortHash } from '../../shared/index.js';
import { declarationSource } from './declaration.js';
import { gapsSource, requestGaps } from './gaps.js';
import { IDENTITY_PATH, IDENTITY_SOURCE, moduleSource, SUPPORT_PATH, SUPPORT_SOURCE } from './module.js';
import type { ConversionPlan, ToolConversion } from './plan.js';

/**
 * Compiles a pair's conversion plan: per tool both releases serve, a module (`module.exports = { response, request }`,
 * runtime/contract.ts ConvertModule) named by its content, `releases/<older>/convert/<newer>/<tool>.<hash>.cjs`, or
 * for a tool no rule applies to the identity module every pair shares (`convert/none.<hash>.cjs`); the pair's index,
 * `releases/<older>/convert/<newer>/index.cjs`, whose getter per tool requires its module on first use (what the
 * runtime loads), with the typed declarations of every tool (`index.d.cts`); and the helpers every conversion module
 * requires (`convert/support.<hash>.cjs`).
 */
export function compileConversions(plan: ConversionPlan): EmittedFile[] {
  const { newer, older } = plan;
  const index = ARTIFACT_PATHS.convert(older.key, newer.key);
  const dir = index.slice(0, index.lastIndexOf('/') + 1);
  const out: EmittedFile[] = [
    { path: SUPPORT_PATH, contents: SUPPORT_SOURCE, inputs: [] },
    { path: IDENTITY_PATH, contents: IDENTITY_SOURCE, inputs: [] },
  ];
  const ruleInputs: InputRef[] = plan.files.map((f) => ({ name: `conversion:${f.file}`, hash: f.fileHash }));
  const modules: [string, string][] = [];
  const declarations: { conversion: ToolConversion; gaps: string[] }[] = [];
  for (const conversion of plan.tools) {
    if (!/^[a-z_][a-z0-9_]*$/.test(conversion.tool)) throw new CodegenError(`${newer.label}/manifest.json`, `/tools/${conversion.tool}`, 'a tool name converted between releases must be a snake_case identifier');
    declarations.push({ conversion, gaps: requestGaps(newer, older, conversion.tool, plan.walk) });
    if (conversion.responses.length === 0 && conversion.requests.length === 0) {
      modules.push([conversion.tool, relativeTo(index, IDENTITY_PATH)]);
      continue;
    }
    const contents = moduleSource(plan, conversion, relativeTo(index, SUPPORT_PATH));
    const path = `${dir}${conversion.tool}.${shortHash(sha256(contents))}.cjs`;
    out.push({ path, contents, inputs: [...schemaInputs(newer, conversion.tool), ...schemaInputs(older, conversion.tool), ...ruleInputs] });
    modules.push([conversion.tool, relativeTo(index, path)]);
  }
  const inputs: InputRef[] = [{ name: newer.label, hash: newer.hash }, { name: older.label, hash: older.hash }, ...ruleInputs];
  out.push({ path: index, contents: indexSource(plan, modules), inputs });
  out.push({ path: ARTIFACT_PATHS.convertGaps(older.key, newer.key), contents: gapsSource(plan, declarations), inputs });
  const paths = { newerTypes: relativeTo(index, `releases/${newer.key}/types.js`), olderTypes: relativeTo(index, `releases/${older.key}/types.js`), runtime: relativeTo(index, 'runtime/agent.js') };
  out.push({ path: index.replace(/\.cjs$/, '.d.cts'), contents: declarationSource(plan, declarations, paths), inputs });
  return out;
}

/** The pair's index: one getter per tool, requiring its module on the tool's first converted call. */
function indexSource(plan: ConversionPlan, modules: readonly [string, string][]): string {
  return [
    "'use strict';",
    `// Conversions between AdCP ${commentText(plan.newer.version)} (the handlers' release) and AdCP ${commentText(plan.older.version)} (the buyers'): each tool's`,
    "// module, required on the tool's first converted call. The tools no rule applies to share the identity module.",
    'Object.defineProperties(exports, {',
    ...modules.map(([tool, path]) => `  ${jsLiteral(tool)}: { enumerable: true, get: () => require(${jsLiteral(path)}) },`),
    '});',
    '',
  ].join('\n');
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

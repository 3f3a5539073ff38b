import { commentText, jsLiteral } from '../../shared/index.js';
import type { ConversionPlan, ToolConversion } from './plan.js';

/**
 * The typed declarations of a pair's conversions (`releases/<older>/convert/<newer>/index.d.cts`), one export per
 * tool: `response` takes a body of the newer release (its response or an async one) and the older buyer's request,
 * and gives what the older release's deep-strip and validation complete into its body (or why it has no form
 * there); `request` takes an older request and gives the newer one with the tool's gaps (gaps.ts) optional, as the
 * handler receives it.
 */
export function declarationSource(
  plan: ConversionPlan,
  tools: readonly { conversion: ToolConversion; gaps: readonly string[] }[],
  paths: { newerTypes: string; olderTypes: string; runtime: string },
): string {
  const lines = [
    `// Types of the conversions between AdCP ${commentText(plan.newer.version)} and AdCP ${commentText(plan.older.version)}.`,
    `import type { ToolTypes as Newer } from ${jsLiteral(paths.newerTypes)};`,
    `import type { ToolTypes as Older } from ${jsLiteral(paths.olderTypes)};`,
    `import type { Relax } from ${jsLiteral(paths.runtime)};`,
    '',
    'export interface AppliedConversion {',
    '  rule: string;',
    '  from: string;',
    '  to: string;',
    '  conflict?: boolean;',
    '  reason?: string;',
    "  origin?: 'request';",
    '}',
    '',
    "/** A tool's response and async response bodies. */",
    'type Bodies<T> = T extends { response: infer R; async: infer A } ? R | A[keyof A] : T extends { response: infer R } ? R : never;',
    '',
    '/** One tool\'s conversions; `Gaps`: the request fields the newer release requires that an older request may lack. */',
    'export interface Conversion<T extends keyof Newer & keyof Older, Gaps extends string> {',
    `  /** A body of AdCP ${commentText(plan.newer.version)} toward AdCP ${commentText(plan.older.version)}; its deep-strip and (in development) validation complete it. */`,
    "  response(data: Bodies<Newer[T]>, request: Older[T]['request']): { value: Bodies<Older[T]>; applied: AppliedConversion[]; refused?: string };",
    `  /** An AdCP ${commentText(plan.older.version)} request toward AdCP ${commentText(plan.newer.version)}, before its normalizer and deep-strip. */`,
    "  request(data: Older[T]['request']): { value: Relax<Newer[T]['request'], Gaps>; applied: AppliedConversion[] };",
    '}',
    '',
    ...tools.map(({ conversion, gaps }) => `export declare const ${conversion.tool}: Conversion<${jsLiteral(conversion.tool)}, ${gaps.length === 0 ? 'never' : gaps.map((g) => jsLiteral(g)).join(' | ')}>;`),
  ];
  return lines.join('\n') + '\n';
}

import { commentText, jsLiteral } from '../../shared/index.js';
import type { ConversionPlan, ToolConversion } from './plan.js';

/**
 * The typed declaration of one tool's conversion module (`releases/<older>/convert/<newer>/<tool>.d.cts`): the
 * response function takes a body of the newer release (its response or an async one) and the older buyer's request,
 * and gives what the older release's deep-strip and validation complete into its body; the request function takes
 * an older request and gives the newer one with `gaps` (gaps.ts) optional, as the handler receives it.
 */
export function declarationSource(plan: ConversionPlan, conversion: ToolConversion, gaps: readonly string[], paths: { newerTypes: string; olderTypes: string; runtime: string }): string {
  const tool = jsLiteral(conversion.tool);
  const lines = [
    `// Types of the ${commentText(conversion.tool)} conversions between AdCP ${commentText(plan.newer.version)} and AdCP ${commentText(plan.older.version)}.`,
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
    '/** A tool\'s response and async response bodies. */',
    'type Bodies<T> = T extends { response: infer R; async: infer A } ? R | A[keyof A] : T extends { response: infer R } ? R : never;',
    '',
    '/** Request fields the newer release requires that a request of the older one may lack. */',
    `export type Gaps = ${gaps.length === 0 ? 'never' : gaps.map((g) => jsLiteral(g)).join(' | ')};`,
    '',
    `/** A body of AdCP ${commentText(plan.newer.version)} toward AdCP ${commentText(plan.older.version)}; its deep-strip and (in development) validation complete it. */`,
    `export declare function response(data: Bodies<Newer[${tool}]>, request: Older[${tool}]['request']): { value: Bodies<Older[${tool}]>; applied: AppliedConversion[] };`,
    '',
    `/** An AdCP ${commentText(plan.older.version)} request toward AdCP ${commentText(plan.newer.version)}, before its normalizer and deep-strip. */`,
    `export declare function request(data: Older[${tool}]['request']): { value: Relax<Newer[${tool}]['request'], Gaps>; applied: AppliedConversion[] };`,
  ];
  return lines.join('\n') + '\n';
}

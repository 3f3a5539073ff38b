import { existsSync, realpathSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { ConversionReport, SkippedRule } from './compile.js';
import { CodegenError, type Logger, packageRoot } from '../shared/index.js';

/**
 * Rules that do not apply to a release (their deprecated field does not exist there) are expected for the rule
 * files adcp-codegen ships, which cover every release: one summary line per release, each rule with --verbose.
 * A team's own rule files are reported rule by rule — a rule that never applies there is worth a look.
 */
export function reportSkippedRules(skipped: readonly SkippedRule[], log: Logger): void {
  const shipped = (s: SkippedRule): boolean => isShipped(s.file);
  const byRelease = new Map<string, SkippedRule[]>();
  for (const s of skipped) {
    const line = `${s.release.includes('>') ? 'conversion' : 'normalization'} ${s.rule} not emitted for ${s.tool} (${s.release}): ${s.reason}`;
    if (!shipped(s)) {
      log.info(line);
      continue;
    }
    log.detail(line);
    byRelease.set(s.release, [...(byRelease.get(s.release) ?? []), s]);
  }
  for (const [release, list] of byRelease) {
    log.info(`${list.length} shipped ${release.includes('>') ? 'conversion' : 'normalization'} rule(s) do not apply to AdCP ${release} and were not emitted (--verbose lists them)`);
  }
}

/** A rule file inside adcp-codegen's own schemas/normalizations (through node_modules links as well). */
export function isShipped(file: string): boolean {
  const real = (p: string): string => (existsSync(p) ? realpathSync(p) : resolve(p));
  return ['normalizations', 'conversions'].some((dir) => real(file).startsWith(real(join(packageRoot, 'schemas', dir)) + sep));
}

/**
 * What compiling each pair's conversions found: rules that do not apply (as normalization rules are reported), and
 * the schema changes between the two releases that no rule converts and no waiver accounts for — a warning each
 * (an error under `strict`), every candidate and its coverage with --verbose.
 */
export function reportConversions(reports: readonly ConversionReport[], log: Logger, strict: boolean, warn: (message: string) => void): void {
  for (const r of reports) {
    reportSkippedRules(r.skipped, log);
    if (r.ruleFiles === 0) {
      log.info(`conversions ${r.pair}: no conversion rule file is written for these releases; deep-strip alone converts their answers`);
      continue;
    }
    let uncovered = 0;
    for (const { candidate: c, occurrences } of r.candidates) {
      const left = occurrences.filter((o) => o.by === undefined).map((o) => `${o.occurrence.tool} /${o.occurrence.place}`);
      const by = [...new Set(occurrences.flatMap((o) => (o.by === undefined ? [] : [o.by])))];
      if (by.length > 0) log.detail(`conversion ${r.pair}: ${c.side} ${c.kind} ${c.location}: ${by.join('; ')}`);
      if (left.length === 0) continue;
      uncovered++;
      const message = `${r.pair}: no conversion rule or waiver for the ${c.side} change at ${c.location} (${c.kind}: ${c.detail}); in ${left.slice(0, 3).join(', ')}${left.length > 3 ? ` and ${left.length - 3} more` : ''}`;
      if (strict) throw new CodegenError(c.location, '', `${message} (--strict)`);
      warn(message);
    }
    log.info(`conversions ${r.pair}: ${r.candidates.length} schema change(s) between the releases, ${r.candidates.length - uncovered} covered by a rule or waived${uncovered > 0 ? `, ${uncovered} not (above)` : ''} (--verbose lists them)`);
  }
}

import { existsSync, realpathSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { SkippedRule } from './compile.js';
import { type Logger, packageRoot } from '../shared/index.js';

/**
 * Rules that do not apply to a release (their deprecated field does not exist there) are expected for the rule
 * files adcp-codegen ships, which cover every release: one summary line per release, each rule with --verbose.
 * A team's own rule files are reported rule by rule — a rule that never applies there is worth a look.
 */
export function reportSkippedRules(skipped: readonly SkippedRule[], log: Logger): void {
  const shipped = (s: SkippedRule): boolean => isShipped(s.file);
  const byRelease = new Map<string, SkippedRule[]>();
  for (const s of skipped) {
    const line = `normalization ${s.rule} not emitted for ${s.tool} (${s.release}): ${s.reason}`;
    if (!shipped(s)) {
      log.info(line);
      continue;
    }
    log.detail(line);
    byRelease.set(s.release, [...(byRelease.get(s.release) ?? []), s]);
  }
  for (const [release, list] of byRelease) {
    log.info(`${list.length} shipped normalization rule(s) do not apply to AdCP ${release} and were not emitted (--verbose lists them)`);
  }
}

/** A rule file inside adcp-codegen's own schemas/normalizations (through node_modules links as well). */
export function isShipped(file: string): boolean {
  const real = (p: string): string => (existsSync(p) ? realpathSync(p) : resolve(p));
  return real(file).startsWith(real(join(packageRoot, 'schemas', 'normalizations')) + sep);
}

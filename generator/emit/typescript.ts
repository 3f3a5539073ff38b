import { createRequire } from 'node:module';
import type { ts as TS } from 'ts-morph';

/**
 * TypeScript (ts-morph's copy), loaded when the runtime is bundled, not when a module of emit is imported: emit
 * imports the bundle's names for the runtime's file names, and a generation that finds the prebundled runtime
 * (prebundle.ts) never transpiles, so it never pays TypeScript's load (~0.4 s of a cold run).
 */
let loaded: typeof TS | undefined;
export function typescript(): typeof TS {
  return (loaded ??= (createRequire(import.meta.url)('ts-morph') as { ts: typeof TS }).ts);
}

import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from './hash.js';

/**
 * The generator's build cache, node_modules/.cache/adcp-codegen/<area>/ under the working directory: entries
 * keyed by the hash of everything they were made from, each stored as its own content hash followed by the
 * content, so a torn or edited entry is never trusted. Losing it only costs time. ADCP_CODEGEN_NO_CACHE=1 turns it
 * off (the benches' cold runs).
 */
export function cacheDir(area: string): string | undefined {
  return process.env.ADCP_CODEGEN_NO_CACHE ? undefined : join(process.cwd(), 'node_modules', '.cache', 'adcp-codegen', area);
}

export function readCache(dir: string, key: string): string | undefined {
  try {
    const text = readFileSync(join(dir, key.slice(0, 2), key), 'utf8');
    const nl = text.indexOf('\n');
    return nl === 64 && sha256(text.slice(65)) === text.slice(0, 64) ? text.slice(65) : undefined;
  } catch {
    return undefined;
  }
}

export function writeCache(dir: string, key: string, contents: string): void {
  try {
    const sub = join(dir, key.slice(0, 2));
    mkdirSync(sub, { recursive: true });
    const tmp = join(sub, `${key}.${process.pid}.tmp`);
    writeFileSync(tmp, `${sha256(contents)}\n${contents}`);
    renameSync(tmp, join(sub, key));
  } catch {
    // A read-only or full disk only costs speed.
  }
}

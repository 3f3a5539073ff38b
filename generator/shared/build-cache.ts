import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import { sha256 } from './hash.js';

/**
 * The generator's build cache, node_modules/.cache/adcp-codegen/<area>/ under the working directory: entries
 * keyed by the hash of everything they were made from, each stored as its own content hash followed by the
 * content, so a torn or edited entry is never trusted. Losing it only costs time. ADCP_CODEGEN_NO_CACHE=1 turns it
 * off (the benches' cold runs).
 *
 * Some entries are code the generator runs (the capabilities validator) or copies into the output (formatted
 * text), so an entry is read only when it, and the directories it sits in, belong to this user alone — the rule
 * the runtime's code cache follows (docs/validators.md). A content hash proves integrity, not authorship: whoever
 * can write the directory can write a matching hash.
 */
export function cacheDir(area: string): string | undefined {
  return process.env.ADCP_CODEGEN_NO_CACHE ? undefined : join(process.cwd(), 'node_modules', '.cache', 'adcp-codegen', area);
}

export function readCache(dir: string, key: string): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const sub = join(dir, key.slice(0, 2));
  let fd: number | undefined;
  try {
    for (const d of [dirname(dir), dir, sub]) if (!privateTo(lstatSync(d), uid, true)) return undefined;
    fd = openSync(join(sub, key), constants.O_RDONLY | constants.O_NOFOLLOW);
    if (!privateTo(fstatSync(fd), uid, false)) return undefined;
    const text = readFileSync(fd, 'utf8');
    const nl = text.indexOf('\n');
    return nl === 64 && sha256(text.slice(65)) === text.slice(0, 64) ? text.slice(65) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function writeCache(dir: string, key: string, contents: string): void {
  try {
    const sub = join(dir, key.slice(0, 2));
    mkdirSync(sub, { recursive: true, mode: 0o700 });
    const tmp = join(sub, `${key}.${process.pid}.tmp`);
    writeFileSync(tmp, `${sha256(contents)}\n${contents}`, { mode: 0o600 });
    renameSync(tmp, join(sub, key));
  } catch {
    // A read-only or full disk only costs speed.
  }
}

/** A real directory or file (never a link) owned by `uid` that no one else can write. */
function privateTo(st: Stats, uid: number, directory: boolean): boolean {
  return (directory ? st.isDirectory() : st.isFile()) && st.uid === uid && (st.mode & 0o022) === 0;
}

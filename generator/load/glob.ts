import { isAbsolute, join, relative, resolve } from 'node:path';
import { CodegenError } from '../shared/index.js';
import { directoryIdentity, listDirectory, MAX_WALKED_DIRECTORIES } from './input-tree.js';

/**
 * Expands a file pattern relative to `base`: `*` and `?` within one path segment, `**` across segments.
 * A pattern without wildcards is returned as is (even if missing, so the caller reports the missing file).
 * Results are sorted so generation never depends on directory order.
 *
 * Every match that is not a directory is returned, whatever it is (a dangling link, a pipe): it is input the
 * pattern names, and reading it (input-file.ts) says what is wrong with it. `**` follows links to directories but
 * never round a loop, and skips node_modules and dot directories.
 */
export function expandGlob(pattern: string, base: string): string[] {
  const absolute = isAbsolute(pattern) ? pattern : resolve(base, pattern);
  if (!/[*?]/.test(pattern)) return [absolute];
  const segments = absolute.split(/[\\/]/);
  const firstWild = segments.findIndex((s) => /[*?]/.test(s));
  const root = segments.slice(0, firstWild).join('/') || '/';
  const rest = segments.slice(firstWild);
  const out: string[] = [];
  let walked = 0;
  const walk = (dir: string, parts: string[], ancestors: ReadonlySet<string>): void => {
    if (parts.length === 0) return;
    const id = directoryIdentity(dir);
    if (id === undefined || ancestors.has(id)) return; // not a directory, or a loop: never walked round
    if (++walked > MAX_WALKED_DIRECTORIES) throw new CodegenError(pattern, '', `walks more than ${MAX_WALKED_DIRECTORIES} directories; narrow the pattern`);
    const inside = new Set(ancestors).add(id);
    const [head, ...tail] = parts as [string, ...string[]];
    const names = listDirectory(dir, relative(base, dir) || '.').map((e) => e.name);
    if (head === '**') {
      walk(dir, tail, ancestors);
      for (const name of names) {
        if (name !== 'node_modules' && !name.startsWith('.')) walk(join(dir, name), parts, inside);
      }
      return;
    }
    const re = segmentRegExp(head);
    for (const name of names) {
      if (!re.test(name)) continue;
      const full = join(dir, name);
      if (tail.length === 0) {
        if (directoryIdentity(full) === undefined) out.push(full);
      } else walk(full, tail, inside);
    }
  };
  walk(root, rest, new Set());
  return [...new Set(out)].sort((a, b) => (relative(base, a) < relative(base, b) ? -1 : 1));
}

/**
 * Whether expanding `pattern` could enter the directory `dir` and match a file inside it (`profiles/**\/*.json`
 * enters `profiles/generated`; `profiles/*.json` does not): the output directory must not be such a place.
 */
export function globCanEnter(pattern: string, base: string, dir: string): boolean {
  if (!/[*?]/.test(pattern)) return false;
  const p = (isAbsolute(pattern) ? pattern : resolve(base, pattern)).split(/[\\/]/).filter((s, i) => s !== '' || i === 0);
  const d = resolve(dir).split(/[\\/]/).filter((s, i) => s !== '' || i === 0);
  const reach = (pi: number, di: number): boolean => {
    if (di === d.length) return pi < p.length;
    if (pi === p.length) return false;
    const seg = p[pi]!;
    if (seg === '**') return reach(pi + 1, di) || (d[di] !== 'node_modules' && !d[di]!.startsWith('.') && reach(pi, di + 1));
    return segmentRegExp(seg).test(d[di]!) && reach(pi + 1, di + 1);
  };
  return reach(0, 0);
}

function segmentRegExp(segment: string): RegExp {
  const body = segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

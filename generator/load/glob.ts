import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';

/**
 * Expands a file pattern relative to `base`: `*` and `?` within one path segment, `**` across segments.
 * A pattern without wildcards is returned as is (even if missing, so the caller reports the missing file).
 * Results are sorted so generation never depends on directory order.
 */
export function expandGlob(pattern: string, base: string): string[] {
  const absolute = isAbsolute(pattern) ? pattern : resolve(base, pattern);
  if (!/[*?]/.test(pattern)) return [absolute];
  const segments = absolute.split(/[\\/]/);
  const firstWild = segments.findIndex((s) => /[*?]/.test(s));
  const root = segments.slice(0, firstWild).join('/') || '/';
  const rest = segments.slice(firstWild);
  const out: string[] = [];
  const walk = (dir: string, parts: string[]): void => {
    if (parts.length === 0) return;
    const [head, ...tail] = parts as [string, ...string[]];
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return;
    if (head === '**') {
      walk(dir, tail);
      for (const name of readdirSync(dir)) {
        const full = join(dir, name);
        if (statSync(full).isDirectory() && name !== 'node_modules' && !name.startsWith('.')) walk(full, parts);
      }
      return;
    }
    const re = segmentRegExp(head);
    for (const name of readdirSync(dir)) {
      if (!re.test(name)) continue;
      const full = join(dir, name);
      if (tail.length === 0) {
        if (statSync(full).isFile()) out.push(full);
      } else walk(full, tail);
    }
  };
  walk(root, rest);
  return [...new Set(out)].sort((a, b) => (relative(base, a) < relative(base, b) ? -1 : 1));
}

function segmentRegExp(segment: string): RegExp {
  const body = segment.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]');
  return new RegExp(`^${body}$`);
}

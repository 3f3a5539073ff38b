import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, parse, relative, resolve, sep } from 'node:path';
import { CodegenError, readManifest } from '../shared/index.js';
import { globCanEnter } from './glob.js';
import { displayPath } from './release.js';

export interface OutLocationContext {
  /** The config file's directory, when there is a config file. */
  readonly configDir?: string;
  readonly cwd: string;
  /** Every input file or directory: the config, releases, profiles, rule and overlay files. */
  readonly inputs: readonly string[];
  /** The release directories, with how messages name them. */
  readonly releases?: readonly { readonly dir: string; readonly display: string }[];
  /** The file patterns of the config or command line, each with the directory it is relative to. */
  readonly patterns?: readonly { readonly pattern: string; readonly base: string }[];
  /** Where `out` was given, for the message: the config file and `/out`, or `<command line>`. */
  readonly file: string;
  readonly pointer: string;
}

/**
 * Directories the generated set must never be written into, whatever flag is passed: the config file's directory,
 * a project or repository root (the nearest directory holding `package.json` or `.git` above the config and the
 * working directory), the home directory, the filesystem root, any directory holding an input, and any place
 * inside an input: a release directory (its files would be read back as the release, which then changes with
 * every run), an input file's path, or a directory a configured pattern searches for input files. Mixing a
 * generated set into one of those would put generated files next to, or over, the sources they come from.
 */
export function checkOutLocation(out: string, ctx: OutLocationContext): void {
  const target = canonical(out);
  const refuse = (why: string): never => {
    throw new CodegenError(ctx.file, ctx.pointer, `refusing to generate into ${displayPath(out, ctx.cwd)}: it is ${why}; choose a directory of its own, such as "generated"`);
  };
  if (target === parse(target).root) refuse('the filesystem root');
  if (target === canonical(homedir())) refuse('the home directory');
  if (ctx.configDir !== undefined && target === canonical(ctx.configDir)) refuse('the directory of the config file');
  for (const start of new Set([ctx.configDir ?? ctx.cwd, ctx.cwd])) {
    const project = nearestHolding(start, 'package.json');
    if (project !== undefined && target === project) refuse('the project root (it holds package.json)');
    const repo = nearestHolding(start, '.git');
    if (repo !== undefined && target === repo) refuse('the repository root (it holds .git)');
  }
  const inside = (child: string, parent: string): boolean => child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
  for (const release of ctx.releases ?? []) {
    if (inside(target, canonical(release.dir))) refuse(`inside the release directory ${release.display}, whose files are read as the release`);
  }
  for (const input of ctx.inputs) {
    const c = canonical(input);
    if (c === target || inside(c, target)) refuse(`a parent of the input ${displayPath(input, ctx.cwd)}`);
    if (inside(target, c)) refuse(`inside the input ${displayPath(input, ctx.cwd)}`);
  }
  for (const { pattern, base } of ctx.patterns ?? []) {
    // As written and as resolved: the pattern walks the paths it names, links and all.
    if (globCanEnter(pattern, base, resolve(out)) || globCanEnter(pattern, base, target)) {
      refuse(`where the pattern ${JSON.stringify(pattern)} looks for input files (generated files would be read back as input)`);
    }
  }
}

/** The nearest directory at or above `start` holding `name`; a generated set's own package.json does not count. */
function nearestHolding(start: string, name: string): string | undefined {
  for (let dir = canonical(start); ; dir = dirname(dir)) {
    if (existsSync(resolve(dir, name)) && !(name === 'package.json' && readManifest(dir) !== undefined)) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The real path of `p`, resolving symbolic links in the part that exists (out may not exist yet). */
function canonical(p: string): string {
  const abs = resolve(p);
  let existing = abs;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    return resolve(realpathSync(existing), relative(existing, abs));
  } catch {
    return abs;
  }
}

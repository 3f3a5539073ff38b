import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { checkFormat } from './check-format.js';
import { CodegenError, packageRoot, UsageError } from '../shared/index.js';
import { expandGlob } from './glob.js';
import { entryExists, listDirectory } from './input-tree.js';
import { displayPath } from './release.js';
import type { Config } from './model.js';
import { checkOutLocation } from './out-location.js';
import { readJson } from './read-json.js';

export const DEFAULT_CONFIG_FILE = 'adcp-codegen.config.json';
/** The config word that names the release embedded in the installed @adcp/sdk package. */
export const SDK_RELEASE = '@adcp/sdk';

/** What the command line (or a programmatic caller) says; each given field replaces the config's. */
export interface ConfigOverrides {
  readonly config?: string;
  readonly releases?: readonly string[];
  readonly profiles?: readonly string[];
  readonly out?: string;
  readonly strict?: boolean;
  readonly cwd?: string;
}

/** A config with every path made absolute and every glob expanded. */
export interface ResolvedConfig extends Config {
  /** Absolute release directories with how each is named in messages. */
  readonly releaseDirs: readonly { dir: string; display: string }[];
  readonly baseDir: string;
}

export function loadConfig(overrides: ConfigOverrides = {}): ResolvedConfig {
  const cwd = overrides.cwd ?? process.cwd();
  const configPath = overrides.config !== undefined ? resolve(cwd, overrides.config) : resolve(cwd, DEFAULT_CONFIG_FILE);
  const configGiven = overrides.config !== undefined;
  let raw: Record<string, unknown> = {};
  let file: string | undefined;
  // A dangling link or a pipe at the config's path is that file, named by the reader, not "no config here".
  if (entryExists(configPath)) {
    file = displayPath(configPath, cwd);
    const parsed = readJson(configPath, file);
    checkFormat('config.schema.json', parsed, file);
    raw = parsed as Record<string, unknown>;
  } else if (configGiven) {
    throw new CodegenError(displayPath(configPath, cwd), '', 'config file not found');
  } else if (overrides.profiles === undefined) {
    throw new UsageError(`no ${DEFAULT_CONFIG_FILE} here and no --profile given`);
  }
  const baseDir = file !== undefined ? dirname(configPath) : cwd;
  const list = (key: string): string[] => (Array.isArray(raw[key]) ? (raw[key] as string[]) : []);
  // Flags are relative to the working directory; config values to the config file.
  const releases = overrides.releases ?? list('releases');
  const releaseBase = overrides.releases !== undefined ? cwd : baseDir;
  const profilePatterns = overrides.profiles ?? list('profiles');
  const profileBase = overrides.profiles !== undefined ? cwd : baseDir;

  const releaseDirs = (releases.length > 0 ? releases : [SDK_RELEASE]).flatMap((r, i) =>
    resolveRelease(r, releaseBase, cwd, file ?? '<command line>', `/releases/${i}`),
  );
  const profiles = expandAll(profilePatterns, profileBase, file, 'profiles', overrides.profiles !== undefined);
  const normalizations = expandAll(list('normalizations'), baseDir, file, 'normalizations', false);
  // Conversions are the protocol's own changes between releases, not a team's choice: the shipped rules apply unless
  // the config names its own (an empty list turns them off).
  const conversions = Array.isArray(raw.conversions) ? expandAll(list('conversions'), baseDir, file, 'conversions', false) : shippedConversions();
  const overlays = expandAll(list('overlays'), baseDir, file, 'overlays', false);
  const out = resolve(overrides.out !== undefined ? cwd : baseDir, overrides.out ?? (typeof raw.out === 'string' ? raw.out : 'generated'));
  const outFromConfig = overrides.out === undefined && typeof raw.out === 'string' && file !== undefined;
  checkOutLocation(out, {
    configDir: file !== undefined ? baseDir : undefined,
    cwd,
    inputs: [configPath, ...releaseDirs.map((r) => r.dir), ...profiles, ...normalizations, ...conversions, ...overlays].filter((p) => p !== configPath || file !== undefined),
    releases: releaseDirs,
    patterns: [
      ...profilePatterns.map((pattern) => ({ pattern, base: profileBase })),
      ...list('normalizations').map((pattern) => ({ pattern, base: baseDir })),
      ...list('conversions').map((pattern) => ({ pattern, base: baseDir })),
      ...list('overlays').map((pattern) => ({ pattern, base: baseDir })),
    ],
    file: overrides.out !== undefined ? '<command line>' : (file ?? '<command line>'),
    pointer: outFromConfig ? '/out' : '',
  });

  return {
    file,
    baseDir,
    releases: releaseDirs.map((r) => r.dir),
    releaseDirs,
    profiles,
    normalizations,
    conversions,
    overlays,
    acceptedRecords: list('accepted_records'),
    out,
    strict: overrides.strict ?? raw.strict === true,
  };
}

/** The conversion rule files adcp-codegen ships (schemas/conversions/*.json), in name order. */
export function shippedConversions(): string[] {
  const dir = join(packageRoot, 'schemas', 'conversions');
  return entryExists(dir) ? listDirectory(dir, dir).filter((e) => e.name.endsWith('.json')).map((e) => join(dir, e.name)) : [];
}

function expandAll(patterns: readonly string[], base: string, file: string | undefined, key: string, fromFlags: boolean): string[] {
  const out: string[] = [];
  patterns.forEach((pattern, i) => {
    const found = expandGlob(pattern, base);
    if (found.length === 0) {
      throw new CodegenError(fromFlags || file === undefined ? '<command line>' : file, fromFlags ? '' : `/${key}/${i}`, `${JSON.stringify(pattern)} matches no file`);
    }
    out.push(...found);
  });
  return [...new Set(out)];
}

/** `@adcp/sdk` → every release directory (one with a manifest.json) the installed package embeds. */
function resolveRelease(entry: string, base: string, cwd: string, file: string, pointer: string): { dir: string; display: string }[] {
  if (entry !== SDK_RELEASE) {
    const dir = resolve(base, entry);
    return [{ dir, display: displayPath(dir, cwd) }];
  }
  let pkg: string;
  try {
    pkg = createRequire(join(base, 'package.json')).resolve('@adcp/sdk/package.json');
  } catch {
    throw new CodegenError(file, pointer, '"@adcp/sdk" is not installed here (npm install --save-dev @adcp/sdk)');
  }
  const dataDir = join(dirname(pkg), 'dist/lib/schemas-data');
  const found = entryExists(dataDir)
    ? listDirectory(dataDir, displayPath(dataDir, cwd))
        .map((d) => d.name)
        .filter((d) => entryExists(join(dataDir, d, 'manifest.json')))
    : [];
  if (found.length === 0) throw new CodegenError(file, pointer, `the installed @adcp/sdk embeds no release with a manifest under ${displayPath(dataDir, cwd)}`);
  const version = (readJson(pkg) as Record<string, unknown>).version;
  return found.map((d) => ({ dir: join(dataDir, d), display: `@adcp/sdk${typeof version === 'string' ? `@${version}` : ''}/${d}` }));
}

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './fixture-release.js';
import { repoRoot } from './releases.js';

/**
 * adcp-codegen as the README installs it before a release exists: `npm pack` of this repository (the test build has
 * just compiled dist/, so the pack skips `prepack`'s own build: the same files, without a second compile under the
 * running suite), and that tarball laid out in an agent repository's node_modules as npm lays it out — the package
 * under node_modules/adcp-codegen and its bin in node_modules/.bin — with its dependencies (and the agent's) linked
 * from this repository's node_modules, since a test has no registry to fetch them from.
 */
export interface Packed {
  /** The tarball npm pack wrote. */
  readonly tarball: string;
  /** `adcp-codegen-0.1.0.tgz`. */
  readonly filename: string;
  /** What the tarball holds, package-relative (`dist/generator/index.js`). */
  readonly files: readonly string[];
}

export function packRepository(dryRun = false): Packed {
  const destination = tempDir('adcp-codegen-pack-');
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination, ...(dryRun ? ['--dry-run'] : [])], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    // npm's CLI turns on Node's module compile cache (lib/cli.js), which on Node ≥ 22 writes node-compile-cache into
    // the temp dir the suite keeps clean.
    env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: '1' },
  });
  const [entry] = JSON.parse(out) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(destination, entry!.filename), filename: entry!.filename, files: entry!.files.map((f) => f.path) };
}

/** Installs the tarball into `agentDir/node_modules` as npm would, and links every other dependency. */
export function installPacked(tarball: string, agentDir: string): void {
  const modules = join(agentDir, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  const unpacked = tempDir('adcp-codegen-unpack-');
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
  renameSync(join(unpacked, 'package'), join(modules, 'adcp-codegen'));
  symlinkSync('../adcp-codegen/bin/adcp-codegen.js', join(modules, '.bin', 'adcp-codegen'));
  for (const name of readdirSync(join(repoRoot, 'node_modules'))) {
    if (name === '.bin' || name === 'adcp-codegen' || name.startsWith('.')) continue;
    symlinkSync(join(repoRoot, 'node_modules', name), join(modules, name));
  }
  for (const bin of readdirSync(join(repoRoot, 'node_modules', '.bin'))) {
    if (bin !== 'adcp-codegen') symlinkSync(join(repoRoot, 'node_modules', '.bin', bin), join(modules, '.bin', bin));
  }
}

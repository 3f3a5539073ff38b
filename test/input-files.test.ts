import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_INPUT_FILE_ENV } from '../generator/shared/index.js';
import { runCli, snapshot } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { repoRoot } from './helpers/releases.js';

/**
 * Bad generator input, planted the way it was found: a FIFO in a release directory (the generator hung), a link to
 * /dev/zero (it grew to 12 GB), a link loop, a dangling link and an unreadable file (raw ELOOP/EACCES stacks). Each
 * is now exit 1 with the file named and no stack trace, wherever the file is an input: a release's schema or
 * manifest, a profile, a glob's match, the config, a rule or overlay file. The runs that would hang or exhaust
 * memory if the guard failed run as a child process with a timeout, so a regression fails the test instead of
 * hanging the suite; the others run in-process.
 */

const caps = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };
const profile = { name: 'seller', tools: ['get_adcp_capabilities', 'get_things'], capabilities: caps };
const bin = join(repoRoot, 'bin/adcp-codegen.js');

/** A project directory with a release copy, a profile and an empty config-free cwd. */
function project(): { dir: string; release: string } {
  const dir = tempDir('adcp-input-');
  const release = join(dir, 'release');
  // The release lives inside the project, so the messages name it by a short relative path.
  cpSync(tinyRelease(), release, { recursive: true });
  writeTree({ 'profiles/seller.json': profile }, dir);
  return { dir, release };
}

type Plant = (path: string) => void;
/** Each bad file kind; `guarded` kinds would hang or exhaust memory if the guard failed, so they run in a child. */
const plants: Record<string, { plant: Plant; says: RegExp; guarded: boolean }> = {
  fifo: { plant: (p) => mkfifo(p), says: /is a named pipe \(FIFO\), not a regular file/, guarded: true },
  'link to /dev/zero': { plant: (p) => symlinkSync('/dev/zero', p), says: /is a character device \(through the symbolic link to "\/dev\/zero"\), not a regular file/, guarded: true },
  'link loop': { plant: (p) => (symlinkSync(`${p}.other`, p), symlinkSync(p, `${p}.other`)), says: /is a symbolic link loop/, guarded: false },
  'dangling link': { plant: (p) => symlinkSync('gone.json', p), says: /is a dangling symbolic link \(to "gone\.json", which does not exist\)/, guarded: false },
};

/** Removes what a plant put at `path` (a loop's second link too). */
function unplant(path: string): void {
  for (const p of [path, `${path}.other`]) if (lstatSync(p, { throwIfNoEntry: false }) !== undefined) unlinkSync(p);
}

function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  assert.is(r.status, 0, `mkfifo: ${String(r.stderr)}`);
}

/** The CLI as a child process: a guard that failed would block on the FIFO or read /dev/zero, not return. */
function child(args: string[], cwd: string, options: { uid?: number; gid?: number } = {}): { code: number | null; stderr: string; signal: NodeJS.Signals | null } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ADCP_CODEGEN_HEAP_MB: '0' }, ...options });
  return { code: r.status, stderr: r.stderr, signal: r.signal };
}

function assertNamed(run: { code: number | null; stderr: string }, file: string, says: RegExp): void {
  assert.is(run.code, 1, run.stderr);
  assert.ok(run.stderr.includes(`error ${file}: `), `names ${file}:\n${run.stderr}`);
  assert.match(run.stderr, says);
  assert.not.match(run.stderr, /\n\s+at |ELOOP:|EACCES:|ENOENT:/, 'no stack trace, no raw errno text');
}

for (const [kind, { plant, says, guarded }] of Object.entries(plants)) {
  test(`${kind}: in a release directory, as a profile, as a glob match, as the config, as a rule and overlay file`, async () => {
    const { dir, release } = project();
    const run = (args: string[], cwd: string) => (guarded ? Promise.resolve(child(args, cwd)) : runCli(args, cwd));
    const gen = ['generate', '--release', 'release', '--profile', 'profiles/seller.json', '--out', 'out'];

    plant(join(release, 'core/planted.json'));
    assertNamed(await run(gen, dir), 'release/core/planted.json', says);
    unplant(join(release, 'core/planted.json'));

    // The manifest itself.
    const manifest = readFileSync(join(release, 'manifest.json'));
    unlinkSync(join(release, 'manifest.json'));
    plant(join(release, 'manifest.json'));
    assertNamed(await run(gen, dir), 'release/manifest.json', says);
    unplant(join(release, 'manifest.json'));
    writeFileSync(join(release, 'manifest.json'), manifest);

    plant(join(dir, 'profiles/planted.json'));
    assertNamed(await run(['generate', '--release', 'release', '--profile', 'profiles/planted.json', '--out', 'out'], dir), 'profiles/planted.json', says);
    // A glob names every match that is not a directory: what is wrong with it is said, not skipped silently.
    assertNamed(await run(['generate', '--release', 'release', '--profile', 'profiles/*.json', '--out', 'out'], dir), 'profiles/planted.json', says);

    plant(join(dir, 'adcp-codegen.config.json'));
    assertNamed(await run(['generate'], dir), 'adcp-codegen.config.json', says);

    const cfg = join(dir, 'cfg');
    for (const key of ['normalizations', 'overlays']) {
      writeTree({ 'adcp-codegen.config.json': { releases: ['../release'], profiles: ['../profiles/seller.json'], [key]: ['planted.json'], out: 'out' } }, cfg);
      plant(join(cfg, 'planted.json'));
      assertNamed(await run(['generate'], cfg), 'planted.json', says);
      unplant(join(cfg, 'planted.json'));
    }
    assert.not.ok(existsSync(join(dir, 'out')) || existsSync(join(cfg, 'out', 'manifest.json')), 'nothing generated');
  });
}

test('the @adcp/sdk embedded release is read the same way: a FIFO in it is named, with the package version', () => {
  const { dir } = project();
  // A stand-in for the installed package, resolved from the project as `--release @adcp/sdk` resolves it.
  const pkg = join(dir, 'node_modules/@adcp/sdk');
  writeTree({ 'package.json': { name: '@adcp/sdk', version: '0.0.0-test' } }, pkg);
  cpSync(tinyRelease(), join(pkg, 'dist/lib/schemas-data/9.1'), { recursive: true });
  mkfifo(join(pkg, 'dist/lib/schemas-data/9.1/core/pipe.json'));
  const run = child(['generate', '--release', '@adcp/sdk', '--profile', 'profiles/seller.json', '--out', 'out'], dir);
  assertNamed(run, '@adcp/sdk@0.0.0-test/9.1/core/pipe.json', /is a named pipe \(FIFO\), not a regular file/);
});

test('an unreadable file (chmod 000): named, no EACCES stack — as root, checked in a child running as nobody', () => {
  const { dir, release } = project();
  const file = join(release, 'core/thing.json');
  chmodSync(file, 0o000);
  const gen = ['generate', '--release', 'release', '--profile', 'profiles/seller.json', '--out', 'out'];
  const says = /release\/core\/thing\.json: cannot be read: permission denied/;
  if (process.getuid?.() !== 0) {
    assertNamed(child(gen, dir), 'release/core/thing.json', says);
    return;
  }
  // Root reads through mode 000 (CAP_DAC_OVERRIDE): the same run as an unprivileged user meets the real EACCES.
  // That user must be able to reach the fixture: the run's scratch directory is made traversable for the check.
  const scratch = dirname(dir);
  const before = statSync(scratch).mode & 0o777;
  chmodSync(scratch, 0o711);
  try {
    spawnSync('chmod', ['-R', 'a+rX', dir]);
    chmodSync(file, 0o000);
    const probe = spawnSync('cat', [file], { uid: 65534, gid: 65534 });
    if (probe.error !== undefined) {
      console.log(`  skipped: running as root and cannot switch to uid 65534 here (${probe.error.message}), so no user meets EACCES`);
      return;
    }
    assert.is.not(probe.status, 0, 'the unprivileged user cannot read the file');
    assertNamed(child(gen, dir, { uid: 65534, gid: 65534 }), 'release/core/thing.json', says);
  } finally {
    chmodSync(scratch, before);
  }
});

test("the previous set's manifest.json or a generated file as a FIFO or a link to /dev/zero: never read (--check reports it)", async () => {
  const { dir } = project();
  const gen = ['generate', '--release', 'release', '--profile', 'profiles/seller.json', '--out', 'out'];
  const first = await runCli(gen, dir);
  assert.is(first.code, 0, first.stderr);
  const manifest = join(dir, 'out/manifest.json');
  // The manifest, and a generated file (git commits a link as readily as a file: `index.js -> /dev/zero`).
  const planted: [string, Plant][] = [
    [manifest, (p) => mkfifo(p)],
    [manifest, (p) => symlinkSync('/dev/zero', p)],
    [join(dir, 'out/index.js'), (p) => mkfifo(p)],
    [join(dir, 'out/index.js'), (p) => symlinkSync('/dev/zero', p)],
  ];
  const original = new Map([manifest, join(dir, 'out/index.js')].map((p) => [p, readFileSync(p)]));
  for (const [at, plant] of planted) {
    for (const [p, bytes] of original) {
      unplant(p);
      writeFileSync(p, bytes);
    }
    unplant(at);
    plant(at);
    // Run with its peak memory reported: reading /dev/zero would grow the process to its 2 GB read limit.
    const script = `const { main } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist/generator/cli.js')).href)});
process.exitCode = await main(${JSON.stringify([...gen, '--check'])});
process.stderr.write('maxRSS ' + process.resourceUsage().maxRSS + '\\n');`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ADCP_CODEGEN_HEAP_MB: '0' } });
    assert.is(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`out of step with its inputs[^]*${at.endsWith('index.js') ? 'index\\.js' : 'manifest\\.json'}`));
    const rss = Number(/maxRSS (\d+)/.exec(r.stderr)![1]) * 1024;
    assert.ok(rss < 512 * 1024 * 1024, `peak RSS ${rss}`);
    // Without a manifest the directory is no set of the generator's, and is refused; with one, the planted file is
    // not an intact generated file, and the regeneration replaces it.
    const write = child(gen, dir);
    if (at === manifest) {
      assert.is(write.code, 1, write.stderr);
      assert.match(write.stderr, /refusing to write into a directory adcp-codegen does not own/);
    } else {
      assert.is(write.code, 0, write.stderr);
      assert.ok(lstatSync(at).isFile());
    }
  }
});

test('a directory link loop in a release is named; a glob walks around loops and still finds its files', async () => {
  const { dir, release } = project();
  symlinkSync('..', join(release, 'core/up'));
  const run = await runCli(['generate', '--release', 'release', '--profile', 'profiles/seller.json', '--out', 'out'], dir);
  assert.is(run.code, 1);
  assert.match(run.stderr, /release\/core\/up: is a symbolic link loop: it leads back to release, which contains it/);
  unlinkSync(join(release, 'core/up'));
  // A loop under a searched directory is not an input: `**` does not go round it, and the profile is found.
  mkdirSync(join(dir, 'profiles/nested'));
  symlinkSync('..', join(dir, 'profiles/nested/loop'));
  const ok = await runCli(['generate', '--release', 'release', '--profile', 'profiles/**/*.json', '--out', 'out'], dir);
  assert.is(ok.code, 0, ok.stderr);
});

test('a file over the input size cap is named with the cap (the variable raises it)', async () => {
  const { dir, release } = project();
  const big = { $id: '/schemas/9.1.0/core/big.json', type: 'object', description: 'x'.repeat(1_500_000) };
  writeFileSync(join(release, 'core/big.json'), JSON.stringify(big));
  const gen = ['generate', '--release', 'release', '--profile', 'profiles/seller.json', '--out', 'out'];
  const previous = process.env[MAX_INPUT_FILE_ENV];
  process.env[MAX_INPUT_FILE_ENV] = '1';
  try {
    const run = await runCli(gen, dir);
    assert.is(run.code, 1);
    assert.match(run.stderr, /error release\/core\/big\.json: is larger than 1 MiB, the cap on one input file \(ADCP_CODEGEN_MAX_INPUT_MB raises it\)/);
    process.env[MAX_INPUT_FILE_ENV] = '2';
    const ok = await runCli(gen, dir);
    assert.is(ok.code, 0, ok.stderr);
  } finally {
    if (previous === undefined) delete process.env[MAX_INPUT_FILE_ENV];
    else process.env[MAX_INPUT_FILE_ENV] = previous;
  }
});

test('--out inside a release directory, inside an input file, or where a pattern looks for input is refused, nothing written', async () => {
  const { dir, release } = project();
  const before = snapshot(dir);
  const refused = async (args: string[], why: RegExp): Promise<void> => {
    const run = await runCli(['generate', ...args], dir);
    assert.is(run.code, 1, run.stderr);
    assert.match(run.stderr, why);
    assert.equal(snapshot(dir), before, `${args.join(' ')}: nothing written`);
  };
  const inputs = ['--release', 'release', '--profile', 'profiles/seller.json'];
  // Before: accepted, and every run after it changed the release it read (its own output), never settling.
  await refused([...inputs, '--out', 'release/generated'], /refusing to generate into release\/generated: it is inside the release directory release, whose files are read as the release/);
  await refused([...inputs, '--out', 'release/core/deep/generated'], /inside the release directory release/);
  await refused([...inputs, '--out', 'profiles/seller.json/generated'], /refusing to generate into profiles\/seller\.json\/generated: it is inside the input profiles\/seller\.json/);
  await refused(['--release', 'release', '--profile', 'profiles/**/*.json', '--out', 'profiles/generated'], /it is where the pattern "profiles\/\*\*\/\*\.json" looks for input files/);
  // The embedded release is a release directory too.
  const sdk = await runCli(['generate', '--release', '@adcp/sdk', '--profile', join(dir, 'profiles/seller.json'), '--out', 'node_modules/@adcp/sdk/dist/lib/schemas-data/3.0/gen'], repoRoot);
  assert.is(sdk.code, 1);
  assert.match(sdk.stderr, /inside the release directory @adcp\/sdk@[^/]+\/3\.0/);
  // A pattern that does not descend into out's directory is fine: profiles/*.json never reads profiles/generated/.
  const ok = await runCli(['generate', '--release', 'release', '--profile', 'profiles/*.json', '--out', 'profiles/generated'], dir);
  assert.is(ok.code, 0, ok.stderr);
  void release;
});

test.run();

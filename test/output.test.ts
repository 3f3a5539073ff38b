import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JOURNAL, WORK_DIR } from '../generator/load/index.js';
import { lockOutput, commitPending } from '../generator/write/index.js';
import { createAgent } from '../runtime/agent.js';
import { runCli, snapshot } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { repoRoot } from './helpers/releases.js';

/**
 * The output directory as an operator meets it: the generator owns only what its manifest lists, refuses places
 * that are not its own, survives kill -9 at any point, and lets one writer at a time in.
 */
const work = tempDir('adcp-output-');
const release = tinyRelease();
const caps = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };
writeTree(
  {
    'profiles/a.json': { name: 'seller', tools: ['get_adcp_capabilities', 'get_things', 'make_thing'], capabilities: caps },
    'profiles/b.json': { name: 'lister', tools: ['get_adcp_capabilities', 'get_things'], capabilities: caps },
  },
  work,
);
const genArgs = (profile: 'a' | 'b', out: string, ...more: string[]): string[] => ['generate', '--release', release, '--profile', `profiles/${profile}.json`, '--out', out, ...more];

/** The reference sets: A (three tools) and B (a different profile, fewer tools): B changes, adds and removes files. */
async function reference(profile: 'a' | 'b'): Promise<Record<string, string>> {
  const run = await runCli(genArgs(profile, `ref-${profile}`), work);
  assert.is(run.code, 0, run.stderr);
  return snapshot(join(work, `ref-${profile}`));
}
let setA: Record<string, string> = {};
let setB: Record<string, string> = {};

test('reference sets differ in every way a regeneration can (changed, added, removed files)', async () => {
  setA = await reference('a');
  setB = await reference('b');
  const a = Object.keys(setA);
  const b = Object.keys(setB);
  assert.ok(a.some((p) => !b.includes(p)), 'B removes files of A');
  assert.ok(b.some((p) => !a.includes(p)), 'B adds files');
  assert.ok(a.some((p) => b.includes(p) && setA[p] !== setB[p]), 'B changes files');
});

function foreignDir(name: string): string {
  return writeTree({ 'notes.txt': 'notes\n', 'sub/keep.md': 'x\n' }, join(work, name));
}

test('the notes.txt case: a foreign non-empty directory is refused, byte for byte untouched, unless adopted', async () => {
  const mydir = foreignDir('mydir');
  const before = snapshot(mydir);
  let run = await runCli(genArgs('a', 'mydir'), work);
  assert.is(run.code, 1, run.stderr);
  assert.match(run.stderr, /mydir: refusing to write into a directory adcp-codegen does not own/);
  assert.match(run.stderr, /notes\.txt, sub\/keep\.md/);
  assert.match(run.stderr, /--adopt/);
  assert.equal(snapshot(mydir), before);
  assert.equal(readdirSync(mydir).sort(), ['notes.txt', 'sub'], 'not even a lock or work directory was created');

  run = await runCli(genArgs('a', 'mydir', '--adopt'), work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /left 2 file\(s\) adcp-codegen does not own as they are: notes\.txt, sub\/keep\.md/);
  assert.equal(snapshot(mydir), { ...setA, ...before });

  // Now it owns the set: a regeneration replaces and removes only what its manifest lists, and a foreign file
  // inside one of its own directories keeps that directory alive.
  writeFileSync(join(mydir, 'profiles', 'mine.md'), 'mine\n');
  const withMine = snapshot(mydir);
  run = await runCli(genArgs('b', 'mydir'), work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /removed/);
  assert.equal(snapshot(mydir), { ...setB, ...before, 'profiles/mine.md': withMine['profiles/mine.md']! });
  assert.not.ok(existsSync(join(mydir, WORK_DIR)), 'no work directory left behind');
  assert.not.ok(existsSync(join(mydir, 'releases', '9.1', 'strip', 'make_thing.cjs')), 'a file A had and B has not is gone');
});

test('--out . in a project directory, the config directory, a repository root and a parent of an input are refused', async () => {
  const project = writeTree(
    {
      'package.json': JSON.stringify({ name: 'agent', private: true }),
      'src/index.ts': 'export const x = 1;\n',
      'profiles/a.json': JSON.stringify({ name: 'seller', tools: ['get_adcp_capabilities', 'get_things'], capabilities: caps }),
      'adcp-codegen.config.json': JSON.stringify({ releases: [release], profiles: ['profiles/*.json'], out: '.' }),
      'nested/adcp-codegen.config.json': JSON.stringify({ releases: [release], profiles: ['../profiles/*.json'], out: 'gen' }),
    },
    join(work, 'project'),
  );
  const before = snapshot(project);
  const refused = async (args: string[], cwd: string, why: RegExp): Promise<void> => {
    const run = await runCli(args, cwd);
    assert.is(run.code, 1, run.stderr);
    assert.match(run.stderr, why);
    assert.equal(snapshot(project), before, `${args.join(' ')}: every file byte-identical`);
    assert.not.ok(existsSync(join(project, WORK_DIR)));
  };
  await refused(['generate', '--out', '.'], project, /<command line>: refusing to generate into \.: it is the directory of the config file/);
  await refused(['generate'], project, /adcp-codegen\.config\.json#\/out: refusing to generate into \.: it is the directory of the config file/);
  await refused(['generate', '--config', 'nested/adcp-codegen.config.json', '--out', '.'], project, /refusing to generate into \.: it is the project root \(it holds package\.json\)/);
  await refused(['generate', '--release', release, '--profile', 'project/profiles/a.json', '--out', 'project'], work, /refusing to generate into project: it is a parent of the input project\/profiles\/a\.json/);
  const repo = writeTree({ 'readme.md': 'r\n', '.git/HEAD': 'ref: refs/heads/main\n' }, join(work, 'repo'));
  const repoBefore = snapshot(repo);
  const run = await runCli(['generate', '--release', release, '--profile', '../profiles/a.json', '--out', '.'], repo);
  assert.is(run.code, 1);
  assert.match(run.stderr, /refusing to generate into \.: it is the repository root \(it holds \.git\)/);
  assert.equal(snapshot(repo), repoBefore);
  // A directory of its own below the project is fine.
  const ok = await runCli(['generate', '--config', 'nested/adcp-codegen.config.json'], project);
  assert.is(ok.code, 0, ok.stderr);
});

test('a manifest naming a path outside out is not a manifest: nothing outside is ever removed', async () => {
  const dir = join(work, 'evil');
  mkdirSync(dir);
  writeFileSync(join(work, 'victim.txt'), 'keep me\n');
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ inputsHash: 'x', files: { '../victim.txt': 'y' } }));
  const run = await runCli(genArgs('a', 'evil'), work);
  assert.is(run.code, 1);
  assert.match(run.stderr, /does not own/);
  assert.is(readFileSync(join(work, 'victim.txt'), 'utf8'), 'keep me\n');
});

const sleep = (ms: number): Promise<void> => new Promise((w) => setTimeout(w, ms));
function staging(out: string): boolean {
  try {
    return readdirSync(join(out, WORK_DIR)).some((n) => n.startsWith('staging-'));
  } catch {
    return false;
  }
}

function same(a: Record<string, string>, b: Record<string, string>): boolean {
  const norm = (x: Record<string, string>): string => JSON.stringify(Object.entries(x).sort());
  return norm(a) === norm(b);
}

test('a symbolic link planted among the generated directories is never written or removed through', async () => {
  const out = join(work, 'linked');
  let run = await runCli(genArgs('a', 'linked'), work);
  assert.is(run.code, 0, run.stderr);
  const outside = writeTree({ 'seller.json': 'outside\n' }, join(work, 'outside'));
  rmSync(join(out, 'profiles'), { recursive: true });
  symlinkSync(outside, join(out, 'profiles'), 'dir');
  run = await runCli(genArgs('b', 'linked'), work);
  assert.is(run.code, 1);
  assert.match(run.stderr, /linked\/profiles: a symbolic link is in the place of a generated directory/);
  assert.equal(readdirSync(outside), ['seller.json']);
  assert.is(readFileSync(join(outside, 'seller.json'), 'utf8'), 'outside\n');
});

/** Spawns the real CLI. */
function spawnCli(args: string[]): ChildProcess {
  return spawn(process.execPath, [join(repoRoot, 'bin/adcp-codegen.js'), ...args], { cwd: work, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
}
function finished(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (c) => (stderr += String(c)));
  // 'close': the child's stderr is read to its end ('exit' may come first).
  return new Promise((done) => child.on('close', (code, signal) => done({ code, signal, stderr })));
}
function strays(out: string): string[] {
  const parentLeft = readdirSync(join(out, '..')).filter((n) => /^\.(.*)\.(staging|retired)-\d+$/.test(n));
  return [...parentLeft, ...(existsSync(join(out, WORK_DIR)) ? [`${WORK_DIR}: ${readdirSync(join(out, WORK_DIR)).join(', ')}`] : [])];
}

test('kill -9 at random points during generate leaves the old or the new complete set; the next run leaves no stale directory', async () => {
  const out = join(work, 'killed');
  const notes = { 'notes.txt': 'mine\n' };
  writeTree(notes, out);
  let run = await runCli(genArgs('a', 'killed', '--adopt'), work);
  assert.is(run.code, 0, run.stderr);
  const old = snapshot(out);
  const fresh = { ...setB, 'notes.txt': old['notes.txt']! };
  // How long an uninterrupted A → B regeneration takes, to spread the kills over all of it.
  let t0 = Date.now();
  let r = await finished(spawnCli(genArgs('b', 'killed')));
  assert.is(r.code, 0, r.stderr);
  const span = Date.now() - t0;
  assert.equal(snapshot(out), fresh);
  const seen = { old: 0, fresh: 0, pending: 0 };
  const kills = 6;
  for (let i = 0; i < kills; i++) {
    run = await runCli(genArgs('a', 'killed'), work);
    assert.is(run.code, 0, run.stderr);
    assert.equal(snapshot(out), old);
    const child = spawnCli(genArgs('b', 'killed'));
    const exited = finished(child);
    // Even kills: anywhere in the run (loading, compiling, formatting). Odd kills: in the write itself, a random
    // few milliseconds after the staging directory appears (staging, commit, moving in).
    let delay: number;
    if (i % 2 === 0) {
      delay = Math.round(span * ((i + Math.random()) / kills));
      await sleep(delay);
    } else {
      const started = Date.now();
      while (Date.now() - started < 10_000 && child.exitCode === null && !staging(out)) await sleep(1);
      delay = Math.round(Math.random() * 30);
      await sleep(delay);
      delay += Date.now() - started;
    }
    child.kill('SIGKILL');
    r = await exited;
    const now = snapshot(out);
    if (commitPending(out)) {
      // Committed, not yet all moved in: the new set is decided, and no reader may use the mix on disk.
      seen.pending++;
      let refused = '';
      await createAgent(pathToFileURL(out + '/'), 'seller').catch((e: Error) => (refused = e.message));
      assert.match(refused, /interrupted regeneration/);
    }
    else if (same(now, old)) seen.old++;
    else {
      assert.equal(now, fresh, `killed after ${delay} ms of ${span}: neither the old nor the new complete set`);
      seen.fresh++;
    }
    assert.is(now['notes.txt'], old['notes.txt'], 'the foreign file is untouched');
    t0 = Date.now();
    run = await runCli(genArgs('b', 'killed'), work);
    assert.is(run.code, 0, run.stderr);
    assert.equal(snapshot(out), fresh);
    assert.equal(strays(out), [], 'no staging, journal, lock or legacy directory left');
  }
  process.stdout.write(`  kill -9 over a ${span} ms regeneration: ${JSON.stringify(seen)}\n`);
});

test('a kill between commit and the last move: the runtime refuses the mixed set, --check reports it, the next run finishes it', async () => {
  const out = join(work, 'mixed');
  let run = await runCli(genArgs('a', 'mixed'), work);
  assert.is(run.code, 0, run.stderr);
  // The state a run killed in the middle of step 3 leaves: the journal committed, half the staged files moved.
  const changed = Object.keys(setB).filter((p) => setA[p] !== setB[p] && p !== 'manifest.json');
  const dead = spawnSync(process.execPath, ['-e', '']).pid!;
  const stagingName = `staging-${dead}-abc`;
  const staging = join(out, WORK_DIR, stagingName);
  const ref = join(work, 'ref-b');
  for (const p of [...changed, 'manifest.json']) writeTree({ [p]: readFileSync(join(ref, p), 'utf8') }, staging);
  const removed = Object.keys(setA).filter((p) => setB[p] === undefined);
  writeFileSync(join(out, WORK_DIR, JOURNAL), JSON.stringify({ '//': '', staging: stagingName, write: [...changed, 'manifest.json'], remove: removed }));
  for (const p of changed.slice(0, Math.floor(changed.length / 2))) {
    mkdirSync(join(out, p, '..'), { recursive: true });
    renameSync(join(staging, p), join(out, p));
  }
  writeTree({ x: '' }, join(work, `.mixed.retired-${dead}`));
  writeTree({ y: '' }, join(work, `.mixed.staging-${dead}`));
  let refused = '';
  await createAgent(pathToFileURL(out + '/'), 'seller').catch((e: Error) => (refused = e.message));
  assert.match(refused, /interrupted regeneration; run adcp-codegen generate/);
  run = await runCli(genArgs('b', 'mixed', '--check'), work);
  assert.is(run.code, 1, '--check does not call a mixed set in step');
  run = await runCli(genArgs('b', 'mixed'), work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /finished an interrupted regeneration/);
  assert.match(run.stderr, new RegExp(`removed \\.mixed\\.retired-${dead}, left by an interrupted run`));
  assert.equal(snapshot(out), setB);
  assert.equal(strays(out), []);

  // Killed between the previous design's two renames: `out` is gone, the retired directory is the only copy.
  renameSync(out, join(work, `.mixed.retired-${dead}`));
  run = await runCli(genArgs('a', 'mixed'), work);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /restored \.mixed\.retired-\d+ as the output directory/);
  assert.equal(snapshot(out), setA);
  assert.equal(strays(out), []);
});

test('two concurrent runs on one out never interleave: a live holder makes the second fail naming it; a dead one is taken over', async () => {
  const out = join(work, 'locked');
  let run = await runCli(genArgs('a', 'locked'), work);
  assert.is(run.code, 0, run.stderr);
  const before = snapshot(out);
  {
    using _held = lockOutput(join(out, WORK_DIR), 'locked');
    run = await runCli(genArgs('b', 'locked'), work);
    assert.is(run.code, 1);
    assert.match(run.stderr, new RegExp(`locked: another adcp-codegen run \\(pid ${process.pid} on [^)]+\\) is writing this directory`));
    assert.equal(snapshot(out), before);
  }
  // A lock left by a run killed with -9: its pid is gone.
  const dead = spawnSync(process.execPath, ['-e', '']).pid!;
  mkdirSync(join(out, WORK_DIR), { recursive: true });
  const { hostname } = await import('node:os');
  writeFileSync(join(out, WORK_DIR, 'lock'), JSON.stringify({ pid: dead, host: hostname(), started: new Date().toISOString() }));
  run = await runCli(genArgs('b', 'locked'), work);
  assert.is(run.code, 0, run.stderr);
  assert.equal(snapshot(out), setB);

  // Two real processes started together, A and B, several times: each either wrote a complete set or failed
  // naming the other; the result is exactly one complete set.
  for (let i = 0; i < 3; i++) {
    const [ra, rb] = await Promise.all([finished(spawnCli(genArgs('a', 'locked'))), finished(spawnCli(genArgs('b', 'locked')))]);
    for (const r of [ra, rb]) assert.ok(r.code === 0 || (r.code === 1 && /another adcp-codegen run \(pid \d+/.test(r.stderr)), r.stderr);
    assert.ok(ra.code === 0 || rb.code === 0, 'one of them wrote');
    const now = snapshot(out);
    assert.ok(same(now, setA) || same(now, setB), 'one complete set');
    assert.equal(strays(out), []);
  }
});

test.run();

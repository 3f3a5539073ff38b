import { hostname } from 'node:os';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_HEAP_BUDGET_MB, heapBudgetMb } from '../generator/generate-worker.js';
import { lockOutput, markThreadGone } from '../generator/write/index.js';
import { WORK_DIR } from '../generator/load/index.js';
import { runCli, snapshot } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';
import { repoRoot } from './helpers/releases.js';

/**
 * `adcp-codegen generate` runs in a worker thread with a heap budget (generator/generate-worker.ts): the same output
 * and messages as on the main thread, errors that still name file and pointer, and a generation that outgrows its
 * budget runs again without one instead of failing.
 */
const work = tempDir('adcp-worker-');
const release = tinyRelease();
const caps = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };
writeTree(
  {
    'profiles/seller.json': { name: 'seller', tools: ['get_adcp_capabilities', 'get_things', 'make_thing'], capabilities: caps },
    'bad/seller.json': { name: 'seller', tools: ['get_adcp_capabilities', 'no_such_tool'], capabilities: caps },
  },
  work,
);
const args = (out: string, profile = 'profiles/seller.json'): string[] => ['generate', '--release', release, '--profile', profile, '--out', out];

test('the CLI\'s main thread loads no compiler: importing it loads neither Ajv, TypeScript nor prettier', () => {
  const probe = [
    `await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist/generator/cli.js')).href)});`,
    `const loaded = Object.keys(process.getBuiltinModule('node:module')._cache);`,
    `process.stdout.write(JSON.stringify(['/node_modules/ajv/', '/node_modules/typescript/', '/node_modules/@ts-morph/', '/node_modules/prettier/'].filter((p) => loaded.some((f) => f.includes(p)))));`,
  ].join('\n');
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), []);
});

test('in the worker: the same files and progress lines as on the main thread', async () => {
  const main = await runCli(args('main-thread'), work, '0');
  assert.is(main.code, 0, main.stderr);
  const worker = await runCli(args('worker'), work, String(DEFAULT_HEAP_BUDGET_MB));
  assert.is(worker.code, 0, worker.stderr);
  assert.equal(snapshot(join(work, 'worker')), snapshot(join(work, 'main-thread')));
  const stages = (stderr: string) => [...stderr.matchAll(/^adcp-codegen (\w+)\s/gm)].map((m) => m[1]);
  assert.equal(stages(worker.stderr), stages(main.stderr));
  assert.ok(stages(worker.stderr).includes('write'), worker.stderr);
  // --check through the worker: the result (no drift) comes back.
  const check = await runCli([...args('worker'), '--check'], work, String(DEFAULT_HEAP_BUDGET_MB));
  assert.is(check.code, 0, check.stderr);
});

test('in the worker, from a process started with flags a worker refuses (`node --input-type=module -e`): it runs', () => {
  const script = `const { main } = await import(${JSON.stringify(pathToFileURL(join(repoRoot, 'dist/generator/cli.js')).href)});
process.exitCode = await main(${JSON.stringify(args('from-eval'))});`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: work, encoding: 'utf8', env: { ...process.env, ADCP_CODEGEN_HEAP_MB: String(DEFAULT_HEAP_BUDGET_MB) } });
  assert.is(r.status, 0, r.stderr);
  assert.equal(snapshot(join(work, 'from-eval')), snapshot(join(work, 'main-thread')));
});

test('in the worker: a generation error still names the file and pointer, exit 1, nothing written', async () => {
  const run = await runCli(args('bad-out', 'bad/seller.json'), work, String(DEFAULT_HEAP_BUDGET_MB));
  assert.is(run.code, 1);
  assert.match(run.stderr, /bad\/seller\.json#\/tools\/1: .*no_such_tool/);
  assert.equal(snapshot(join(work, 'bad-out')), {});
});

test('over budget: the worker runs out of heap, a warning names the setting, the generation runs again and completes', async () => {
  const run = await runCli(args('tight'), work, '8');
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stderr, /generation needed more than its 8 MB heap budget; running it again without one \(set ADCP_CODEGEN_HEAP_MB/);
  assert.equal(snapshot(join(work, 'tight')), snapshot(join(work, 'main-thread')));
  // Whatever the ended worker left (its lock, a staging directory) is gone.
  assert.not.ok(existsSync(join(work, 'tight', WORK_DIR)), 'no lock, staging or journal left');
});

test('a lock left by a worker thread of this process that ended is taken over; one held by a live thread is not', () => {
  const dir = join(work, 'locks', WORK_DIR);
  mkdirSync(dir, { recursive: true });
  const record = { pid: process.pid, host: hostname(), started: new Date().toISOString(), thread: 4242 };
  writeFileSync(join(dir, 'lock'), JSON.stringify(record));
  assert.throws(() => lockOutput(dir, 'locks'), /another adcp-codegen run \(pid \d+/, 'thread 4242 is not known to have ended');
  markThreadGone(4242);
  const lock = lockOutput(dir, 'locks');
  lock.release();
});

test('ADCP_CODEGEN_HEAP_MB: a whole number of MB, 0 for none, the default when unset', () => {
  assert.is(heapBudgetMb({}), DEFAULT_HEAP_BUDGET_MB);
  assert.is(heapBudgetMb({ ADCP_CODEGEN_HEAP_MB: '0' }), 0);
  assert.is(heapBudgetMb({ ADCP_CODEGEN_HEAP_MB: '512' }), 512);
  assert.throws(() => heapBudgetMb({ ADCP_CODEGEN_HEAP_MB: 'lots' }), /ADCP_CODEGEN_HEAP_MB must be a whole number of MB/);
  assert.throws(() => heapBudgetMb({ ADCP_CODEGEN_HEAP_MB: '-1' }), /whole number/);
  // Below what a worker needs to start, Node 24 aborts the process instead of failing the worker: refused up front.
  assert.throws(() => heapBudgetMb({ ADCP_CODEGEN_HEAP_MB: '2' }), /0 \(no budget\) or at least 8 MB/);
  assert.is(heapBudgetMb({ ADCP_CODEGEN_HEAP_MB: '8' }), 8);
});

test.run();

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from './helpers/temp.js';

/**
 * The guard that keeps `npm test` from leaving `adcp-*` directories in the OS temp dir: every test process puts its
 * temporary directories under one scratch directory, removes it at exit, and fails when something was left there
 * that no test cleans up. Shown here on child processes importing the same helper, in a temp dir of their own.
 */
const helper = new URL('helpers/temp.js', import.meta.url).href;

function child(body: string): { status: number | null; stdout: string; stderr: string; tmp: string } {
  const tmp = tempDir('adcp-temp-guard-');
  const script = `import { tempDir } from ${JSON.stringify(helper)}; import { mkdtempSync, writeFileSync } from 'node:fs'; import { tmpdir } from 'node:os'; import { join } from 'node:path'; ${body}; console.log(tmpdir());`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: tmp }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr, tmp };
}

test('directories made with tempDir are removed at exit, and the run passes', () => {
  const r = child(`writeFileSync(join(tempDir('adcp-a-'), 'f'), 'x'); tempDir('adcp-b-')`);
  assert.is(r.status, 0, r.stderr);
  assert.ok(r.stdout.startsWith(join(r.tmp, 'adcp-test-run-')), 'TMPDIR points at the scratch directory');
  assert.equal(readdirSync(r.tmp), [], 'nothing left in the temp dir');
});

test('a temporary directory made behind the helper’s back fails the run, named, and is still removed', () => {
  const r = child(`mkdtempSync(join(tmpdir(), 'adcp-stray-'))`);
  assert.is(r.status, 1);
  assert.match(r.stderr, /temporary files left behind by the tests[^\n]*adcp-stray-/);
  assert.not.ok(existsSync(r.stdout));
  assert.equal(readdirSync(r.tmp), []);
});

test.run();

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Every temporary directory of a test run lives under one scratch directory, and the run leaves nothing behind.
 *
 * On first import this points TMPDIR (and so `os.tmpdir()`, for this process, the CLIs it spawns and any library
 * code they run) at `<os temp>/adcp-test-run-<random>`. `tempDir()` creates directories there and remembers them;
 * when the process exits they are removed. Anything else still in the scratch directory at exit was created behind
 * the tests' back (a direct mkdtemp, a cache the code under test put in the temp dir and the test did not clean):
 * it is listed and the run fails (exit code 1). Then the scratch directory itself is removed, so after `npm test`
 * the OS temp dir holds no new `adcp-*` entry.
 */
const osTemp = tmpdir();
const scratch = mkdtempSync(join(osTemp, 'adcp-test-run-'));
process.env.TMPDIR = scratch;
const made = new Set<string>();

export function tempDir(prefix = 'adcp-codegen-'): string {
  const dir = mkdtempSync(join(scratch, prefix));
  made.add(dir);
  return dir;
}

/** Removes a directory made by tempDir before the end of the run (a test that makes many). */
export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  made.delete(dir);
}

/** The real OS temp dir, as it was before this run redirected TMPDIR. */
export const systemTempDir = osTemp;

/**
 * This user's private cache (runtime/user-cache.ts: the runtime's code cache, the generator's build cache) for the
 * run: a fresh one, so no test reads what an earlier run or the user's own generations left in ~/.cache, and the
 * run leaves nothing there. Child processes inherit it; a runner that runs test files as processes of their own
 * (test/real/run.ts) hands them its own in ADCP_TEST_USER_CACHE, so they share it as files run in one process do.
 */
export const userCacheDir = process.env.ADCP_TEST_USER_CACHE ?? tempDir('adcp-user-cache-');
process.env.ADCP_CODEGEN_CACHE_DIR = userCacheDir;

/**
 * The agents' embedded store (runtime/stores/open.ts) for the run: a state directory of the run's own, so no test reads
 * or writes the user's `~/.local/state/adcp-agent`, and nothing of it outlives the run. A test that needs a store of
 * its own names one (`store: 'memory'`, `{ stateDir }`); a DATABASE_URL of the environment is not the tests' to use.
 */
export const stateDir = tempDir('adcp-state-');
process.env.ADCP_STATE_DIR = stateDir;
delete process.env.DATABASE_URL;

/**
 * What the code under test puts in the temp dir by design: the private cache's last-resort place, used when neither
 * the environment nor a home directory offers one.
 */
const BY_DESIGN = /^adcp-codegen-\d+$/;

process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  try {
    for (const entry of readdirSync(scratch)) if (BY_DESIGN.test(entry)) rmSync(join(scratch, entry), { recursive: true, force: true });
  } catch {
    /* already gone */
  }
  let stray: string[] = [];
  try {
    stray = readdirSync(scratch);
  } catch {
    /* already gone */
  }
  if (stray.length > 0) {
    process.stderr.write(`\ntemporary files left behind by the tests (create them with tempDir() from test/helpers/temp.ts, or remove them): ${stray.join(', ')}\n`);
    process.exitCode = 1;
  }
  rmSync(scratch, { recursive: true, force: true });
});

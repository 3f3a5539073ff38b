import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { lazyStore } from '../runtime/stores/open.js';
import { nativeBinding } from '../runtime/stores/sqlite.js';
import { tempDir } from './helpers/temp.js';

/**
 * The stores' transactions (runtime/stores/sql.ts): a service writes a state change and what follows from it (a
 * webhook in the outbox) in one, committed together or not at all. The embedded store has one connection per
 * process, so its other statements wait for an open transaction to end rather than join it.
 * test/real/webhooks.test.ts runs transactions on PostgreSQL.
 */
const DDL = 'CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY, v TEXT)';

for (const where of ['memory', 'state directory'] as const) {
  test(`${where}: a transaction commits when its function resolves and rolls back when it throws`, async () => {
    const store = lazyStore(where === 'memory' ? 'memory' : { stateDir: tempDir() }, 'stores-test');
    const sql = await store.open();
    await sql.query(DDL);
    const value = await sql.transaction(async (tx) => {
      await tx.query('INSERT INTO t (k, v) VALUES ($1, $2)', ['a', '1']);
      await tx.query('INSERT INTO t (k, v) VALUES ($1, $2)', ['b', '2']);
      return 'done';
    });
    assert.is(value, 'done');
    const failure = await sql
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (k, v) VALUES ($1, $2)', ['c', '3']);
        await tx.query('UPDATE t SET v = $2 WHERE k = $1', ['a', 'changed']);
        throw new Error('the caller gave up');
      })
      .catch((e: Error) => e.message);
    assert.is(failure, 'the caller gave up', 'the function\'s own error, passed on');
    assert.equal((await sql.query('SELECT k, v FROM t ORDER BY k')).rows, [{ k: 'a', v: '1' }, { k: 'b', v: '2' }]);
    // A statement issued while a transaction is open waits for its end: it is not part of it.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const open = sql.transaction(async (tx) => {
      await tx.query('INSERT INTO t (k, v) VALUES ($1, $2)', ['d', '4']);
      await gate;
      throw new Error('rolled back');
    });
    const outside = sql.query('INSERT INTO t (k, v) VALUES ($1, $2)', ['e', '5']);
    let outsideDone = false;
    void outside.then(() => (outsideDone = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.not.ok(outsideDone, 'waits while the transaction is open');
    release();
    assert.is(await open.catch((e: Error) => e.message), 'rolled back');
    await outside;
    assert.equal((await sql.query('SELECT k FROM t ORDER BY k')).rows.map((r) => r.k), ['a', 'b', 'e'], 'd rolled back, e committed on its own');
    await store.close();
  });
}

test('the state directory is private: made 0700 when the agent creates it (whatever the umask), its database and journals 0600; a group- or world-writable one is refused', async () => {
  const parent = tempDir();
  const made = join(parent, 'a', 'state');
  const umask = process.umask(0o002);
  try {
    const store = lazyStore({ stateDir: made }, 'private');
    await (await store.open()).query(DDL);
    await store.close();
  } finally {
    process.umask(umask);
  }
  const mode = (path: string): string => (statSync(path).mode & 0o7777).toString(8);
  assert.is(mode(made), '700');
  for (const file of ['adcp-state.sqlite', 'adcp-state.sqlite-wal', 'adcp-state.sqlite-shm']) {
    if (existsSync(join(made, file))) assert.is(mode(join(made, file)), '600', file);
  }
  // Files an older agent left readable by others are made private when the store opens.
  const older = join(parent, 'older');
  mkdirSync(older, { mode: 0o700 });
  writeFileSync(join(older, 'adcp-state.sqlite'), '', { mode: 0o644 });
  chmodSync(join(older, 'adcp-state.sqlite'), 0o644);
  const reopened = lazyStore({ stateDir: older }, 'private');
  await reopened.open();
  await reopened.close();
  assert.is(mode(join(older, 'adcp-state.sqlite')), '600');
  // A directory others may write to is refused, and left as it is.
  for (const loose of [0o777, 0o775, 0o1777]) {
    const dir = join(parent, `loose-${loose.toString(8)}`);
    mkdirSync(dir);
    chmodSync(dir, loose);
    const e = await lazyStore({ stateDir: dir }, 'private').open().then(() => undefined, (x: Error) => x);
    assert.match(String(e?.message), /the state directory .*: group- or world-writable \(mode \d+\): make it private \(chmod 700\)/);
    assert.is(mode(dir), loose.toString(8));
    assert.not.ok(existsSync(join(dir, 'adcp-state.sqlite')), 'nothing written there');
  }
});

test('an adcp_a2a_tasks table from before the per-principal bounds gains its bytes column when the store opens (SQLite has no ADD COLUMN IF NOT EXISTS)', async () => {
  const dir = tempDir();
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => { exec(s: string): void; close(): void };
  const old = new Database(join(dir, 'adcp-state.sqlite'));
  old.exec('CREATE TABLE adcp_a2a_tasks (scope TEXT NOT NULL, task_id TEXT NOT NULL, task TEXT, adcp_task_id TEXT, settled TEXT, ttl_ms BIGINT NOT NULL, saved_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, PRIMARY KEY (scope, task_id))');
  old.exec("INSERT INTO adcp_a2a_tasks VALUES ('p', 't1', '{}', NULL, NULL, 1, 1, 9999999999999)");
  old.close();
  chmodSync(dir, 0o700);
  const store = lazyStore({ stateDir: dir }, 'upgrade');
  const sql = await store.open();
  assert.equal((await sql.query('SELECT task_id, bytes FROM adcp_a2a_tasks')).rows, [{ task_id: 't1', bytes: 0 }]);
  await store.close();
  // And opening again (the column now there) changes nothing.
  const again = lazyStore({ stateDir: dir }, 'upgrade');
  assert.equal((await (await again.open()).query('SELECT COUNT(*) AS n FROM adcp_a2a_tasks')).rows, [{ n: 1 }]);
  await again.close();
});

test('the embedded store names better-sqlite3 its own installed addon, so opening skips the `bindings` search', () => {
  // The agent's package (this repository's, under test) builds its addon in build/Release: when that layout changes,
  // the store still opens (better-sqlite3 searches) but this saving is gone, and this says so.
  const addon = nativeBinding();
  assert.ok(addon !== undefined, 'build/Release/better_sqlite3.node was not found');
  assert.ok(existsSync(addon));
  const pkg = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
  assert.ok(realpathSync(addon).startsWith(realpathSync(pkg)), `${addon} is not inside ${pkg}`);
});

test.run();

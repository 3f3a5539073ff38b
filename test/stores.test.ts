import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
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

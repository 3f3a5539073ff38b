import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createDatabase, startPostgres, type PostgresServer } from '../helpers/postgres.js';

/**
 * The test harness's PostgreSQL (test/helpers/postgres.ts): real servers, started from Debian's postgresql-15
 * binaries, each its own cluster in a temp dir, on a port of its own, behind a password.
 */

async function query<T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** How connecting fails (its error code), or 'connected'. */
async function connectOutcome(config: pg.ClientConfig): Promise<string> {
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    return 'connected';
  } catch (e) {
    await client.end().catch(() => undefined);
    return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
  }
}

/** Whether a process has exited: gone, or a zombie its new parent (pg_ctl's postmaster is an orphan) has yet to reap. */
function exited(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

async function stopAll(servers: PostgresServer[]): Promise<void> {
  await Promise.all(servers.map((s) => s.stop()));
}

test('two servers started concurrently each accept connections, on ports, credentials and data of their own', async () => {
  const t0 = performance.now();
  const [a, b] = await Promise.all([startPostgres(), startPostgres({ name: 'second' })]);
  const elapsed = performance.now() - t0;
  try {
    console.log(`  two servers started concurrently in ${Math.round(elapsed)} ms`);
    assert.is.not(a.port, b.port);
    assert.is.not(a.dir, b.dir);
    assert.is.not(a.user, b.user);
    // Compared without printing: a failed assertion shows its values, and a password is never shown.
    assert.ok(a.password !== b.password, 'passwords of their own');
    for (const s of [a, b]) {
      assert.is(s.host, '127.0.0.1');
      assert.ok(s.url === `postgres://${s.user}:${s.password}@127.0.0.1:${s.port}/${s.database}`, 'url: postgres://user:password@127.0.0.1:port/database');
      assert.ok(s.password.length >= 24, 'a long random password');
      const [row] = await query<{ db: string; who: string; version: string }>(s.url, 'SELECT current_database() AS db, current_user AS who, current_setting(\'server_version_num\') AS version');
      assert.equal({ db: row.db, who: row.who }, { db: s.database, who: s.user });
      assert.ok(Number(row.version) >= 150000, `server version ${row.version}`);
    }
    assert.is(a.database, 'adcp_test');
    assert.is(b.database, 'second');

    // What one server holds, the other does not.
    await query(a.url, 'CREATE TABLE only_on_a (id int)');
    const onB = await query<{ t: string | null }>(`postgres://${b.user}:${b.password}@127.0.0.1:${b.port}/postgres`, "SELECT to_regclass('public.only_on_a')::text AS t");
    assert.is(onB[0].t, null);
    const onA = await query<{ t: string | null }>(a.url, "SELECT to_regclass('public.only_on_a')::text AS t");
    assert.is(onA[0].t, 'only_on_a');

    // Password authentication: one server's credentials do not open the other, nor does a wrong password.
    assert.is(await connectOutcome({ host: b.host, port: b.port, user: a.user, password: a.password, database: 'postgres' }), '28P01');
    assert.is(await connectOutcome({ host: a.host, port: a.port, user: a.user, password: 'not-the-password', database: 'postgres' }), '28P01');
    assert.is(await connectOutcome({ host: a.host, port: a.port, user: a.user, password: a.password, database: 'postgres' }), 'connected');

    // Listening on 127.0.0.1 only, with its socket in its own directory; the password is in none of its files.
    const [settings] = await query<{ listen: string; sockets: string; fsync: string }>(a.url, "SELECT current_setting('listen_addresses') AS listen, current_setting('unix_socket_directories') AS sockets, current_setting('fsync') AS fsync");
    assert.equal(settings, { listen: '127.0.0.1', sockets: a.dir, fsync: 'off' });
    assert.ok(existsSync(join(a.dir, `.s.PGSQL.${a.port}`)), 'the unix socket in the temp dir');
    assert.not.ok(existsSync(join(a.dir, 'pwfile')), 'the password file removed after initdb');
    for (const file of [join(a.dir, 'server.log'), join(a.dir, 'data/postgresql.conf')]) assert.not.ok(readFileSync(file, 'utf8').includes(a.password), file);
  } finally {
    await stopAll([a, b]);
  }
});

test('createDatabase gives a database of its own on the same server', async () => {
  const server = await startPostgres();
  try {
    const otherUrl = await createDatabase(server, 'isolated_one');
    assert.ok(otherUrl === `postgres://${server.user}:${server.password}@127.0.0.1:${server.port}/isolated_one`, 'url of the new database');
    await query(server.url, 'CREATE TABLE items (name text)');
    await query(server.url, "INSERT INTO items VALUES ('in the first')");
    await query(otherUrl, 'CREATE TABLE items (name text)');
    await query(otherUrl, "INSERT INTO items VALUES ('in the other')");
    assert.equal(await query(server.url, 'SELECT name FROM items'), [{ name: 'in the first' }]);
    assert.equal(await query(otherUrl, 'SELECT name FROM items'), [{ name: 'in the other' }]);
    const [{ port }] = await query<{ port: string }>(otherUrl, "SELECT current_setting('port') AS port");
    assert.is(Number(port), server.port);
    // A name that is not a plain identifier is refused before reaching SQL.
    await createDatabase(server, 'x"; DROP DATABASE adcp_test; --').then(
      () => assert.unreachable('accepted'),
      (e: Error) => assert.match(e.message, /database name/),
    );
  } finally {
    await server.stop();
  }
});

test('a table and a row written survive a reconnect with a fresh client', async () => {
  const server = await startPostgres();
  try {
    const first = new pg.Client({ connectionString: server.url });
    await first.connect();
    await first.query('CREATE TABLE kept (id int PRIMARY KEY, body jsonb NOT NULL)');
    await first.query('INSERT INTO kept VALUES ($1, $2)', [1, { media_buy_id: 'mb_1' }]);
    await first.end();

    const second = new pg.Client({ connectionString: server.url });
    await second.connect();
    try {
      assert.equal((await second.query('SELECT id, body FROM kept')).rows, [{ id: 1, body: { media_buy_id: 'mb_1' } }]);
    } finally {
      await second.end();
    }
  } finally {
    await server.stop();
  }
});

test('after stop() the port refuses connections and the directory is gone; stop() twice is harmless', async () => {
  const server = await startPostgres();
  assert.ok(existsSync(join(server.dir, 'data/PG_VERSION')));
  const pid = Number(readFileSync(join(server.dir, 'data/postmaster.pid'), 'utf8').split('\n')[0]);
  assert.is(await connectOutcome({ connectionString: server.url }), 'connected');
  await server.stop();
  assert.is(await connectOutcome({ connectionString: server.url }), 'ECONNREFUSED');
  assert.not.ok(existsSync(server.dir), 'the temp dir is removed');
  assert.ok(exited(pid), 'the postmaster has exited');
  await server.stop();
});

test.run();

import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { agentPackage, agentPackagePath } from '../artifacts/packages.js';
import { StoreUnavailable, type Sql } from './sql.js';

/**
 * The embedded store: SQLite in a state directory through the agent's own `better-sqlite3`, durable through `kill -9`
 * and restarts with no server to run: a write-ahead log, with `synchronous = NORMAL` by default — a commit is in the
 * log (the kernel's, then the disk's) when it returns, so an application crash loses nothing; a power loss or an OS
 * crash may lose the last commits — or `FULL` (`synchronous: 'full'`, ADCP_STATE_SYNC=full): each commit fsynced
 * before it returns, at about a millisecond a commit (the idempotency claim and its answer are two) during which the
 * process does nothing else.
 * Several processes on one machine may share the directory (SQLite's locks). Nothing in the directory is ever
 * executed: it holds one database file and its journal. `':memory:'` is the memory store, for tests.
 */

interface Statement {
  readonly reader: boolean;
  all(params: Record<string, unknown>): Record<string, unknown>[];
  run(params: Record<string, unknown>): { changes: number };
}
interface Database {
  pragma(text: string): unknown;
  prepare(text: string): Statement;
  exec(text: string): void;
  transaction(fn: () => void): () => void;
  readonly inTransaction: boolean;
  close(): void;
}
type DatabaseClass = new (file: string, options: { timeout: number; nativeBinding?: string }) => Database;

export const STATE_FILE = 'adcp-state.sqlite';

export function openSqlite(dir: string | ':memory:', synchronous: 'normal' | 'full' = 'normal'): Sql {
  const memory = dir === ':memory:';
  const where = memory ? 'the memory store' : `the state directory ${dir}`;
  const Database = agentPackage<DatabaseClass>('better-sqlite3', memory ? 'the memory store' : 'the embedded store (ADCP_STATE_DIR)');
  let db: Database;
  try {
    if (!memory) {
      ownDirectory(dir);
      privateFile(join(dir, STATE_FILE));
    }
    // Another process writing the same file holds its lock briefly: wait up to 5 s rather than fail the call.
    db = new Database(memory ? ':memory:' : join(dir, STATE_FILE), { timeout: 5_000, nativeBinding: nativeBinding() });
    if (!memory) {
      db.pragma('journal_mode = WAL');
      // SQLite makes its journals with the database's mode; ones an older agent left are made private too.
      for (const journal of ['-wal', '-shm']) privateFile(join(dir, STATE_FILE + journal), false);
    }
    db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  } catch (e) {
    throw new StoreUnavailable(where, e);
  }
  const statements = new Map<string, Statement>();
  const prepared = (text: string): Statement => {
    let s = statements.get(text);
    if (s === undefined) statements.set(text, (s = db.prepare(text.replace(/\$(\d+)/g, '@p$1'))));
    return s;
  };
  const run = (text: string, params: readonly unknown[]) => {
    try {
      const s = prepared(text);
      const named = Object.fromEntries(params.map((v, i) => [`p${i + 1}`, typeof v === 'boolean' ? Number(v) : v === undefined ? null : v]));
      if (s.reader) {
        const rows = s.all(named);
        return { rows, rowCount: rows.length };
      }
      return { rows: [], rowCount: s.run(named).changes };
    } catch (e) {
      throw new StoreUnavailable(where, e);
    }
  };
  // One connection per process: while a transaction is open (across its awaits), the other statements wait for its end.
  let open: Promise<void> | undefined;
  const settled = async (): Promise<void> => {
    while (open !== undefined) await open;
  };
  return {
    dialect: 'sqlite',
    where,
    durable: !memory,
    async query(text, params = []) {
      if (open !== undefined) await settled();
      return run(text, params);
    },
    async transaction(fn) {
      // Synchronous when none is open: a statement issued right after this call already finds it open.
      while (open !== undefined) await open;
      let end!: () => void;
      open = new Promise((resolve) => (end = resolve));
      const exec = (statement: string): void => {
        try {
          db.exec(statement);
        } catch (e) {
          throw new StoreUnavailable(where, e);
        }
      };
      try {
        exec('BEGIN IMMEDIATE');
        try {
          const value = await fn({ dialect: 'sqlite', query: async (text, params = []) => run(text, params) });
          exec('COMMIT');
          return value;
        } catch (e) {
          // Nothing to roll back when SQLite ended the transaction itself (a COMMIT failed on an I/O error).
          if (db.inTransaction) db.exec('ROLLBACK');
          throw e;
        }
      } finally {
        open = undefined;
        end();
      }
    },
    // A writing statement begins SQLite's write transaction before it reads, across processes too: it is its own lock.
    queryExclusive(_lock, text, params) {
      return this.query(text, params);
    },
    async migrate(ddl) {
      try {
        db.transaction(() => ddl.forEach((statement) => migrateOne(db, statement)))();
      } catch (e) {
        throw new StoreUnavailable(where, e);
      }
    },
    async close() {
      db.close();
    },
  };
}

/**
 * One DDL statement. SQLite has no `ADD COLUMN IF NOT EXISTS`: that form (schema.ts writes PostgreSQL's) adds the column
 * only when the table lacks it.
 */
function migrateOne(db: Database, statement: string): void {
  const add = /^ALTER TABLE (\w+) ADD COLUMN IF NOT EXISTS (\w+) (.+)$/s.exec(statement);
  if (add === null) return db.exec(statement);
  const [, table, column, definition] = add;
  const columns = db.pragma(`table_info(${table})`) as { name: string }[];
  if (!columns.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
}

/**
 * better-sqlite3's addon where its build puts it (`build/Release`), so that opening a database need not have the
 * `bindings` package look for it — a stack trace read and a dozen paths tried, 2–5 ms of a fresh agent's first
 * opening. Anywhere else (another build layout) better-sqlite3 looks for it itself, as before. The same file either
 * way: the agent's own installed package.
 */
export function nativeBinding(): string | undefined {
  try {
    const addon = join(dirname(agentPackagePath('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
    return existsSync(addon) ? addon : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The state directory, private: created 0700 when missing; an existing one another user owns, or one group or others
 * may write to (a 0777 or 1777 directory: anyone could replace the database or its journal under the agent), is
 * refused. What it holds decides replays and holds the sandbox's private signing key, cached answers and webhook
 * credentials, so it must be this user's alone.
 */
function ownDirectory(dir: string): void {
  // The first directory mkdir made, if any: then this one is the agent's own, 0700 whatever the umask.
  if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dir, 0o700);
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error('not a directory');
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`owned by another user (uid ${st.uid})`);
  if ((st.mode & 0o022) !== 0) throw new Error(`group- or world-writable (mode ${(st.mode & 0o7777).toString(8)}): make it private (chmod 700) or name another`);
}

/** A store file readable and writable by this user alone (0600): created so when missing (unless `create` is false). */
function privateFile(file: string, create = true): void {
  if (!existsSync(file)) {
    if (create) closeSync(openSync(file, 'a', 0o600));
    return;
  }
  const st = lstatSync(file);
  if (!st.isFile()) throw new Error(`${file} is not a regular file`);
  if ((st.mode & 0o077) !== 0) chmodSync(file, 0o600);
}

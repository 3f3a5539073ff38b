import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { agentPackage } from '../artifacts/packages.js';
import { StoreUnavailable, type Sql, type SqlResult } from './sql.js';

/**
 * The embedded store: SQLite in a state directory through the agent's own `better-sqlite3`, durable through `kill -9`
 * and restarts with no server to run (write-ahead log, `synchronous = FULL`: a commit is on disk when it returns).
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
  close(): void;
}
type DatabaseClass = new (file: string, options: { timeout: number }) => Database;

export const STATE_FILE = 'adcp-state.sqlite';

export function openSqlite(dir: string | ':memory:'): Sql {
  const memory = dir === ':memory:';
  const where = memory ? 'the memory store' : `the state directory ${dir}`;
  const Database = agentPackage<DatabaseClass>('better-sqlite3', memory ? 'the memory store' : 'the embedded store (ADCP_STATE_DIR)');
  let db: Database;
  try {
    if (!memory) ownDirectory(dir);
    // Another process writing the same file holds its lock briefly: wait up to 5 s rather than fail the call.
    db = new Database(memory ? ':memory:' : join(dir, STATE_FILE), { timeout: 5_000 });
    if (!memory) db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
  } catch (e) {
    throw new StoreUnavailable(where, e);
  }
  const statements = new Map<string, Statement>();
  const prepared = (text: string): Statement => {
    let s = statements.get(text);
    if (s === undefined) statements.set(text, (s = db.prepare(text.replace(/\$(\d+)/g, '@p$1'))));
    return s;
  };
  const query = async (text: string, params: readonly unknown[] = []): Promise<SqlResult> => {
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
  return {
    dialect: 'sqlite',
    where,
    durable: !memory,
    query,
    // A writing statement begins SQLite's write transaction before it reads, across processes too: it is its own lock.
    queryExclusive: (_lock, text, params) => query(text, params),
    async migrate(ddl) {
      try {
        db.transaction(() => ddl.forEach((statement) => db.exec(statement)))();
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
 * The state directory, created private (0700) when missing. One another user owns is refused: what it holds decides
 * replays, so it must be this user's alone.
 */
function ownDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (!st.isDirectory()) throw new Error('not a directory');
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw new Error(`owned by another user (uid ${st.uid})`);
}

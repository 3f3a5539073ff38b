import { agentPackage } from '../artifacts/packages.js';
import { WARNINGS, type RuntimeLog } from '../ops/log.js';
import { reasonOf, StoreUnavailable, type Sql } from './sql.js';

/**
 * A PostgreSQL server every instance of the agent shares (`DATABASE_URL`), through the agent's own `pg` package: one
 * pool per process. A connection lost is the pool's to replace; an idle client's error is logged, never thrown at
 * the process (pg re-emits it on the pool, and an unhandled 'error' event would crash it).
 */

interface PgPool {
  query(text: string, params?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  connect(): Promise<PgClient>;
  on(event: 'error', listener: (e: unknown) => void): void;
  end(): Promise<void>;
}
interface PgClient {
  query(text: string, params?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
  release(error?: unknown): void;
}
interface PgModule {
  Pool: new (config: Record<string, unknown>) => PgPool;
}

/** Where a URL points, for messages: host, port and database, never the user's password. */
export function postgresWhere(url: string): string {
  try {
    const u = new URL(url);
    return `PostgreSQL at ${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname.length > 1 ? u.pathname : ''}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

/** A lock id of the agent's own for migrations (any constant: two instances starting together migrate one at a time). */
const MIGRATION_LOCK = 7_247_116_901;
/**
 * The class of the agent's named exclusive locks (`queryExclusive`): the two-key advisory locks, a key space apart from
 * the one-key MIGRATION_LOCK's, the name hashed into the second key.
 */
const EXCLUSIVE_CLASS = 9421;

export function openPostgres(url: string, options: { poolSize?: number; connectTimeoutMs?: number; statementTimeoutMs?: number; log?: RuntimeLog } = {}): Sql {
  const where = postgresWhere(url);
  const { Pool } = agentPackage<PgModule>('pg', 'a DATABASE_URL store (PostgreSQL)');
  const pool = new Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    idleTimeoutMillis: 30_000,
    // A statement the server cannot finish in time fails the call it serves (transient), rather than holding it.
    statement_timeout: options.statementTimeoutMs ?? 10_000,
    application_name: 'adcp-agent',
  });
  const log = options.log ?? WARNINGS;
  pool.on('error', (e) => log.warn('store_connection_lost', `adcp-codegen: ${where}: an idle connection failed: ${reasonOf(e)}`, { store: where }));
  return {
    dialect: 'postgres',
    where,
    durable: true,
    async query(text, params = []) {
      try {
        const r = await pool.query(text, params);
        return { rows: r.rows, rowCount: r.rowCount ?? r.rows.length };
      } catch (e) {
        throw new StoreUnavailable(where, e);
      }
    },
    async transaction(fn) {
      let client: PgClient;
      try {
        client = await pool.connect();
      } catch (e) {
        throw new StoreUnavailable(where, e);
      }
      try {
        await client.query('BEGIN');
      } catch (e) {
        client.release(e);
        throw new StoreUnavailable(where, e);
      }
      const tx = {
        dialect: 'postgres' as const,
        async query(text: string, params: readonly unknown[] = []) {
          try {
            const r = await client.query(text, params);
            return { rows: r.rows, rowCount: r.rowCount ?? r.rows.length };
          } catch (e) {
            throw new StoreUnavailable(where, e);
          }
        },
      };
      try {
        const value = await fn(tx);
        await tx.query('COMMIT');
        client.release();
        return value;
      } catch (e) {
        const rolledBack = await client.query('ROLLBACK').then(() => true, () => false);
        // A connection whose transaction could not be ended is not given back to the pool.
        client.release(rolledBack ? undefined : e);
        throw e;
      }
    },
    // The lock is taken first in the statement's own transaction, so its snapshot holds every write committed under
    // the lock before it.
    queryExclusive(lock, text, params = []) {
      return this.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [EXCLUSIVE_CLASS, lock]);
        return tx.query(text, params);
      });
    },
    // Under an advisory lock, in one transaction: instances starting together migrate one after the other.
    migrate(statements) {
      return this.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        for (const statement of statements) await tx.query(statement);
      });
    },
    close: () => pool.end(),
  };
}

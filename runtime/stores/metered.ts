import { instrumentsOf, otel } from '../ops/otel.js';
import { StoreUnavailable, type Sql, type SqlQuery } from './sql.js';

/**
 * The store as the services use it, each failure counted on `adcp.store.errors` (by dialect) when a meter provider
 * is registered (ops/otel.ts): an unreachable database, a statement refused. What a failure means for the call it
 * served is the service's to say (SERVICE_UNAVAILABLE, a warning); this only counts.
 */
export function metered(sql: Sql): Sql {
  const count = (e: unknown): never => {
    const o = e instanceof StoreUnavailable ? otel() : undefined;
    if (o?.metering === true) instrumentsOf(o.api).storeErrors.add(1, { 'adcp.store.dialect': sql.dialect });
    throw e;
  };
  const counting = <T>(p: Promise<T>): Promise<T> => p.catch(count);
  return {
    dialect: sql.dialect,
    where: sql.where,
    durable: sql.durable,
    query: (text, params) => counting(sql.query(text, params)),
    // A statement failing inside a transaction fails the transaction: counted once, there.
    transaction: <T>(fn: (tx: SqlQuery) => Promise<T>) => counting(sql.transaction(fn)),
    queryExclusive: (lock, text, params) => counting(sql.queryExclusive(lock, text, params)),
    migrate: (statements) => counting(sql.migrate(statements)),
    close: () => sql.close(),
  };
}

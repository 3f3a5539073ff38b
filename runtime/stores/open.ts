import { homedir } from 'node:os';
import { join } from 'node:path';
import type { StoreOption } from '../api/service-types.js';
import { SCHEMA } from './schema.js';
import { openPostgres } from './postgres.js';
import { StoreUnavailable, type Sql } from './sql.js';
import { openSqlite } from './sqlite.js';

/**
 * The agent's store, opened once, on first need (a call that needs it, or `agent.ready()` at start), its tables
 * created then. Which store: the option, else `DATABASE_URL` (PostgreSQL, shared by every instance), else the embedded
 * store in `ADCP_STATE_DIR` or this user's state directory — never memory unless named.
 */
export interface Store {
  /** The open, migrated store; the same promise for every caller. Rejects with a StoreUnavailable naming where. */
  open(): Promise<Sql>;
  close(): Promise<void>;
}

export function lazyStore(option: StoreOption | undefined, profile: string, env: NodeJS.ProcessEnv = process.env): Store {
  let opening: Promise<Sql> | undefined;
  return {
    open() {
      opening ??= (async () => {
        const sql = chooseStore(option, profile, env);
        await sql.migrate(SCHEMA);
        return sql;
      })();
      // A failed open is tried again by the next caller (a database that comes back), not remembered for good.
      opening.catch(() => (opening = undefined));
      return opening;
    },
    async close() {
      const open = opening;
      opening = undefined;
      if (open !== undefined) await (await open.catch(() => undefined))?.close();
    },
  };
}

function chooseStore(option: StoreOption | undefined, profile: string, env: NodeJS.ProcessEnv): Sql {
  try {
    if (option === 'memory') return openSqlite(':memory:');
    if (option !== undefined && 'url' in option) return openPostgres(option.url);
    const sync = env.ADCP_STATE_SYNC === 'full' ? 'full' : 'normal';
    if (option !== undefined && 'stateDir' in option) return openSqlite(option.stateDir, option.synchronous ?? sync);
    if (env.DATABASE_URL !== undefined && env.DATABASE_URL !== '') return openPostgres(env.DATABASE_URL);
    return openSqlite(env.ADCP_STATE_DIR !== undefined && env.ADCP_STATE_DIR !== '' ? env.ADCP_STATE_DIR : defaultStateDir(profile, env), sync);
  } catch (e) {
    if (e instanceof StoreUnavailable) throw e;
    throw new StoreUnavailable('the store', e);
  }
}

/** `$XDG_STATE_HOME/adcp-agent/<profile>`, else `~/.local/state/adcp-agent/<profile>`: this user's, outside any repository. */
export function defaultStateDir(profile: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state');
  return join(base, 'adcp-agent', profile);
}

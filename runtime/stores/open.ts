import { homedir } from 'node:os';
import { join } from 'node:path';
import type { StoreOption } from '../api/service-types.js';
import { WARNINGS, type RuntimeLog } from '../ops/log.js';
import { metered } from './metered.js';
import { SCHEMA } from './schema.js';
import { openPostgres, postgresWhere } from './postgres.js';
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
  /** Where the data lives (`PostgreSQL at host:port/db`, never the password; the state directory), without opening it. */
  readonly where: string;
  /** The log of the agent the store serves: the services over it report their faults there. */
  readonly log: RuntimeLog;
}

export function lazyStore(option: StoreOption | undefined, profile: string, env: NodeJS.ProcessEnv = process.env, log: RuntimeLog = WARNINGS): Store {
  let opening: Promise<Sql> | undefined;
  return {
    where: whereOf(option, profile, env),
    log,
    open() {
      opening ??= (async () => {
        const sql = metered(chooseStore(option, profile, env, log));
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

/** Which store the option and the environment name: PostgreSQL's URL, or the embedded store's directory (or memory). */
function chosen(option: StoreOption | undefined, profile: string, env: NodeJS.ProcessEnv): { url: string } | { dir: string | ':memory:'; sync: 'normal' | 'full' } {
  if (option === 'memory') return { dir: ':memory:', sync: 'normal' };
  if (option !== undefined && 'url' in option) return { url: option.url };
  const sync = env.ADCP_STATE_SYNC === 'full' ? 'full' : 'normal';
  if (option !== undefined && 'stateDir' in option) return { dir: option.stateDir, sync: option.synchronous ?? sync };
  if (env.DATABASE_URL !== undefined && env.DATABASE_URL !== '') return { url: env.DATABASE_URL };
  return { dir: env.ADCP_STATE_DIR !== undefined && env.ADCP_STATE_DIR !== '' ? env.ADCP_STATE_DIR : defaultStateDir(profile, env), sync };
}

function chooseStore(option: StoreOption | undefined, profile: string, env: NodeJS.ProcessEnv, log: RuntimeLog): Sql {
  try {
    const c = chosen(option, profile, env);
    return 'url' in c ? openPostgres(c.url, { log }) : openSqlite(c.dir, c.sync);
  } catch (e) {
    if (e instanceof StoreUnavailable) throw e;
    throw new StoreUnavailable('the store', e);
  }
}

function whereOf(option: StoreOption | undefined, profile: string, env: NodeJS.ProcessEnv): string {
  const c = chosen(option, profile, env);
  return 'url' in c ? postgresWhere(c.url) : c.dir === ':memory:' ? 'the memory store' : `SQLite in ${c.dir}`;
}

/** `$XDG_STATE_HOME/adcp-agent/<profile>`, else `~/.local/state/adcp-agent/<profile>`: this user's, outside any repository. */
export function defaultStateDir(profile: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME !== undefined && env.XDG_STATE_HOME.startsWith('/') ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state');
  return join(base, 'adcp-agent', profile);
}

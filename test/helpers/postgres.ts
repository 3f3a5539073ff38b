import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, existsSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import pg from 'pg';
import { removeTempDir, systemTempDir, tempDir } from './temp.js';

/**
 * A real PostgreSQL server for a test: Debian's `postgresql-15` server binaries, a fresh cluster in a tempDir()
 * (test/helpers/temp.ts), listening on 127.0.0.1 only, on a free port, with password (scram-sha-256) authentication
 * for a random superuser with a random password. Nothing is mocked or embedded.
 *
 * Durability is traded for speed (fsync, synchronous_commit and full_page_writes off): what a test kills is the
 * agent under test, never PostgreSQL.
 *
 * PostgreSQL refuses to run as root: as root, initdb, pg_ctl and the server run as the `postgres` system user the
 * Debian package creates (`runuser -u postgres --`); the cluster's directory is given to it, and the test run's
 * scratch directory (mode 0700 from mkdtemp) gains o+x, search only, so it can reach it. Otherwise they run as the
 * current user.
 *
 * `stop()` shuts the server down (`pg_ctl stop -m fast`) and removes its directory. A server a test did not stop is
 * stopped (`pg_ctl stop -m immediate`) when the process exits, before temp.ts removes the directories, and the run
 * fails as it does for a temp dir left behind; SIGINT,
 * SIGTERM and SIGHUP make the process exit so that happens too (pg_ctl puts the postmaster in a session of its own,
 * so it would otherwise outlive a ^C).
 *
 * The password never appears in what this module prints or throws; an error may name host:port and the directory.
 */
export interface PostgresServer {
  /** postgres://user:password@127.0.0.1:port/database */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly database: string;
  readonly user: string;
  readonly password: string;
  /** The cluster's directory (the tempDir holding the data directory, the socket and the log). Gone after stop(). */
  readonly dir: string;
  /** Stops the server (fast shutdown) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
  /** Stops the server and keeps its data (a database outage); `resume()` starts it again on the same port. */
  halt(): Promise<void>;
  resume(): Promise<void>;
}

export interface StartPostgresOptions {
  /** The database created for the test (default `adcp_test`): letters, digits and underscores. */
  readonly name?: string;
}

const HOST = '127.0.0.1';
const DEFAULT_DATABASE = 'adcp_test';
const START_ATTEMPTS = 5;

interface Binaries {
  readonly dir: string;
  readonly initdb: string;
  readonly pgCtl: string;
}

/** Who runs the server: the current user, or (as root) the `postgres` user through runuser. */
interface RunAs {
  readonly runuser?: string;
  readonly uid?: number;
  readonly gid?: number;
  readonly groups?: readonly number[];
}

/** A started server the exit handler stops if the test did not. */
interface Live {
  readonly dataDir: string;
  label: string;
  pid?: number;
}

const live = new Set<Live>();
let binaries: Binaries | undefined;
let runAs: RunAs | undefined;
let exitHooked = false;

function findBinaries(): Binaries {
  if (binaries !== undefined) return binaries;
  const holds = (dir: string): boolean => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')) && existsSync(join(dir, 'postgres'));
  const looked: string[] = [];
  let dir: string | undefined;
  try {
    const bindir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    looked.push(`\`pg_config --bindir\` (${bindir})`);
    if (bindir !== '' && holds(bindir)) dir = bindir;
  } catch {
    looked.push('`pg_config --bindir` (no pg_config)');
  }
  if (dir === undefined) {
    const root = '/usr/lib/postgresql';
    let versions: string[] = [];
    try {
      versions = readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v));
    } catch {
      /* no PostgreSQL installed */
    }
    versions.sort((a, b) => Number(b) - Number(a));
    dir = versions.map((v) => join(root, v, 'bin')).find(holds);
    looked.push(`${root}/*/bin`);
  }
  if (dir === undefined) {
    throw new Error(`PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in ${looked.join(' nor ')}: install Debian's postgresql-15 (apt-get install --no-install-recommends postgresql-15)`);
  }
  binaries = { dir, initdb: join(dir, 'initdb'), pgCtl: join(dir, 'pg_ctl') };
  return binaries;
}

function whoRuns(): RunAs {
  if (runAs !== undefined) return runAs;
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return (runAs = {});
  const id = (flag: string): string => {
    try {
      return execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      throw new Error('running as root, and PostgreSQL refuses root, but there is no `postgres` system user to run it as: install Debian\'s postgresql-15, which creates it');
    }
  };
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser', '/bin/runuser'].find((p) => existsSync(p));
  if (runuser === undefined) throw new Error('running as root, and PostgreSQL refuses root, but runuser (util-linux) is missing to run it as the `postgres` user');
  runAs = { runuser, uid: Number(id('-u')), gid: Number(id('-g')), groups: id('-G').split(/\s+/).map(Number) };
  return runAs;
}

/** The command line that runs a PostgreSQL binary as whoever runs the server. */
function command(who: RunAs, bin: string, args: readonly string[]): [string, string[]] {
  return who.runuser === undefined ? [bin, [...args]] : [who.runuser, ['-u', 'postgres', '--', bin, ...args]];
}

interface Ran {
  readonly code: number;
  readonly output: string;
}

function run(who: RunAs, bin: string, args: readonly string[], cwd: string): Promise<Ran> {
  const [file, argv] = command(who, bin, args);
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal !== null ? 1 : 0), output }));
  });
}

/** The last lines of a text (a command's output, the server log) for an error message. */
function tail(text: string, lines = 8): string {
  const kept = text.trim().split('\n').slice(-lines);
  return kept.length === 0 || kept[0] === '' ? '' : `\n  ${kept.join('\n  ')}`;
}

/**
 * Lets the `postgres` user reach `dir`: every ancestor it cannot search that belongs to the test run gains o+x
 * (search, not listing; those directories are removed at exit). The run's are its scratch directories, temp.ts's
 * `adcp-test-run-*`, and what is inside them: nested ones too, since a runner that imports temp.ts (test/real/run.ts)
 * hands its children a TMPDIR inside its own scratch, so a child's systemTempDir is the runner's scratch. An ancestor
 * above them it cannot search is not ours to change: that is an error.
 */
function letReach(who: RunAs, dir: string): void {
  const canSearch = (path: string): boolean => {
    const s = statSync(path);
    if (s.uid === who.uid) return (s.mode & 0o100) !== 0;
    if (s.gid === who.gid || who.groups!.includes(s.gid)) return (s.mode & 0o010) !== 0;
    return (s.mode & 0o001) !== 0;
  };
  const inside = (root: string, path: string): boolean => {
    const rel = relative(root, path);
    return !rel.startsWith('..') && !isAbsolute(rel);
  };
  let outermost: string | undefined;
  for (let p = dir; dirname(p) !== p; p = dirname(p)) if (basename(p).startsWith('adcp-test-run-')) outermost = p;
  const ours = (path: string): boolean => (outermost !== undefined && inside(outermost, path)) || (path !== systemTempDir && inside(systemTempDir, path));
  const ancestors: string[] = [];
  for (let p = dirname(dir); ; p = dirname(p)) {
    ancestors.push(p);
    if (dirname(p) === p) break;
  }
  for (const p of ancestors.reverse()) {
    if (canSearch(p)) continue;
    if (!ours(p)) throw new Error(`the postgres user cannot reach ${dir}: ${p} is not searchable by it (mode ${(statSync(p).mode & 0o777).toString(8)}); point TMPDIR at a directory it can reach, such as /tmp`);
    chmodSync(p, (statSync(p).mode & 0o7777) | 0o001);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port on 127.0.0.1'))));
    });
  });
}

function identifier(name: string, what: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) throw new Error(`${what} ${JSON.stringify(name)}: letters, digits and underscores, at most 63, not starting with a digit`);
  return name;
}

function urlOf(user: string, password: string, port: number, database: string): string {
  return `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@${HOST}:${port}/${encodeURIComponent(database)}`;
}

function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Stops a server synchronously, as an exit handler must: immediate shutdown, then SIGKILL if that did not work. */
function stopNow(server: Live): void {
  const who = whoRuns();
  const [file, argv] = command(who, findBinaries().pgCtl, ['stop', '-D', server.dataDir, '-m', 'immediate', '-w', '-t', '10']);
  if (existsSync(join(server.dataDir, 'postmaster.pid'))) spawnSync(file, argv, { stdio: 'ignore', cwd: '/', timeout: 15_000 });
  const pid = server.pid;
  if (pid !== undefined && alive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone meanwhile */
    }
  }
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  // Before temp.ts's own exit handler, which removes the directories the servers run in.
  process.prependListener('exit', () => {
    for (const server of [...live]) {
      process.stderr.write(`\npostgres: a server the tests did not stop, stopped at exit: ${server.label}\n`);
      if (!process.exitCode) process.exitCode = 1;
      stopNow(server);
      live.delete(server);
    }
  });
  // A ^C or a kill would skip 'exit', and the postmaster (a session of its own) would outlive the run.
  const numbers: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
  for (const [signal, n] of Object.entries(numbers)) process.once(signal, () => process.exit(128 + n));
}

async function connectWithin(config: pg.ClientConfig, ms: number, label: string): Promise<pg.Client> {
  const deadline = Date.now() + ms;
  for (;;) {
    const client = new pg.Client({ ...config, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      return client;
    } catch (e) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`postgres at ${label} accepts no connection: ${(e as Error).message}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Starts a PostgreSQL server of its own for a test, with one database (`options.name`, default `adcp_test`). */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresServer> {
  const database = identifier(options.name ?? DEFAULT_DATABASE, 'database name');
  const bins = findBinaries();
  const who = whoRuns();
  const dir = tempDir('adcp-postgres-');
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const user = `adcp_${randomBytes(6).toString('hex')}`;
  const password = randomBytes(24).toString('base64url');
  let server: Live | undefined;
  try {
    if (who.uid !== undefined) {
      chownSync(dir, who.uid, who.gid!);
      letReach(who, dir);
    }

    // The password reaches initdb through a file only the server's user can read, removed right after.
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (who.uid !== undefined) chownSync(pwfile, who.uid, who.gid!);
    const init = await run(who, bins.initdb, ['-D', dataDir, `--username=${user}`, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-sync', '--no-instructions'], dir);
    unlinkSync(pwfile);
    if (init.code !== 0) throw new Error(`initdb failed (exit ${init.code}) in ${dataDir}:${tail(init.output)}`);

    const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;
    appendFileSync(
      join(dataDir, 'postgresql.conf'),
      [
        '',
        '# test/helpers/postgres.ts',
        `listen_addresses = ${quote(HOST)}`,
        `unix_socket_directories = ${quote(dir)}`,
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        'max_connections = 100',
        '',
      ].join('\n'),
    );

    server = { dataDir, label: dir };
    live.add(server);
    hookExit();

    let port = 0;
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      // Truncated per attempt; owned by the server's user, which pg_ctl opens it as.
      writeFileSync(logFile, '');
      if (who.uid !== undefined) chownSync(logFile, who.uid, who.gid!);
      const started = await run(who, bins.pgCtl, ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '30', '-o', `-p ${port}`], dir);
      server.pid = postmasterPid(dataDir);
      if (started.code === 0) break;
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
      if (server.pid !== undefined) {
        // pg_ctl gave up on a postmaster that may still come up: not one to leave behind.
        stopNow(server);
        server.pid = undefined;
      }
      const collided = /could not bind|Address already in use|could not create any TCP\/IP sockets/i.test(log);
      if (!collided || attempt === START_ATTEMPTS) throw new Error(`pg_ctl start failed (exit ${started.code}) for ${HOST}:${port}, data dir ${dataDir}:${tail(started.output, 3)}${tail(log)}`);
    }

    const label = `${HOST}:${port} (${dataDir})`;
    server.label = label;
    const admin = await connectWithin({ host: HOST, port, user, password, database: 'postgres' }, 15_000, label);
    try {
      await admin.query(`CREATE DATABASE "${database}"`);
    } finally {
      await admin.end();
    }

    const running = server;
    let stopping: Promise<void> | undefined;
    return {
      url: urlOf(user, password, port, database),
      host: HOST,
      port,
      database,
      user,
      password,
      dir,
      stop: () => (stopping ??= stop(running, who, bins, dir, label)),
      async halt() {
        const r = await run(who, bins.pgCtl, ['stop', '-D', dataDir, '-m', 'fast', '-w', '-t', '30'], dir);
        if (r.code !== 0) throw new Error(`pg_ctl stop failed (exit ${r.code}) for ${label}:${tail(r.output, 3)}`);
      },
      async resume() {
        const r = await run(who, bins.pgCtl, ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '30', '-o', `-p ${port}`], dir);
        running.pid = postmasterPid(dataDir);
        if (r.code !== 0) throw new Error(`pg_ctl start failed (exit ${r.code}) for ${label}:${tail(r.output, 3)}`);
      },
    };
  } catch (e) {
    if (server !== undefined && live.delete(server)) stopNow(server);
    removeTempDir(dir);
    throw e;
  }
}

async function stop(server: Live, who: RunAs, bins: Binaries, dir: string, label: string): Promise<void> {
  try {
    if (!live.has(server)) return;
    const stopped = await run(who, bins.pgCtl, ['stop', '-D', server.dataDir, '-m', 'fast', '-w', '-t', '30'], dir);
    if (stopped.code !== 0) {
      stopNow(server);
      live.delete(server);
      throw new Error(`pg_ctl stop failed (exit ${stopped.code}) for ${label}; stopped it immediately instead:${tail(stopped.output, 3)}`);
    }
    live.delete(server);
  } finally {
    removeTempDir(dir);
  }
}

/** Creates a fresh database on the server (so tests sharing a server keep their data apart); its URL. */
export async function createDatabase(server: PostgresServer, name: string): Promise<string> {
  const database = identifier(name, 'database name');
  const admin = await connectWithin({ host: server.host, port: server.port, user: server.user, password: server.password, database: 'postgres' }, 5_000, `${server.host}:${server.port}`);
  try {
    await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  return urlOf(server.user, server.password, server.port, database);
}

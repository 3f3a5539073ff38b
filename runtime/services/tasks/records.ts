import type { SqlQuery } from '../../stores/sql.js';

/**
 * The tasks table's statements (stores/schema.ts), the same text on PostgreSQL and SQLite. A terminal task is never
 * changed again: every update is guarded by the status it moves from.
 */

export interface TaskRecord {
  readonly taskId: string;
  readonly scope: string;
  readonly account: string;
  readonly taskType: string;
  readonly protocol: string;
  readonly release: string;
  readonly shape: string;
  readonly status: string;
  readonly request: Record<string, unknown>;
  readonly push: Record<string, unknown> | null;
  readonly progress: Record<string, unknown> | null;
  readonly result: Record<string, unknown> | null;
  readonly error: Record<string, unknown> | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly completedAt: number | null;
}

export const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'canceled', 'rejected']);

const COLUMNS = 'task_id, scope, account, task_type, protocol, release, shape, status, request, push, progress, result, error, created_at, updated_at, completed_at';
const INSERT = `INSERT INTO adcp_tasks (${COLUMNS}, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, NULL, NULL, $11, $11, NULL, $12)
ON CONFLICT (task_id) DO NOTHING RETURNING task_id`;
const READ = `SELECT ${COLUMNS} FROM adcp_tasks WHERE task_id = $1`;
const SETTLE = `UPDATE adcp_tasks SET status = $2, result = $3, error = $4, updated_at = $5, completed_at = $5, expires_at = $6
WHERE task_id = $1 AND status NOT IN ('completed', 'failed', 'canceled', 'rejected') RETURNING task_id`;
const PROGRESS = `UPDATE adcp_tasks SET status = $2, progress = $3, updated_at = $4, expires_at = $5
WHERE task_id = $1 AND status NOT IN ('completed', 'failed', 'canceled', 'rejected') RETURNING task_id`;
const PURGE = 'DELETE FROM adcp_tasks WHERE expires_at < $1';

export async function insertTask(sql: SqlQuery, r: Omit<TaskRecord, 'progress' | 'result' | 'error' | 'updatedAt' | 'completedAt'>, expiresAt: number): Promise<boolean> {
  const out = await sql.query(INSERT, [
    r.taskId,
    r.scope,
    r.account,
    r.taskType,
    r.protocol,
    r.release,
    r.shape,
    r.status,
    JSON.stringify(r.request),
    r.push === null ? null : JSON.stringify(r.push),
    r.createdAt,
    expiresAt,
  ]);
  return out.rowCount > 0;
}

export async function readTask(sql: SqlQuery, taskId: string): Promise<TaskRecord | undefined> {
  const row = (await sql.query(READ, [taskId])).rows[0];
  return row === undefined ? undefined : recordOf(row);
}

/** Moves a task to a terminal status with its result or error; false when it already was terminal (or is gone). */
export async function settleTask(sql: SqlQuery, taskId: string, status: string, result: unknown, error: unknown, now: number, expiresAt: number): Promise<boolean> {
  const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));
  return (await sql.query(SETTLE, [taskId, status, json(result), json(error), now, expiresAt])).rowCount > 0;
}

export async function progressTask(sql: SqlQuery, taskId: string, status: string, progress: unknown, now: number, expiresAt: number): Promise<boolean> {
  return (await sql.query(PROGRESS, [taskId, status, progress === undefined ? null : JSON.stringify(progress), now, expiresAt])).rowCount > 0;
}

/** The tasks of one scope, newest first, for list_tasks to filter (bounded: a page never reads more). */
export async function scopeTasks(sql: SqlQuery, scope: string, limit: number): Promise<TaskRecord[]> {
  const rows = (await sql.query(`SELECT ${COLUMNS} FROM adcp_tasks WHERE scope = $1 ORDER BY created_at DESC LIMIT $2`, [scope, limit])).rows;
  return rows.map(recordOf);
}

export async function purgeTasks(sql: SqlQuery, before: number): Promise<number> {
  return (await sql.query(PURGE, [before])).rowCount;
}

function recordOf(row: Record<string, unknown>): TaskRecord {
  const json = (v: unknown): Record<string, unknown> | null => (v === null || v === undefined ? null : (JSON.parse(String(v)) as Record<string, unknown>));
  return {
    taskId: String(row.task_id),
    scope: String(row.scope),
    account: String(row.account),
    taskType: String(row.task_type),
    protocol: String(row.protocol),
    release: String(row.release),
    shape: String(row.shape),
    status: String(row.status),
    request: json(row.request) ?? {},
    push: json(row.push),
    progress: json(row.progress),
    result: json(row.result),
    error: json(row.error),
    // PostgreSQL answers BIGINT as a string.
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    completedAt: row.completed_at === null || row.completed_at === undefined ? null : Number(row.completed_at),
  };
}

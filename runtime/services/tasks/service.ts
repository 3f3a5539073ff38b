import { randomUUID } from 'node:crypto';
import type { TaskHandle } from '../../api/agent-types.js';
import type { Store } from '../../stores/open.js';
import type { Sql } from '../../stores/sql.js';
import { accountScope } from '../account-scope.js';
import { insertTask, progressTask, purgeTasks, readTask, scopeTasks, settleTask, TERMINAL, type TaskRecord } from './records.js';

/**
 * Async tasks (L3/async-operations.mdx): a handler that cannot finish in the call answers `submitted`; the runtime
 * keeps the task in the agent's store (so every instance, and a restart, sees it), serves its reads
 * (get_task_status, list_tasks) and, when it settles, hands it to whoever must tell the buyer (its webhook).
 */

export interface TaskOrigin {
  /** The authenticated agent that asked ('' when unauthenticated): only it reads the task. */
  readonly principal: string;
  /** The request's `account` (its scope: a read naming another account does not find the task). */
  readonly account: unknown;
  readonly taskType: string;
  /** The tool's AdCP protocol (`media-buy`), as get_task_status reports it. */
  readonly protocol: string;
  /** The release the buyer pinned, and the one the handler is written in. */
  readonly release: string;
  readonly shape: string;
  /** The request as parsed (its `context` is echoed on the task's webhook; `push_notification_config` registers it). */
  readonly request: Record<string, unknown>;
}

export interface TasksService {
  create(origin: TaskOrigin, options?: { taskId?: string }): Promise<TaskHandle>;
  /** A handle on an existing task by id (a worker or another instance finishing it). */
  handle(taskId: string): TaskHandle;
  /** The task, when `principal` may read it (and, when given, it belongs to `account`). */
  read(taskId: string, principal: string, account?: unknown): Promise<TaskRecord | undefined>;
  /** The principal's tasks (in `account` when given), newest first, at most `limit`. */
  list(principal: string, account: unknown, limit: number): Promise<TaskRecord[]>;
  /** Called with each task as it becomes terminal (its result already converted for the buyer's release). */
  onSettled(listener: (task: TaskRecord, sql: Sql) => Promise<void> | void): void;
}

export interface TaskSettings {
  /** How long a task stays readable after its last change (default 7 days). */
  readonly retentionSeconds?: number;
  /** The handler's result as the buyer's release reads it (conversions), or a throw for a result its release refuses. */
  readonly resultFor: (task: TaskRecord, result: Record<string, unknown>) => Record<string, unknown>;
}

const DEFAULT_RETENTION_S = 7 * 24 * 3600;
const PURGE_EVERY_MS = 3_600_000;

export function tasksService(store: Store, settings: TaskSettings): TasksService {
  const retentionMs = (settings.retentionSeconds ?? DEFAULT_RETENTION_S) * 1000;
  const listeners: ((task: TaskRecord, sql: Sql) => Promise<void> | void)[] = [];
  let purged = 0;
  const open = async (): Promise<Sql> => {
    const sql = await store.open();
    const now = Date.now();
    if (now - purged > PURGE_EVERY_MS) {
      purged = now;
      purgeTasks(sql, now).catch((e) => process.emitWarning(`adcp-codegen: task purge: ${String(e)}`));
    }
    return sql;
  };
  const settle = async (taskId: string, status: string, result: Record<string, unknown> | undefined, error: Record<string, unknown> | undefined): Promise<boolean> => {
    const sql = await open();
    const task = await readTask(sql, taskId);
    if (task === undefined || TERMINAL.has(task.status)) return false;
    const converted = result === undefined ? undefined : settings.resultFor(task, result);
    const now = Date.now();
    if (!(await settleTask(sql, taskId, status, converted, error, now, now + retentionMs))) return false;
    const settled = (await readTask(sql, taskId))!;
    for (const listener of listeners) await listener(settled, sql);
    return true;
  };
  const handle = (taskId: string): TaskHandle => ({
    taskId,
    submitted: (message) => ({ status: 'submitted', task_id: taskId, ...(message !== undefined ? { message } : {}) }),
    async progress(progress, status = 'working') {
      const now = Date.now();
      return progressTask(await open(), taskId, status, progress, now, now + retentionMs);
    },
    complete: (result) => settle(taskId, 'completed', result, undefined),
    fail: (error, status = 'failed') => settle(taskId, status, undefined, error),
  });
  return {
    async create(origin, options = {}) {
      const taskId = options.taskId ?? `task_${randomUUID()}`;
      const push = origin.request.push_notification_config;
      const now = Date.now();
      const inserted = await insertTask(
        await open(),
        {
          taskId,
          scope: origin.principal,
          account: accountScope(origin.account),
          taskType: origin.taskType,
          protocol: origin.protocol,
          release: origin.release,
          shape: origin.shape,
          status: 'submitted',
          request: origin.request,
          push: push !== null && typeof push === 'object' && !Array.isArray(push) ? (push as Record<string, unknown>) : null,
          createdAt: now,
        },
        now + retentionMs,
      );
      if (!inserted) throw new Error(`adcp-codegen: a task ${taskId} exists already`);
      return handle(taskId);
    },
    handle,
    async read(taskId, principal, account) {
      const task = await readTask(await open(), taskId);
      if (task === undefined || task.scope !== principal) return undefined;
      if (account !== undefined && account !== null && task.account !== accountScope(account)) return undefined;
      return task;
    },
    async list(principal, account, limit) {
      const tasks = await scopeTasks(await open(), principal, limit);
      const scope = account === undefined || account === null ? undefined : accountScope(account);
      return scope === undefined ? tasks : tasks.filter((t) => t.account === scope);
    },
    onSettled: (listener) => void listeners.push(listener),
  };
}

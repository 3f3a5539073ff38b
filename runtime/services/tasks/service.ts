import { randomUUID } from 'node:crypto';
import type { TaskHandle } from '../../api/agent-types.js';
import type { Store } from '../../stores/open.js';
import type { Sql, SqlQuery } from '../../stores/sql.js';
import { accountScope } from '../account-scope.js';
import { insertTask, progressTask, purgeTasks, readTask, scopeTasks, settleTask, TERMINAL, type TaskRecord } from './records.js';

/**
 * Async tasks (L3/async-operations.mdx): a handler that cannot finish in the call answers `submitted`; the runtime
 * keeps the task in the agent's store (so every instance, and a restart, sees it), serves its reads
 * (get_task_status, list_tasks) and, when it settles, writes what must tell the buyer (its webhook, its A2A Task) in
 * the same transaction (TaskEffects).
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
  /** The A2A Task the call answers, when it came over A2A (its tasks/get shows the task's end). */
  readonly a2aTaskId?: string;
}

export interface TasksService {
  create(origin: TaskOrigin, options?: { taskId?: string }): Promise<TaskHandle>;
  /** A handle on an existing task by id (a worker or another instance finishing it). */
  handle(taskId: string): TaskHandle;
  /** The task, when `principal` may read it (and, when given, it belongs to `account`). */
  read(taskId: string, principal: string, account?: unknown): Promise<TaskRecord | undefined>;
  /** The principal's tasks (in `account` when given), newest first, at most `limit`. */
  list(principal: string, account: unknown, limit: number): Promise<TaskRecord[]>;
}

/**
 * What follows from a task's state, written in the same transaction as the state itself (Sql.transaction): a settled
 * task's webhook in the outbox, its A2A Task's end; a new task's link to its A2A Task. Committed together or not at
 * all; `committed` runs after the commit (the outbox's worker woken).
 */
export interface TaskEffects {
  /** The task as it is now terminal (its result converted for the buyer's release); true when it enqueued something. */
  settled(task: TaskRecord, tx: SqlQuery): Promise<boolean>;
  /** A task made by an A2A call, linked to that call's A2A Task. */
  linked(origin: TaskOrigin & { readonly a2aTaskId: string }, taskId: string, tx: SqlQuery): Promise<void>;
  /** After a settle that enqueued something committed. */
  committed(): void;
}

export interface TaskSettings {
  /** How long a task stays readable after its last change (default 7 days). */
  readonly retentionSeconds?: number;
  /** The handler's result as the buyer's release reads it (conversions), or a throw for a result its release refuses. */
  readonly resultFor: (task: TaskRecord, result: Record<string, unknown>) => Record<string, unknown>;
  readonly effects?: TaskEffects;
}

const DEFAULT_RETENTION_S = 7 * 24 * 3600;
const PURGE_EVERY_MS = 3_600_000;

export function tasksService(store: Store, settings: TaskSettings): TasksService {
  const retentionMs = (settings.retentionSeconds ?? DEFAULT_RETENTION_S) * 1000;
  let purged = 0;
  const open = async (): Promise<Sql> => {
    const sql = await store.open();
    const now = Date.now();
    if (now - purged > PURGE_EVERY_MS) {
      purged = now;
      purgeTasks(sql, now).catch((e) => store.log.warn('purge_failed', `adcp-codegen: task purge: ${String(e)}`));
    }
    return sql;
  };
  const settle = async (taskId: string, status: string, result: Record<string, unknown> | undefined, error: Record<string, unknown> | undefined): Promise<boolean> => {
    const sql = await open();
    const task = await readTask(sql, taskId);
    if (task === undefined || TERMINAL.has(task.status)) return false;
    const converted = result === undefined ? undefined : settings.resultFor(task, result);
    const now = Date.now();
    // The state change and what follows from it (its webhook, its A2A Task) in one transaction: a crash or a store
    // failure between them cannot leave a settled task whose buyer is never told.
    const outcome = await sql.transaction(async (tx) => {
      if (!(await settleTask(tx, taskId, status, converted, error, now, now + retentionMs))) return { settled: false, enqueued: false };
      const settled: TaskRecord = { ...task, status, result: converted ?? null, error: error ?? null, updatedAt: now, completedAt: now };
      return { settled: true, enqueued: (await settings.effects?.settled(settled, tx)) === true };
    });
    if (outcome.enqueued) settings.effects?.committed();
    return outcome.settled;
  };
  const handle = (taskId: string): TaskHandle => ({
    taskId,
    status: async () => (await readTask(await open(), taskId))?.status,
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
      const record = {
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
      };
      const sql = await open();
      const a2aTaskId = origin.a2aTaskId;
      const effects = settings.effects;
      const inserted =
        a2aTaskId === undefined || effects === undefined
          ? await insertTask(sql, record, now + retentionMs)
          : await sql.transaction(async (tx) => {
              if (!(await insertTask(tx, record, now + retentionMs))) return false;
              await effects.linked({ ...origin, a2aTaskId }, taskId, tx);
              return true;
            });
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
  };
}

import type { A2AStoredTask, A2ATaskStore } from '../../api/a2a-types.js';
import type { Store } from '../../stores/open.js';
import type { SqlQuery } from '../../stores/sql.js';
import { listPage, ownerOf } from './a2a-list.js';
import type { TaskRecord } from './records.js';
import { positiveOption } from '../../wire/options.js';

/**
 * The A2A server's Tasks in the agent's own store (table `adcp_a2a_tasks`): durable — a restarted agent, or another
 * instance sharing the store, answers tasks/get for a Task an earlier one made — and bounded, by age (a Task is kept
 * `ttlMs` after its last save; an older one is task-not-found at once) and by number (a purge, every so many saves
 * and at least every minute, keeps the newest `maxTasks`). Each Task belongs to the principal whose call saved it, as
 * in the in-memory store (transports/http/task-store.ts), which `a2a.taskStore` overrides and tests still use.
 *
 * An A2A call whose handler made an AdCP task (`ctx.task()`) is answered at once with the AdCP `submitted` body in a
 * completed A2A Task (AdCP's A2A profile); the AdCP task is linked to that Task, and when it settles — later, from
 * anywhere — the transaction that settles it records its end here, so a tasks/get over A2A then shows the task's
 * status and its answer as the Task's artifact.
 */
export interface DurableA2AStore extends A2ATaskStore {
  /** Links the A2A Task an A2A call answers to the AdCP task that call made (in the task's own transaction). */
  link(principal: string, a2aTaskId: string, adcpTaskId: string, tx: SqlQuery): Promise<void>;
  /** Rows held (linked placeholders included): tests and metrics. */
  count(): Promise<number>;
  /** Drops expired Tasks and all but the newest `maxTasks`; how many went. */
  purge(): Promise<number>;
}

export interface DurableA2AOptions {
  /** Default 10,000. */
  readonly maxTasks?: number;
  /** Default 24 hours. */
  readonly ttlMs?: number;
}

export const DURABLE_MAX_TASKS = 10_000;
export const DURABLE_TASK_TTL_MS = 24 * 3600 * 1000;
const PURGE_EVERY_MS = 60_000;

const SAVE = `INSERT INTO adcp_a2a_tasks (scope, task_id, task, adcp_task_id, settled, ttl_ms, saved_at, expires_at) VALUES ($1, $2, $3, NULL, NULL, $4, $5, $6)
ON CONFLICT (scope, task_id) DO UPDATE SET task = excluded.task, ttl_ms = excluded.ttl_ms, saved_at = excluded.saved_at, expires_at = excluded.expires_at`;
const LINK = `INSERT INTO adcp_a2a_tasks (scope, task_id, task, adcp_task_id, settled, ttl_ms, saved_at, expires_at) VALUES ($1, $2, NULL, $3, NULL, $4, $5, $6)
ON CONFLICT (scope, task_id) DO UPDATE SET adcp_task_id = excluded.adcp_task_id`;
const LOAD = 'SELECT task, settled FROM adcp_a2a_tasks WHERE scope = $1 AND task_id = $2 AND expires_at > $3 AND task IS NOT NULL';
const LIST = 'SELECT task, settled FROM adcp_a2a_tasks WHERE scope = $1 AND expires_at > $2 AND task IS NOT NULL ORDER BY saved_at DESC LIMIT $3';
const SETTLE = 'UPDATE adcp_a2a_tasks SET settled = $2, saved_at = $3, expires_at = $3 + ttl_ms WHERE adcp_task_id = $1';
const EXPIRED = 'DELETE FROM adcp_a2a_tasks WHERE expires_at <= $1';
const BEYOND = 'DELETE FROM adcp_a2a_tasks WHERE (scope, task_id) NOT IN (SELECT scope, task_id FROM adcp_a2a_tasks ORDER BY saved_at DESC, task_id DESC LIMIT $1)';
/** The most Tasks tasks/list reads per call before filtering. */
const LIST_READ_LIMIT = 1000;

export function durableA2AStore(store: Store, options: DurableA2AOptions = {}): DurableA2AStore {
  const maxTasks = positiveOption(options.maxTasks, DURABLE_MAX_TASKS, 'a2a.maxTasks', 'integer');
  const ttlMs = positiveOption(options.ttlMs, DURABLE_TASK_TTL_MS, 'a2a.taskTtlMs', 'integer');
  // A purge after a tenth of the bound's saves (so the table holds at most ~1.1 × maxTasks), or a minute.
  const purgeEvery = Math.max(1, Math.floor(maxTasks / 10));
  let saves = 0;
  let purgedAt = Date.now();
  const purge = async (): Promise<number> => {
    const sql = await store.open();
    const now = Date.now();
    saves = 0;
    purgedAt = now;
    return (await sql.query(EXPIRED, [now])).rowCount + (await sql.query(BEYOND, [maxTasks])).rowCount;
  };
  const read = (row: Record<string, unknown>): A2AStoredTask => withSettled(JSON.parse(String(row.task)) as A2AStoredTask, row.settled);
  return {
    async save(task, context) {
      const sql = await store.open();
      const now = Date.now();
      await sql.query(SAVE, [ownerOf(context), String(task.id), JSON.stringify(task), ttlMs, now, now + ttlMs]);
      if (++saves >= purgeEvery || now - purgedAt > PURGE_EVERY_MS) {
        purge().catch((e: unknown) => store.log.warn('purge_failed', `adcp-codegen: the A2A task store could not be purged: ${String(e)}`));
      }
    },
    async load(taskId, context) {
      const row = (await (await store.open()).query(LOAD, [ownerOf(context), String(taskId), Date.now()])).rows[0];
      return row === undefined ? undefined : read(row);
    },
    async list(params, context) {
      const rows = (await (await store.open()).query(LIST, [ownerOf(context), Date.now(), LIST_READ_LIMIT])).rows;
      return listPage(rows.map(read), params, (t) => t);
    },
    async link(principal, a2aTaskId, adcpTaskId, tx) {
      const now = Date.now();
      await tx.query(LINK, [principal, a2aTaskId, adcpTaskId, ttlMs, now, now + ttlMs]);
    },
    async count() {
      return Number((await (await store.open()).query('SELECT COUNT(*) AS n FROM adcp_a2a_tasks')).rows[0]!.n);
    },
    purge,
  };
}

/** What a settled AdCP task leaves on the A2A Task its call answered: its status, and its answer as the artifact. */
interface Settled {
  readonly state: string;
  readonly skill: string;
  readonly body: Record<string, unknown>;
  readonly text?: string;
  readonly at: string;
}

/**
 * In the transaction settling `task`: the end of the AdCP task on the A2A Task linked to it (none, when the task was
 * not made over A2A). The body is the answer the call would have given had it finished then: the result with the
 * request's `context`, or the AdCP error (`adcp_error`, `status: failed`) with a TextPart for humans.
 */
export async function settleLinked(tx: SqlQuery, task: TaskRecord): Promise<void> {
  const context = task.request.context;
  const echo = context !== undefined ? { context } : {};
  const failed = task.status !== 'completed';
  const body = failed ? { adcp_error: task.error ?? {}, ...echo, status: 'failed', adcp_version: task.release } : { ...(task.result ?? {}), ...echo };
  const text = failed ? `${String(task.error?.code ?? task.status)}: ${String(task.error?.message ?? '')}` : undefined;
  const settled: Settled = { state: task.status, skill: task.taskType, body, ...(text !== undefined ? { text } : {}), at: new Date(task.updatedAt).toISOString() };
  await tx.query(SETTLE, [task.taskId, JSON.stringify(settled), task.updatedAt]);
}

/** A2A 1.0 TaskState values (the 1.x SDK's protobuf enum). */
const V1_STATE: Readonly<Record<string, number>> = { completed: 3, failed: 4, canceled: 5, rejected: 7 };

/** The Task as the SDK saved it, with the linked AdCP task's end over it (in the Task's own dialect), if it has one. */
function withSettled(task: A2AStoredTask, column: unknown): A2AStoredTask {
  if (typeof column !== 'string') return task;
  const s = JSON.parse(column) as Settled;
  const status = task.status as { state?: unknown } | undefined;
  const artifactId = `${task.id}-${s.state === 'completed' ? 'result' : 'error'}`;
  if (typeof status?.state === 'number') {
    // 1.x: protobuf-shaped parts and a numeric state.
    const part = (content: Record<string, unknown>, mediaType: string) => ({ content, filename: '', mediaType });
    const parts = [part({ $case: 'data', value: s.body }, 'application/json'), ...(s.text !== undefined ? [part({ $case: 'text', value: s.text }, 'text/plain')] : [])];
    return { ...task, status: { state: V1_STATE[s.state] ?? V1_STATE.failed, timestamp: s.at }, artifacts: [{ artifactId, name: s.skill, description: '', parts, extensions: [] }] };
  }
  const parts = [{ kind: 'data', data: s.body }, ...(s.text !== undefined ? [{ kind: 'text', text: s.text }] : [])];
  return { ...task, status: { state: s.state, timestamp: s.at }, artifacts: [{ artifactId, name: s.skill, parts }] };
}


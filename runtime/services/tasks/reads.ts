import type { HandlerContext } from '../../api/agent-types.js';
import { AdcpError } from '../../wire/errors.js';
import { TERMINAL, type TaskRecord } from './records.js';
import type { TasksService } from './service.js';

/**
 * get_task_status and list_tasks (AdCP 3.1+, the `protocol` protocol) served from the agent's tasks, as the runtime's
 * own handlers: a profile that serves them needs no handler of the team's. Written in the 3.2 request's shape; both
 * are scoped to the authenticated principal, and a task another principal or account owns is answered exactly as one
 * that never existed.
 */

/** The most tasks list_tasks reads per call before filtering (a page is at most 100 of them). */
const LIST_READ_LIMIT = 1000;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 100;

export function taskReaders(tasks: TasksService): { get_task_status: (args: Record<string, any>, ctx: HandlerContext) => Promise<Record<string, unknown>>; list_tasks: (args: Record<string, any>, ctx: HandlerContext) => Promise<Record<string, unknown>> } {
  return {
    async get_task_status(args, ctx) {
      const task = await tasks.read(String(args.task_id), ctx.principal ?? '', args.account);
      if (task === undefined) throw new AdcpError('REFERENCE_NOT_FOUND', 'No task with this task_id is visible to the caller', { recovery: 'correctable', field: 'task_id' });
      return {
        ...summary(task),
        protocol: task.protocol,
        ...(task.progress !== null && !TERMINAL.has(task.status) ? { progress: task.progress } : {}),
        ...(task.error !== null ? { error: task.error } : {}),
        ...(args.include_result === true && task.result !== null ? { result: task.result } : {}),
        ...(args.include_history === true ? { history: history(task) } : {}),
      };
    },
    async list_tasks(args, ctx) {
      const filters = (args.filters ?? {}) as Record<string, any>;
      const all = (await tasks.list(ctx.principal ?? '', args.account, LIST_READ_LIMIT)).filter((t) => matches(t, filters));
      const sort = (args.sort ?? {}) as { field?: string; direction?: string };
      const field = sort.field ?? 'created_at';
      const key = (t: TaskRecord): string | number =>
        field === 'updated_at' ? t.updatedAt : field === 'status' ? t.status : field === 'task_type' ? t.taskType : field === 'protocol' ? t.protocol : t.createdAt;
      all.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (sort.direction === 'asc' ? 1 : -1));
      const page = (args.pagination ?? {}) as { max_results?: number; cursor?: string };
      const size = Math.min(MAX_PAGE, Math.max(1, page.max_results ?? DEFAULT_PAGE));
      const offset = page.cursor !== undefined && /^\d+$/.test(page.cursor) ? Number(page.cursor) : 0;
      const returned = all.slice(offset, offset + size);
      const breakdown: Record<string, number> = {};
      for (const t of all) if (DOMAINS.has(t.protocol)) breakdown[t.protocol] = (breakdown[t.protocol] ?? 0) + 1;
      return {
        query_summary: { total_matching: all.length, returned: returned.length, domain_breakdown: breakdown },
        tasks: returned.map((t) => ({ ...summary(t), domain: t.protocol })),
        pagination: { has_more: offset + size < all.length, ...(offset + size < all.length ? { cursor: String(offset + size) } : {}) },
      };
    },
  };
}

/** list_tasks' `domain` is one of these; a task of another protocol is listed without a domain breakdown entry. */
const DOMAINS: ReadonlySet<string> = new Set(['media-buy', 'signals', 'creative']);

function summary(t: TaskRecord): Record<string, unknown> {
  return {
    task_id: t.taskId,
    task_type: t.taskType,
    status: t.status,
    created_at: new Date(t.createdAt).toISOString(),
    updated_at: new Date(t.updatedAt).toISOString(),
    ...(t.completedAt !== null ? { completed_at: new Date(t.completedAt).toISOString() } : {}),
    has_webhook: t.push !== null,
  };
}

/** The task's exchange: the request, and its terminal answer once there is one. */
function history(t: TaskRecord): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [{ timestamp: new Date(t.createdAt).toISOString(), type: 'request', data: t.request }];
  const answer = t.result ?? (t.error !== null ? { adcp_error: t.error } : null);
  if (answer !== null && t.completedAt !== null) out.push({ timestamp: new Date(t.completedAt).toISOString(), type: 'response', data: answer });
  return out;
}

function matches(t: TaskRecord, f: Record<string, any>): boolean {
  const oneOf = (single: unknown, many: unknown, value: string): boolean =>
    (single === undefined || single === value) && (!Array.isArray(many) || many.includes(value));
  const time = (bound: unknown, at: number, after: boolean): boolean => typeof bound !== 'string' || (after ? at > Date.parse(bound) : at < Date.parse(bound));
  return (
    oneOf(f.protocol, f.protocols, t.protocol) &&
    oneOf(f.status, f.statuses, t.status) &&
    oneOf(f.task_type, f.task_types, t.taskType) &&
    (!Array.isArray(f.task_ids) || f.task_ids.includes(t.taskId)) &&
    (typeof f.has_webhook !== 'boolean' || f.has_webhook === (t.push !== null)) &&
    time(f.created_after, t.createdAt, true) &&
    time(f.created_before, t.createdAt, false) &&
    time(f.updated_after, t.updatedAt, true) &&
    time(f.updated_before, t.updatedAt, false)
  );
}

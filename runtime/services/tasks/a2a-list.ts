import type { A2AStoredTask } from '../../api/a2a-types.js';
import { isObject } from '../../wire/json-copy.js';

/**
 * What both A2A task stores (the durable one, services/tasks/a2a-tasks.ts; the in-memory one,
 * transports/http/task-store.ts) read alike: whose a Task is, and A2A 1.0's tasks/list over a principal's Tasks.
 */

/** The principal a Task belongs to: the authenticated user of the call that saved or asks for it ('' for none). */
export function ownerOf(context: unknown): string {
  // The ServerCallContext's `user` is a getter of its class: read, not enumerated.
  const user = isObject(context) ? context.user : undefined;
  if (!isObject(user)) return '';
  return user.isAuthenticated === true && typeof user.userName === 'string' ? user.userName : '';
}

export interface TaskPage {
  tasks: A2AStoredTask[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/** tasks/list's filters, newest first, and one page of it (the page token is the offset: this store's own, opaque). */
export function listPage(all: readonly A2AStoredTask[], params: Record<string, unknown>, copy: (t: A2AStoredTask) => A2AStoredTask): TaskPage {
  const status = (t: A2AStoredTask): Record<string, unknown> => (isObject(t.status) ? t.status : {});
  const after = typeof params.statusTimestampAfter === 'string' ? Date.parse(params.statusTimestampAfter) : NaN;
  const found = all
    .filter((t) => (typeof params.contextId === 'string' && params.contextId !== '' ? t.contextId === params.contextId : true))
    .filter((t) => (typeof params.status === 'number' && params.status !== 0 ? status(t).state === params.status : true))
    .filter((t) => (Number.isNaN(after) ? true : Date.parse(String(status(t).timestamp ?? '')) > after))
    .sort((a, b) => String(status(b).timestamp ?? '').localeCompare(String(status(a).timestamp ?? '')) || String(b.id).localeCompare(String(a.id)));
  const pageSize = typeof params.pageSize === 'number' && params.pageSize > 0 ? params.pageSize : 50;
  const start = typeof params.pageToken === 'string' && /^\d+$/.test(params.pageToken) ? Number(params.pageToken) : 0;
  const page = found.slice(start, start + pageSize).map((t) => (params.includeArtifacts === true ? copy(t) : { ...copy(t), artifacts: [] }));
  return { tasks: page, nextPageToken: start + pageSize < found.length ? String(start + pageSize) : '', pageSize, totalSize: found.length };
}

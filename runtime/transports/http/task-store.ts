import type { A2AStoredTask, A2ATaskStore } from '../../api/a2a-types.js';
import { listPage, ownerOf } from '../../services/tasks/a2a-list.js';
import { positiveOption } from '../../wire/options.js';

/**
 * The A2A server's Tasks in memory, bounded. @a2a-js/sdk's InMemoryTaskStore keeps every Task forever (with its
 * history: the buyer's whole message): 2,000 message/send with a 90 KB context grew RSS from 81 to 505 MB. This one
 * keeps at most `maxTasks` per principal, each at most `ttlMs` after it was last saved, and evicts that principal's
 * oldest first, never another's; a Task it no longer has is A2A's task-not-found, as for an id never issued. Each
 * Task belongs to the principal that saved it (the ServerCallContext's user): another caller's tasks/get finds
 * nothing. The HTTP entry's default is the durable store over the agent's own (services/tasks/a2a-tasks.ts); this one
 * serves `a2a.taskStore` overrides and tests.
 */

export interface BoundedTaskStoreOptions {
  /** Tasks one principal keeps at most. Default 1,000. */
  maxTasks?: number;
  /** Default one hour. */
  ttlMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

export const DEFAULT_MAX_TASKS = 1_000;
export const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;

/** A store that also says how many Tasks it holds (tests, and a server's own metrics). */
export interface BoundedTaskStore extends A2ATaskStore {
  readonly size: number;
}

export function boundedTaskStore(options: BoundedTaskStoreOptions = {}): BoundedTaskStore {
  const maxTasks = positiveOption(options.maxTasks, DEFAULT_MAX_TASKS, 'a2a.maxTasks', 'integer');
  const ttlMs = positiveOption(options.ttlMs, DEFAULT_TASK_TTL_MS, 'a2a.taskTtlMs', 'integer');
  const now = options.now ?? Date.now;
  // Per principal, in the order of last save: each map's first entry is always that principal's oldest.
  const owners = new Map<string, Map<string, { task: A2AStoredTask; savedAt: number }>>();
  let size = 0;
  const dropExpired = (tasks: Map<string, { savedAt: number }>, at: number): void => {
    for (const [id, entry] of tasks) {
      if (at - entry.savedAt < ttlMs) break;
      tasks.delete(id);
      size--;
    }
  };
  const tasksOf = (context: unknown, at: number): Map<string, { task: A2AStoredTask; savedAt: number }> | undefined => {
    const tasks = owners.get(ownerOf(context));
    if (tasks !== undefined) dropExpired(tasks, at);
    return tasks;
  };
  return {
    get size() {
      for (const tasks of owners.values()) dropExpired(tasks, now());
      return size;
    },
    async save(task, context) {
      const owner = ownerOf(context);
      let tasks = owners.get(owner);
      if (tasks === undefined) owners.set(owner, (tasks = new Map()));
      const id = String(task.id);
      if (tasks.delete(id)) size--;
      const at = now();
      tasks.set(id, { task: copy(task), savedAt: at });
      size++;
      dropExpired(tasks, at);
      while (tasks.size > maxTasks) {
        tasks.delete(tasks.keys().next().value!);
        size--;
      }
    },
    async load(taskId, context) {
      const entry = tasksOf(context, now())?.get(String(taskId));
      return entry === undefined ? undefined : copy(entry.task);
    },
    async list(params, context) {
      const tasks = tasksOf(context, now());
      return listPage(
        [...(tasks?.values() ?? [])].map((e) => e.task),
        params,
        copy,
      );
    },
  };
}

/**
 * A private copy, as the SDK's own stores keep (the SDK changes a loaded Task before it saves it again). Tasks are
 * the SDK's plain objects; one that cannot be cloned (a function in metadata) is kept as a shallow copy, as 0.3's
 * InMemoryTaskStore keeps every Task.
 */
function copy(task: A2AStoredTask): A2AStoredTask {
  try {
    return structuredClone(task);
  } catch {
    return { ...task };
  }
}


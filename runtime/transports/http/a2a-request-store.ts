import type { A2AStoredTask, A2ATaskStore } from '../../api/a2a-types.js';
import { admissionOf, type Admission } from '../../call/admission.js';
import { firstLine } from '../../wire/report.js';
import { WARNINGS, type RuntimeLog } from '../../ops/log.js';

/**
 * The task store as the A2A SDK sees it behind the entry: the agent's own store (or `a2a.taskStore`), with what each
 * request's Admission says of it.
 * - An anonymous caller's Tasks (discovery, where credentials are asked for) are not kept: they live for their own
 *   request only — nobody could read them later, since tasks/get needs credentials — so an anonymous flood stores
 *   nothing and evicts nobody; and a message of its naming another Task (`taskId`, `referenceTaskIds`) asks for
 *   caller-scoped state, refused as a protected call is (401).
 * - A refused request keeps nothing (the entry answers it 401).
 * - A store fault never reaches the SDK's event loop, where a rejected save is an unhandled rejection that ends the
 *   process (@a2a-js/sdk 0.3's blocking message/send): a failed save is recorded as the request's `fault`, which the
 *   entry answers SERVICE_UNAVAILABLE (a2a-guard.ts); a failed load or list rejects, as the SDK's callers expect, and
 *   is recorded alike.
 */

/** An anonymous request makes one Task (two when a message names its task): a handful, whatever it sends. */
const MAX_TRANSIENT = 4;
const transient = new WeakMap<Admission, Map<string, A2AStoredTask>>();

export function requestTaskStore(store: A2ATaskStore, log: RuntimeLog = WARNINGS): A2ATaskStore {
  const fault = (admission: Admission | undefined, e: unknown, what: string): void => {
    if (admission !== undefined) admission.fault ??= e instanceof Error ? e : new Error(String(e));
    log.error('store_unavailable', `adcp-codegen: the A2A task store could not ${what} a Task: ${firstLine(e)}`);
  };
  const scoped: A2ATaskStore = {
    async save(task, context) {
      const admission = admissionOf(context);
      if (admission?.refusal !== undefined) return;
      if (admission?.anonymous === true) return keep(admission, task);
      try {
        await store.save(task, context);
      } catch (e) {
        fault(admission, e, 'save');
      }
    },
    async load(taskId, context) {
      const admission = admissionOf(context);
      if (admission?.anonymous === true) {
        const task = transient.get(admission)?.get(String(taskId));
        if (task !== undefined) return copy(task);
        // Not the Task this request answers (which the SDK reads before saving it), but one a message names (continuing
        // or referencing it): caller-scoped state, which needs credentials — answered 401 as a protected call is, never
        // "task not found".
        if (String(taskId) !== admission.answering) admission.method(admission.carrier.length > 0 ? admission.carrier : ['tasks/get'], false);
        return undefined;
      }
      try {
        return await store.load(taskId, context);
      } catch (e) {
        fault(admission, e, 'load');
        throw e;
      }
    },
  };
  const list = store.list?.bind(store);
  if (list !== undefined) {
    scoped.list = async (params, context) => {
      const admission = admissionOf(context);
      if (admission?.anonymous === true) return { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 };
      try {
        return await list(params, context);
      } catch (e) {
        fault(admission, e, 'list');
        throw e;
      }
    };
  }
  return scoped;
}

function keep(admission: Admission, task: A2AStoredTask): void {
  let tasks = transient.get(admission);
  if (tasks === undefined) transient.set(admission, (tasks = new Map()));
  if (tasks.size >= MAX_TRANSIENT && !tasks.has(String(task.id))) return;
  tasks.set(String(task.id), copy(task));
}

/** A private copy (the SDK changes a loaded Task before saving it again); a Task that cannot be cloned, a shallow one. */
function copy(task: A2AStoredTask): A2AStoredTask {
  try {
    return structuredClone(task);
  } catch {
    return { ...task };
  }
}

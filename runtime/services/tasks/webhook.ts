import type { WebhookEvent } from '../../api/webhook-types.js';
import type { TaskRecord } from './records.js';

/**
 * A settled task's terminal webhook (core/mcp-webhook-payload.json; L3/webhooks.mdx), for a task whose request carried
 * a `push_notification_config`: exactly one per task (AdCP's grader counts distinct idempotency keys per operation, so
 * no `working` webhook precedes it), deduped on the task and its terminal status so a replayed or repeated settle
 * enqueues nothing more.
 *
 * - `operation_id` verbatim from the buyer's push config (never from its URL), `token` echoed when the buyer set one;
 * - `notification_id` `<task_id>.terminal`: the terminal notification's stable logical id;
 * - `result` (core/async-response-data.json): completed, the task's answer as the buyer's release reads it (the task
 *   keeps it converted); failed (rejected, canceled), the task response's error arm, `{ errors: [error] }`; either
 *   way with the request's `context` echoed (L3/webhooks.mdx, Echoing the caller's context) unless the completed
 *   answer carries a context of its own;
 * - the buyer's legacy `authentication` only when it sent one (HMAC-SHA256 or Bearer instead of RFC 9421).
 */
export function taskWebhook(task: TaskRecord): WebhookEvent | undefined {
  const push = task.push;
  if (push === null || typeof push.url !== 'string') return undefined;
  const context = task.request.context;
  const echo = context !== undefined ? { context } : {};
  // A completion that states its own context (a sandbox's force_task_completion does) keeps it; otherwise the request's.
  const result = task.status === 'completed' ? { ...echo, ...(task.result ?? {}) } : { errors: [task.error ?? { code: 'SERVICE_UNAVAILABLE', message: 'the task ended without an answer' }], ...echo };
  const message = task.status === 'completed' ? undefined : typeof task.error?.message === 'string' ? task.error.message : undefined;
  const auth = push.authentication as { schemes?: unknown; credentials?: unknown } | undefined;
  return {
    url: push.url,
    ...(typeof push.operation_id === 'string' ? { operationId: push.operation_id } : {}),
    dedupeKey: `task:${task.taskId}:${task.status}`,
    payload: {
      notification_id: notificationId(task.taskId),
      task_id: task.taskId,
      task_type: task.taskType,
      ...(ADCP_PROTOCOLS.has(task.protocol) ? { protocol: task.protocol } : {}),
      status: task.status,
      ...(message !== undefined ? { message } : {}),
      ...(typeof push.token === 'string' ? { token: push.token } : {}),
      result,
    },
    ...(auth !== undefined && Array.isArray(auth.schemes) && typeof auth.credentials === 'string' ? { authentication: { schemes: auth.schemes as string[], credentials: auth.credentials } } : {}),
  };
}

/** The payload's `protocol` values (enums/adcp-protocol.json): a task of another (the `protocol` tools) states none. */
const ADCP_PROTOCOLS: ReadonlySet<string> = new Set(['media-buy', 'signals', 'governance', 'creative', 'brand', 'sponsored-intelligence', 'measurement']);

/** `<task_id>.terminal`, in the field's charset (`^[A-Za-z0-9_.:-]{1,255}$`); a task id outside it is left out of it. */
function notificationId(taskId: string): string {
  const id = `${taskId}.terminal`;
  return /^[A-Za-z0-9_.:-]{1,255}$/.test(id) ? id : `${taskId.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 240)}.terminal`;
}

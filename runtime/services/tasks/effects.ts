import { WARNINGS, type RuntimeLog } from '../../ops/log.js';
import { StoreUnavailable } from '../../stores/sql.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import { settleLinked, type DurableA2AStore } from './a2a-tasks.js';
import type { TaskEffects } from './service.js';
import { taskWebhook } from './webhook.js';

/**
 * What a task's state changes bring with them, in the transaction that makes them (services/tasks/service.ts):
 * - a settled task's end on the A2A Task its call answered (every instance writes it: the one settling a task need
 *   not be the one that served its A2A call);
 * - its terminal webhook in the outbox, when its request carried a push_notification_config. An agent that delivers no
 *   webhooks (no webhook_signing here, though the task was registered where it had) and an event the outbox refuses
 *   now (a legacy scheme no longer offered) leave the task settled and say so in a warning: the state change is never
 *   lost for a webhook that cannot be sent. A store failure fails the whole settle (nothing half-written);
 * - a task made by an A2A call linked to that call's Task, when this process serves A2A from the durable store.
 */
export interface EffectDeps {
  readonly profile: string;
  readonly outbox: WebhookOutbox | undefined;
  /** The durable A2A store, once the HTTP entry made it. */
  readonly a2a: () => DurableA2AStore | undefined;
  readonly log?: RuntimeLog;
}

export function taskEffects(deps: EffectDeps): TaskEffects {
  const warn = (message: string): void => (deps.log ?? WARNINGS).warn('task_webhook_not_sent', `adcp-codegen: ${deps.profile}: ${message}`);
  return {
    async settled(task, tx) {
      await settleLinked(tx, task);
      const event = taskWebhook(task);
      if (event === undefined) return false;
      if (deps.outbox === undefined) {
        warn(`task ${task.taskId} registered a webhook, but this agent delivers none (no webhook_signing, no AgentOptions.webhooks): the task is ${task.status}, its webhook is not sent`);
        return false;
      }
      try {
        return (await deps.outbox.enqueue(event, tx)).enqueued;
      } catch (e) {
        if (e instanceof StoreUnavailable) throw e;
        warn(`task ${task.taskId} is ${task.status}; its webhook could not be enqueued: ${(e as Error).message}`);
        return false;
      }
    },
    async linked(origin, taskId, tx) {
      await deps.a2a()?.link(origin.principal, origin.a2aTaskId, taskId, tx);
    },
    committed: () => deps.outbox?.wake(),
  };
}

import type { AgentOptions } from '../api/agent-types.js';
import type { Served } from '../artifacts/served.js';
import { lazyStore, type Store } from '../stores/open.js';
import { runtimeCapabilities, type RuntimeCapabilities } from './capabilities.js';
import { idempotencyService, type IdempotencyService } from './idempotency/service.js';
import { idempotencySettings } from './idempotency/settings.js';
import { subscribers, type Subscribers } from './notifications/subscribers.js';
import { syncAgentNotificationConfigs } from './notifications/sync-configs.js';
import { taskResult } from './tasks/result.js';
import { tasksService, type TasksService } from './tasks/service.js';

/**
 * The protocol services of one agent, from its options and what its profile declares: the store (opened on first
 * need, or by `ready()` at start) and the services over it. Settings are checked against the profile now, at start
 * (buyers read the profile's capabilities, so the runtime must keep exactly what they say); each service is made, and
 * its modules loaded (an on-demand artifact of the set: the bundle reads a module's members on first use), the first
 * time something needs it — a plain read-only call pays for none of them.
 */
export interface AgentServices {
  readonly store: Store;
  /** get_adcp_capabilities as served: the profile's, with the parts only the running agent knows. */
  readonly capabilities: RuntimeCapabilities;
  /** Absent when the profile declares no replay window (`adcp.idempotency.supported` is not true). */
  readonly idempotency: IdempotencyService | undefined;
  /** Async tasks, kept in the store. */
  readonly tasks: TasksService;
  /** Agent-level notification subscribers (capabilities.changed), and the runtime's sync_agent_notification_configs. */
  readonly notifications: { readonly subscribers: Subscribers; readonly sync: ReturnType<typeof syncAgentNotificationConfigs> };
  /** How long a handler may run before its call is answered SERVICE_UNAVAILABLE and abandoned. */
  readonly handlerTimeoutMs: number;
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function agentServices(served: Served, options: AgentOptions): AgentServices {
  const settings = idempotencySettings(served, options);
  let store: Store | undefined;
  let idempotency: IdempotencyService | undefined;
  let tasks: TasksService | undefined;
  let notifications: AgentServices['notifications'] | undefined;
  const storeOf = (): Store => (store ??= lazyStore(options.store, served.name));
  const services: AgentServices = {
    get store() {
      return storeOf();
    },
    capabilities: runtimeCapabilities(),
    get idempotency() {
      if (settings.replay === undefined) return undefined;
      return (idempotency ??= idempotencyService(storeOf(), settings.replay));
    },
    get tasks() {
      return (tasks ??= tasksService(storeOf(), { retentionSeconds: options.tasks?.retentionSeconds, resultFor: (task, result) => taskResult(served, task, result) }));
    },
    get notifications() {
      if (notifications === undefined) {
        const subs = subscribers(storeOf());
        notifications = { subscribers: subs, sync: syncAgentNotificationConfigs({ subscribers: subs, advertised: settings.notifications }) };
      }
      return notifications;
    },
    handlerTimeoutMs: settings.handlerTimeoutMs,
    async ready() {
      if (settings.replay !== undefined || settings.notifications) await storeOf().open();
    },
    close: async () => {
      await store?.close();
    },
  };
  return services;
}

import type { A2ATaskStore } from '../api/a2a-types.js';
import type { AgentOptions } from '../api/agent-types.js';
import type { RequestSignatureVerifier } from '../api/signing-types.js';
import type { AgentWebhooks } from '../api/webhook-types.js';
import type { Served } from '../artifacts/served.js';
import type { RuntimeLog } from '../ops/log.js';
import { lazyStore, type Store } from '../stores/open.js';
import { AdcpError } from '../wire/errors.js';
import { runtimeCapabilities, type RuntimeCapabilities } from './capabilities.js';
import { agentHealth, type Health } from './health.js';
import { idempotencyService, type IdempotencyService } from './idempotency/service.js';
import { idempotencySettings } from './idempotency/settings.js';
import { announceCapabilities } from './notifications/announce.js';
import { endpointProof } from './notifications/prove.js';
import { subscribers, type Subscribers } from './notifications/subscribers.js';
import { syncAgentNotificationConfigs } from './notifications/sync-configs.js';
import { durableA2AStore, type DurableA2AOptions, type DurableA2AStore } from './tasks/a2a-tasks.js';
import { taskEffects } from './tasks/effects.js';
import { taskResult } from './tasks/result.js';
import { tasksService, type TasksService } from './tasks/service.js';
import { profileRequestVerifier } from './signing/from-profile.js';
import { preloadSigningSdk } from './signing/sdk.js';
import type { PushVerdict } from './webhooks/push-config.js';
import { signedWebhooks, type SignedWebhooks } from './webhooks/setup.js';

/**
 * The protocol services of one agent, from its options and what its profile declares: the store (opened on first
 * need, or by `ready()` at start) and the services over it. Settings are checked against the profile now, at start
 * (buyers read the profile's capabilities, so the runtime must keep exactly what they say); each service is made, and
 * its modules loaded (an on-demand artifact of the set: the bundle reads a module's members on first use), the first
 * time something needs it — a plain read-only call pays for none of them. An agent that signs (its profile advertises
 * webhook_signing, or it is given a key) makes its keys and outbox at start.
 */
export interface AgentServices {
  readonly store: Store;
  /** get_adcp_capabilities as served: the profile's, with the parts only the running agent knows. */
  readonly capabilities: RuntimeCapabilities;
  /** Absent when the profile declares no replay window (`adcp.idempotency.supported` is not true). */
  readonly idempotency: IdempotencyService | undefined;
  /** Async tasks, kept in the store; a settled one's webhook and A2A Task written with it. */
  readonly tasks: TasksService;
  /** Agent-level notification subscribers (capabilities.changed), and the runtime's sync_agent_notification_configs. */
  readonly notifications: { readonly subscribers: Subscribers; readonly sync: ReturnType<typeof syncAgentNotificationConfigs> };
  /** Signed requests, for the HTTP entry; absent when the profile does not advertise `request_signing.supported`. */
  readonly requestSignatures?: RequestSignatureVerifier;
  /** How long a handler may run before its call is answered SERVICE_UNAVAILABLE and abandoned. */
  readonly handlerTimeoutMs: number;
  /**
   * Signing keys, their publication and the webhook outbox (services/webhooks/setup.ts); absent for an agent that
   * signs nothing (no `webhook_signing` in its profile, no webhooks option, no key configured).
   */
  readonly signing?: SignedWebhooks;
  /** The outbox (Agent.webhooks); when it is off, enqueueing rejects and a push registration is refused. */
  readonly webhooks: AgentWebhooks;
  /**
   * A call's push_notification_config: `refused` (never to be registered: the SSRF policy, a malformed one) or
   * `unusable` (a channel this agent cannot honour: it delivers no webhooks, the host does not resolve, a legacy
   * scheme it does not offer), which only a call going async (`ctx.task()`) must refuse.
   */
  vetPush(config: unknown): Promise<PushVerdict>;
  /**
   * The A2A server's Tasks in the agent's store, durable and bounded (services/tasks/a2a-tasks.ts), for the HTTP entry:
   * from then on an A2A call's AdCP task is linked to its A2A Task, which shows the task's end once it settles.
   */
  a2aTaskStore(bounds: DurableA2AOptions): A2ATaskStore;
  /**
   * The HTTP entry's public URL (its `publicUrl` option, else its listening address), for brand.json and
   * `identity.brand_json_url` when neither AgentOptions.publicUrl nor ADCP_PUBLIC_URL names one; an agent offering
   * capability-change notifications announces a new capabilities_version once it knows its URL. `a2a`: whether the
   * entry serves A2A there too (default true).
   */
  listening(url: string, a2a?: boolean): void;
  /** The agent's log (ops/log.ts). */
  readonly log: RuntimeLog;
  /** Its readiness (services/health.ts), for the HTTP entry's `/readyz` and a server's drain. */
  readonly health: Health;
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function agentServices(served: Served, options: AgentOptions, log: RuntimeLog): AgentServices {
  const settings = idempotencySettings(served, options, log);
  let store: Store | undefined;
  let idempotency: IdempotencyService | undefined;
  let tasks: TasksService | undefined;
  let notifications: AgentServices['notifications'] | undefined;
  let a2a: DurableA2AStore | undefined;
  let announced: Promise<unknown> | undefined;
  let health: Health | undefined;
  const storeOf = (): Store => (store ??= lazyStore(options.store, served.name, process.env, log));
  const signing = signs(served, options) ? signedWebhooks(served, options, storeOf()) : undefined;
  const webhooks = signing?.outbox ?? outboxOff(served.name);
  const capabilities = runtimeCapabilities();
  if (signing !== undefined) capabilities.add(signing.publication.capabilityPart);
  // Made at start, so a misconfigured verifier fails the start; the profile's block is read here, not in signing/
  // (loaded on demand), so an agent that verifies nothing never loads it.
  const requestSignatures = verifiesRequests(served, options) ? profileRequestVerifier(served, options.signing?.requests, storeOf()) : undefined;
  const keepsState = settings.replay !== undefined || settings.notifications || signing !== undefined || requestSignatures !== undefined;
  // capabilities.changed, once per process, when the agent offers notifications and knows its URL (agent_url).
  const announce = (): Promise<unknown> | undefined => {
    const version = (served.releases[0]!.capabilities.adcp as { capability_changes?: { capabilities_version?: unknown } } | undefined)?.capability_changes?.capabilities_version;
    const agentUrl = signing?.publication.agentUrl();
    if (!settings.notifications || typeof version !== 'string' || agentUrl === undefined || signing?.outbox === undefined) return undefined;
    const outbox = signing.outbox;
    announced ??= announceCapabilities({ store: storeOf(), outbox, version, agentUrl, subscribers: (tx) => services.notifications.subscribers.activeFor('capabilities.changed', tx) }).catch((e: unknown) => {
      announced = undefined;
      throw e;
    });
    return announced;
  };
  const services: AgentServices = {
    get store() {
      return storeOf();
    },
    capabilities,
    get idempotency() {
      if (settings.replay === undefined) return undefined;
      return (idempotency ??= idempotencyService(storeOf(), settings.replay));
    },
    get tasks() {
      return (tasks ??= tasksService(storeOf(), {
        retentionSeconds: options.tasks?.retentionSeconds,
        resultFor: (task, result) => taskResult(served, task, result),
        effects: taskEffects({ profile: served.name, outbox: signing?.outbox, a2a: () => a2a, log }),
      }));
    },
    get notifications() {
      if (notifications === undefined) {
        const outbox = signing?.outbox;
        const subs = subscribers(storeOf());
        notifications = {
          subscribers: subs,
          sync: syncAgentNotificationConfigs({
            subscribers: subs,
            advertised: settings.notifications,
            // The outbox's push check (SSRF policy, https outside a sandbox; legacy authentication as offered).
            refuseUrl: outbox === undefined ? undefined : async (url, authentication, at) => (await outbox.checkPushConfig({ url, authentication }, at))?.toBody(),
            prove: signing === undefined ? undefined : endpointProof({ keys: signing.keys, sandbox: signing.sandbox, agentUrl: () => signing.publication.agentUrl(), profile: served.name, log }),
          }),
        };
      }
      return notifications;
    },
    handlerTimeoutMs: settings.handlerTimeoutMs,
    signing,
    requestSignatures,
    webhooks,
    vetPush: async (config) => (signing?.outbox === undefined ? { unusable: (await webhooks.checkPushConfig(config))! } : signing.outbox.vetPushConfig(config)),
    a2aTaskStore: (bounds) => (a2a ??= durableA2AStore(storeOf(), bounds)),
    listening(url, a2a) {
      signing?.publication.useListeningUrl(url, a2a);
      announce()?.catch((e: unknown) => log.warn('announce_failed', `adcp-codegen: ${served.name}: capabilities.changed could not be announced: ${String(e)}`));
    },
    log,
    get health() {
      // The store is probed when the agent keeps something in it, or something opened it already.
      return (health ??= agentHealth({ profile: served.name, store: () => (keepsState || store !== undefined ? storeOf() : undefined), keys: signing?.keys, log }));
    },
    async ready() {
      health?.stopped(false);
      if (keepsState) await storeOf().open();
      await signing?.ready();
      await announce();
      // The SDK's verifier takes most of a second to load: off the start, before the first signed request needs it.
      if (requestSignatures !== undefined) preloadSigningSdk();
    },
    async close() {
      health?.stopped(true);
      await signing?.stop();
      await store?.close();
    },
  };
  return services;
}

/** Whether the agent verifies signed requests: its profile advertises `request_signing.supported`, or it is configured. */
function verifiesRequests(served: Served, options: AgentOptions): boolean {
  return (served.releases[0]!.capabilities.request_signing as { supported?: unknown } | undefined)?.supported === true || options.signing?.requests !== undefined;
}

/** Whether the agent signs: its profile advertises `webhook_signing`, or its options enable webhooks or name a key. */
function signs(served: Served, options: AgentOptions, env: NodeJS.ProcessEnv = process.env): boolean {
  const block = served.releases[0]!.capabilities.webhook_signing;
  return (block !== null && typeof block === 'object') || options.webhooks !== undefined || options.signing?.key !== undefined || !!env.ADCP_SIGNING_KEY || !!env.ADCP_SIGNING_KEY_FILE;
}

/** The outbox of an agent that delivers no webhooks: a registration is refused (it could not be honoured). */
function outboxOff(profile: string): AgentWebhooks {
  const off = `${profile} delivers no webhooks: its profile advertises no webhook_signing and AgentOptions.webhooks is not set`;
  const refuse = async (_: unknown, field = 'push_notification_config') =>
    new AdcpError('INVALID_REQUEST', `${field}: this agent does not deliver webhooks`, { recovery: 'correctable', field, suggestion: 'omit it and poll the task instead' });
  return {
    enqueue: () => Promise.reject(new Error(`adcp-codegen: ${off}`)),
    delivery: () => Promise.reject(new Error(`adcp-codegen: ${off}`)),
    checkPushUrl: (url, field = 'push_notification_config.url') => refuse(url, field),
    checkPushConfig: refuse,
  };
}

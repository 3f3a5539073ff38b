import type { AgentOptions } from '../api/agent-types.js';
import type { AgentWebhooks } from '../api/webhook-types.js';
import { AdcpError } from '../wire/errors.js';
import type { Served } from '../artifacts/served.js';
import { lazyStore, type Store } from '../stores/open.js';
import { runtimeCapabilities, type RuntimeCapabilities } from './capabilities.js';
import { idempotencyService, type IdempotencyService } from './idempotency/service.js';
import { signedWebhooks, type SignedWebhooks } from './webhooks/setup.js';

/**
 * The protocol services of one agent, from its options and what its profile declares: the store (opened on first
 * need, or by `ready()` at start) and the replay contract over it. A setting that contradicts the profile fails the
 * start: buyers read the profile's capabilities, so the runtime must keep exactly what they say.
 */
export interface AgentServices {
  readonly store: Store;
  /** get_adcp_capabilities as served: the profile's, with the parts only the running agent knows. */
  readonly capabilities: RuntimeCapabilities;
  /** Absent when the profile declares no replay window (`adcp.idempotency.supported` is not true). */
  readonly idempotency?: IdempotencyService;
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
   * The HTTP entry's public URL (its `publicUrl` option, else its listening address), for brand.json and
   * `identity.brand_json_url` when neither AgentOptions.publicUrl nor ADCP_PUBLIC_URL names one.
   */
  listening(url: string): void;
  ready(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_HANDLER_TIMEOUT_S = 120;
const DEFAULT_WAIT_MS = 5_000;

export function agentServices(served: Served, options: AgentOptions): AgentServices {
  const store = lazyStore(options.store, served.name);
  const declared = declaredIdempotency(served);
  const own = options.idempotency ?? {};
  const handlerTimeoutS = agree('in_flight_max_seconds', declared?.in_flight_max_seconds, own.handlerTimeoutSeconds, 'idempotency.handlerTimeoutSeconds') ?? DEFAULT_HANDLER_TIMEOUT_S;
  if (!(handlerTimeoutS > 0)) throw new Error(`adcp-codegen: the handler timeout must be a positive number of seconds, not ${handlerTimeoutS}`);
  let idempotency: IdempotencyService | undefined;
  if (declared?.supported === true) {
    const ttl = agree('replay_ttl_seconds', declared.replay_ttl_seconds, own.replayTtlSeconds, 'idempotency.replayTtlSeconds');
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 3600 || ttl > 604_800) {
      throw new Error(`adcp-codegen: profile ${served.name} declares adcp.idempotency.replay_ttl_seconds ${JSON.stringify(ttl)}; AdCP requires an integer from 3600 to 604800`);
    }
    if (options.store === 'memory' && served.mode === 'production') {
      process.emitWarning(`adcp-codegen: ${served.name} keeps idempotency keys in memory: no key outlives this process, though the profile declares a ${ttl} s replay window`);
    }
    idempotency = idempotencyService(store, { replayTtlSeconds: ttl, handlerTimeoutMs: handlerTimeoutS * 1000, waitMs: own.waitMs ?? DEFAULT_WAIT_MS, writes: own.writes, reads: own.reads });
  }
  // Only an agent that signs loads the signing modules (services.cjs): a plain valid call never reaches them.
  const signing = signs(served, options) ? signedWebhooks(served, options, store) : undefined;
  const capabilities = runtimeCapabilities();
  if (signing !== undefined) capabilities.add(signing.publication.capabilityPart);
  return {
    store,
    capabilities,
    idempotency,
    handlerTimeoutMs: handlerTimeoutS * 1000,
    signing,
    webhooks: signing?.outbox ?? outboxOff(served.name),
    listening: (url) => signing?.publication.useListeningUrl(url),
    async ready() {
      if (idempotency !== undefined || signing !== undefined) await store.open();
      await signing?.ready();
    },
    async close() {
      await signing?.stop();
      await store.close();
    },
  };
}

/** Whether the agent signs: its profile advertises `webhook_signing`, or its options enable webhooks or name a key. */
function signs(served: Served, options: AgentOptions, env: NodeJS.ProcessEnv = process.env): boolean {
  const block = served.releases[0]!.capabilities.webhook_signing;
  return (block !== null && typeof block === 'object') || options.webhooks !== undefined || options.signing?.key !== undefined || !!env.ADCP_SIGNING_KEY || !!env.ADCP_SIGNING_KEY_FILE;
}

interface DeclaredIdempotency {
  supported?: unknown;
  replay_ttl_seconds?: unknown;
  in_flight_max_seconds?: unknown;
}

/** `adcp.idempotency` as the profile's highest release publishes it. */
function declaredIdempotency(served: Served): DeclaredIdempotency | undefined {
  const adcp = served.releases[0]!.capabilities.adcp as { idempotency?: DeclaredIdempotency } | undefined;
  return adcp?.idempotency;
}

/** The configured value, which must be the profile's when both are given; else whichever is. */
function agree(field: string, declared: unknown, configured: number | undefined, option: string): number | undefined {
  if (configured !== undefined && declared !== undefined && configured !== declared) {
    throw new Error(`adcp-codegen: the profile declares adcp.idempotency.${field} ${JSON.stringify(declared)}, but the agent is configured with ${option} ${configured}: buyers read the profile's, so change the profile (and regenerate) or drop the option`);
  }
  return configured ?? (typeof declared === 'number' ? declared : undefined);
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

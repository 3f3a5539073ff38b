import type { AgentOptions } from '../../api/agent-types.js';
import type { Served } from '../../artifacts/served.js';
import { WARNINGS, type RuntimeLog } from '../../ops/log.js';
import type { IdempotencySettings } from './service.js';

/**
 * What the profile declares of the replay contract and of capability-change notifications, checked against the
 * agent's options at start: a setting that contradicts the profile fails the start, since buyers read the profile's.
 */
export interface ServiceSettings {
  /** The replay contract's settings; undefined when the profile declares no replay window. */
  readonly replay: IdempotencySettings | undefined;
  readonly handlerTimeoutMs: number;
  /** Whether the profile advertises `adcp.capability_changes.notifications.supported`. */
  readonly notifications: boolean;
}

const DEFAULT_HANDLER_TIMEOUT_S = 120;
const DEFAULT_WAIT_MS = 5_000;

export function idempotencySettings(served: Served, options: AgentOptions, log: RuntimeLog = WARNINGS): ServiceSettings {
  const adcp = (served.releases[0]!.capabilities.adcp ?? {}) as { idempotency?: Declared; capability_changes?: { notifications?: { supported?: unknown } } };
  const declared = adcp.idempotency;
  const own = options.idempotency ?? {};
  const handlerTimeoutS = agree('in_flight_max_seconds', declared?.in_flight_max_seconds, own.handlerTimeoutSeconds, 'idempotency.handlerTimeoutSeconds') ?? DEFAULT_HANDLER_TIMEOUT_S;
  if (!(handlerTimeoutS > 0)) throw new Error(`adcp-codegen: the handler timeout must be a positive number of seconds, not ${handlerTimeoutS}`);
  let replay: IdempotencySettings | undefined;
  if (declared?.supported === true) {
    const ttl = agree('replay_ttl_seconds', declared.replay_ttl_seconds, own.replayTtlSeconds, 'idempotency.replayTtlSeconds');
    if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 3600 || ttl > 604_800) {
      throw new Error(`adcp-codegen: profile ${served.name} declares adcp.idempotency.replay_ttl_seconds ${JSON.stringify(ttl)}; AdCP requires an integer from 3600 to 604800`);
    }
    if (options.store === 'memory' && served.mode === 'production') {
      log.warn('keys_in_memory', `adcp-codegen: ${served.name} keeps idempotency keys in memory: no key outlives this process, though the profile declares a ${ttl} s replay window`);
    }
    replay = { replayTtlSeconds: ttl, handlerTimeoutMs: handlerTimeoutS * 1000, waitMs: own.waitMs ?? DEFAULT_WAIT_MS, writes: own.writes, reads: own.reads };
  }
  const notifications = adcp.capability_changes?.notifications?.supported === true;
  // capabilities.changed webhooks are signed like every webhook: a seller advertising them MUST advertise
  // webhook_signing.supported (protocol/get_adcp_capabilities.mdx, webhook_signing).
  const signing = served.releases[0]!.capabilities.webhook_signing as { supported?: unknown } | undefined;
  if (notifications && signing?.supported !== true) {
    throw new Error(`adcp-codegen: profile ${served.name} advertises adcp.capability_changes.notifications.supported but not webhook_signing.supported: capabilities.changed webhooks are signed, so AdCP requires both; advertise webhook_signing (and regenerate) or drop the notifications`);
  }
  return { replay, handlerTimeoutMs: handlerTimeoutS * 1000, notifications };
}

interface Declared {
  supported?: unknown;
  replay_ttl_seconds?: unknown;
  in_flight_max_seconds?: unknown;
}

/** The configured value, which must be the profile's when both are given; else whichever is. */
function agree(field: string, declared: unknown, configured: number | undefined, option: string): number | undefined {
  if (configured !== undefined && declared !== undefined && configured !== declared) {
    throw new Error(`adcp-codegen: the profile declares adcp.idempotency.${field} ${JSON.stringify(declared)}, but the agent is configured with ${option} ${configured}: buyers read the profile's, so change the profile (and regenerate) or drop the option`);
  }
  return configured ?? (typeof declared === 'number' ? declared : undefined);
}

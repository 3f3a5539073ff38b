import type { AgentOptions } from '../api/agent-types.js';
import type { RequestSignatureVerifier } from '../api/signing-types.js';
import type { Served } from '../artifacts/served.js';
import { lazyStore, type Store } from '../stores/open.js';
import { runtimeCapabilities, type RuntimeCapabilities } from './capabilities.js';
import { idempotencyService, type IdempotencyService } from './idempotency/service.js';
import { profileRequestVerifier } from './signing/from-profile.js';
import { preloadSigningSdk } from './signing/sdk.js';

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
  /** Signed requests, for the HTTP entry; absent when the profile does not advertise `request_signing.supported`. */
  readonly requestSignatures?: RequestSignatureVerifier;
  /** How long a handler may run before its call is answered SERVICE_UNAVAILABLE and abandoned. */
  readonly handlerTimeoutMs: number;
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
  // Read here, not in signing/ (loaded on demand): an agent that does not sign never loads it.
  const signing = (served.releases[0]!.capabilities.request_signing as { supported?: unknown } | undefined)?.supported === true || options.signing?.requests !== undefined;
  const requestSignatures = signing ? profileRequestVerifier(served, options.signing?.requests, store) : undefined;
  return {
    store,
    capabilities: runtimeCapabilities(),
    idempotency,
    requestSignatures,
    handlerTimeoutMs: handlerTimeoutS * 1000,
    async ready() {
      if (idempotency !== undefined || requestSignatures !== undefined) await store.open();
      // The SDK's verifier takes about a second to load: off the start, before the first signed request needs it.
      if (requestSignatures !== undefined) preloadSigningSdk();
    },
    close: () => store.close(),
  };
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

import type { AgentOptions } from '../../api/agent-types.js';
import type { Served } from '../../artifacts/served.js';
import type { Store } from '../../stores/open.js';
import { signingKeys, type SigningKeys } from '../keys/keys.js';
import { publication, type Publication } from '../keys/publication.js';
import { webhookOutbox, type WebhookOutbox } from './outbox.js';
import { positiveOption } from '../../wire/options.js';

/**
 * Signed webhooks for one agent, from its options and what its profile advertises (`webhook_signing`): the signing
 * key, its publication (brand.json, JWKS, `identity.brand_json_url`) and the outbox with its delivery worker. The
 * profile is the truth: a setting that contradicts it fails the start.
 *
 * A sandbox agent — a `sandbox` profile, or mode `development` — may sign with a development key it makes in its
 * store and delivers to loopback http receivers (LOOPBACK_OK_WEBHOOK_SSRF_POLICY); a production agent signs only
 * with a configured key and delivers only to public https URLs (WEBHOOK_SSRF_POLICY).
 */
export interface SignedWebhooks {
  readonly sandbox: boolean;
  readonly keys: SigningKeys;
  readonly publication: Publication;
  /** Absent when the outbox is off (the profile advertises no webhook signing and AgentOptions.webhooks is unset). */
  readonly outbox?: WebhookOutbox;
  /** Checks the key (production without one fails here when the profile advertises webhook signing) and starts the worker. */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

interface DeclaredSigning {
  supported?: unknown;
  algorithms?: unknown;
  legacy_hmac_fallback?: unknown;
  delivery_retry_horizon_seconds?: unknown;
}

const DAY_S = 86_400;
const WEEK_S = 604_800;

export function signedWebhooks(served: Served, options: AgentOptions, store: Store): SignedWebhooks {
  const sandbox = served.surface === 'sandbox' || served.mode === 'development';
  const stated = declared(served);
  const advertised = stated?.supported === true;
  if (stated !== undefined && !advertised && options.webhooks !== undefined) {
    throw new Error(`adcp-codegen: profile ${served.name} advertises webhook_signing.supported ${JSON.stringify(stated.supported)}, but the outbox signs every webhook: advertise true (and regenerate) or drop AgentOptions.webhooks`);
  }
  const keys = signingKeys(store, { profile: served.name, sandbox, option: options.signing?.key });
  const top = served.releases[0]!.capabilities;
  const protocols = Array.isArray(top.supported_protocols) ? (top.supported_protocols as string[]) : [];
  const pub = publication(keys, { profile: served.name, protocols, publicUrl: options.publicUrl, options: options.publication });
  const own = options.webhooks ?? {};
  const horizonS = own.retryHorizonSeconds ?? (typeof stated?.delivery_retry_horizon_seconds === 'number' ? stated.delivery_retry_horizon_seconds : DAY_S);
  if (stated?.delivery_retry_horizon_seconds !== undefined && own.retryHorizonSeconds !== undefined && own.retryHorizonSeconds !== stated.delivery_retry_horizon_seconds) {
    throw new Error(`adcp-codegen: the profile declares webhook_signing.delivery_retry_horizon_seconds ${JSON.stringify(stated.delivery_retry_horizon_seconds)}, but the agent is configured with webhooks.retryHorizonSeconds ${own.retryHorizonSeconds}: buyers read the profile's`);
  }
  if (!Number.isInteger(horizonS) || horizonS < DAY_S || horizonS > WEEK_S) throw new Error(`adcp-codegen: the webhook retry horizon must be an integer from ${DAY_S} to ${WEEK_S} seconds, not ${JSON.stringify(horizonS)}`);
  const outboxOn = advertised || options.webhooks !== undefined;
  const outbox = outboxOn
    ? webhookOutbox(store, keys, {
        profile: served.name,
        sandbox,
        // 3.0 profiles without the block keep 3.0's behaviour; one that advertises signing offers legacy only when it says so.
        legacyAuth: stated === undefined || stated.legacy_hmac_fallback === true,
        deliver: own.deliver !== false,
        horizonMs: horizonS * 1000,
        pollMs: positiveOption(own.pollIntervalMs, 1_000, 'webhooks.pollIntervalMs'),
        concurrency: positiveOption(own.concurrency, 16, 'webhooks.concurrency'),
        timeoutMs: positiveOption(own.attemptTimeoutMs, 10_000, 'webhooks.attemptTimeoutMs'),
        initialMs: positiveOption(own.initialBackoffMs, 1_000, 'webhooks.initialBackoffMs'),
        maxMs: positiveOption(own.maxBackoffMs, 900_000, 'webhooks.maxBackoffMs'),
      })
    : undefined;
  return {
    sandbox,
    keys,
    publication: pub,
    outbox,
    async ready() {
      const pair = await keys.pair();
      const algorithms = stated?.algorithms;
      if (Array.isArray(algorithms) && !algorithms.includes(pair.signer.alg)) {
        throw new Error(`adcp-codegen: profile ${served.name} advertises webhook_signing.algorithms ${JSON.stringify(algorithms)}, but the signing key (kid ${pair.kid}) signs ${pair.signer.alg}`);
      }
      const fills = served.releases.some((r) => r.fillable?.includes('identity.brand_json_url') === true);
      const stating = (top.identity as Record<string, unknown> | undefined)?.brand_json_url !== undefined;
      // A sandbox on loopback http advertises none, as it must (the schema requires https): no warning for it.
      if (advertised && fills && !stating && !sandbox && pub.brandJsonUrl() === undefined) {
        store.log.warn('no_brand_json_url', `adcp-codegen: ${served.name} advertises webhook_signing but no identity.brand_json_url: set ADCP_PUBLIC_URL (or AgentOptions.publicUrl) to the agent's public https URL so buyers can find its keys`);
      }
      await outbox?.start();
    },
    stop: async () => outbox?.stop(),
  };
}

/** `webhook_signing` as the profile's highest release publishes it. */
export function declared(served: Served): DeclaredSigning | undefined {
  const block = served.releases[0]!.capabilities.webhook_signing;
  return block !== null && typeof block === 'object' ? (block as DeclaredSigning) : undefined;
}


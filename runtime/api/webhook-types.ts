import type { AdcpError } from '../wire/errors.js';

/**
 * Signed webhooks and the agent's published keys (services/keys/, services/webhooks/): the options that configure
 * them and what the agent exposes. Types only, structural.
 */

/**
 * A private JSON Web Key the agent signs with: Ed25519 (`kty: "OKP"`, `crv: "Ed25519"`) or P-256 (`kty: "EC"`,
 * `crv: "P-256"`), with its private member `d` and a `kid` of its own. Its public half is published with
 * `use: "sig"`, `key_ops: ["verify"]`, `adcp_use: "request-signing"` (AdCP 3.2 signs webhooks with the agent's
 * request-signing key; domain separation is the signature's tag) and `alg` `EdDSA` / `ES256`.
 */
export interface PrivateJwk {
  readonly kty: 'OKP' | 'EC';
  readonly crv: 'Ed25519' | 'P-256';
  readonly kid: string;
  readonly d: string;
  readonly x?: string;
  readonly y?: string;
  readonly [member: string]: unknown;
}

export interface PublicationOptions {
  /**
   * `identity.brand_json_url` to advertise instead of `<publicUrl>/.well-known/brand.json`: the operator's own
   * brand.json (its `agents[]` entry for this agent naming this agent's JWKS). Default: `ADCP_BRAND_JSON_URL`.
   */
  brandJsonUrl?: string;
  /** The brand.json `agents[].id` (`^[a-z0-9_]+$`); default: the profile's name, `-` made `_`. */
  agentId?: string;
  /**
   * The brand.json `agents[].type`; default from the profile's `supported_protocols` (`media_buy` → `sales`,
   * `signals`, `creative`, `governance`, `brand`).
   */
  agentType?: string;
}

export interface WebhookOptions {
  /**
   * Whether this process delivers (runs the delivery worker from `ready()` to `close()`). Default true. A process
   * that only enqueues (a batch job) sets false; the rows wait for a process that delivers.
   */
  deliver?: boolean;
  /**
   * How long one event is retried, in seconds from its first attempt (86400–604800). Default: the profile's
   * `webhook_signing.delivery_retry_horizon_seconds`, else 86400; another value than the profile's fails the start.
   */
  retryHorizonSeconds?: number;
  /** How often the worker looks for due events, in ms (default 1,000; an enqueue in this process wakes it at once). */
  pollIntervalMs?: number;
  /** Deliveries in flight at once per process (default 16). */
  concurrency?: number;
  /** One attempt's deadline, in ms (default 10,000): a receiver slower than this is retried. */
  attemptTimeoutMs?: number;
  /** The first retry's delay, in ms (default 1,000), doubling per attempt (±25% jitter) up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  /** The longest delay between two attempts, in ms (default 900,000: 15 min). */
  maxBackoffMs?: number;
}

/**
 * One webhook to deliver. Its body is frozen when enqueued: `payload`, plus `idempotency_key` (minted then,
 * cryptographically random, the same on every attempt), `operation_id` (when given) and `timestamp` (when the
 * payload has none). Every attempt sends exactly those bytes, freshly signed.
 */
export interface WebhookEvent {
  /** Where: `push_notification_config.url` (or a subscriber's registered URL). */
  readonly url: string;
  /**
   * The rest of the body: for a task webhook (`core/mcp-webhook-payload.json`) `task_id`, `task_type`, `status`,
   * `result`, `message`, `protocol`, `notification_id`, `context_id`, `token` …; for another event type its own
   * schema's fields. Must not carry `idempotency_key`: the outbox mints it.
   */
  readonly payload: Readonly<Record<string, unknown>>;
  /** The buyer's `push_notification_config.operation_id`, echoed verbatim as the body's `operation_id`. */
  readonly operationId?: string;
  /**
   * One delivery per logical event: a second enqueue with the same key (an idempotent replay of the call that caused
   * it, a retried job) enqueues nothing and answers the first. E.g. `task:<task_id>:<status>`; include the target
   * when one event goes to several receivers. Unique in the agent's store until the row is purged (7 days after it
   * is done).
   */
  readonly dedupeKey: string;
  /**
   * The body field that carries the enqueue time, as an ISO 8601 string, unless the payload states it: `timestamp`
   * (default; task webhooks) or another (`fired_at` for capabilities.changed), or `null` for none.
   */
  readonly timestampField?: string | null;
  /**
   * The buyer's `push_notification_config.authentication` (`{ schemes: ['HMAC-SHA256' | 'Bearer'], credentials }`):
   * legacy, deprecated, only when the buyer sent it. Present: HMAC-SHA256 (or Bearer) instead of RFC 9421 — one or
   * the other, never both. The credentials are kept until the event is done, never logged or echoed.
   */
  readonly authentication?: { readonly schemes: readonly string[]; readonly credentials: string };
}

export interface EnqueueResult {
  /** False when an event with this dedupe key was already enqueued: nothing was added; the ids are the first's. */
  readonly enqueued: boolean;
  readonly eventId: string;
  readonly idempotencyKey: string;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** What became of one event (for operators, `webhook_activity`, tests). Never carries credentials. */
export interface Delivery {
  readonly eventId: string;
  readonly dedupeKey: string;
  readonly url: string;
  readonly idempotencyKey: string;
  /** `rfc9421`, or the legacy `hmac_sha256` / `bearer` the buyer asked for. */
  readonly authMode: 'rfc9421' | 'hmac_sha256' | 'bearer';
  readonly state: DeliveryState;
  readonly attempts: number;
  /** The receiver's last HTTP status, if it answered. */
  readonly lastStatus?: number;
  readonly lastError?: string;
  readonly createdAt: number;
  readonly firstAttemptAt?: number;
  readonly nextAttemptAt: number;
  readonly finishedAt?: number;
  /** The body every attempt sends. */
  readonly body: string;
}

/** A document the HTTP entry serves as it is: `GET` (and `HEAD`) of its path answer `status`, `headers` and `body`. */
export interface WellKnownDocument {
  readonly status: 200;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface AgentWebhooks {
  /**
   * Adds one event to the agent's durable outbox (its store), to be delivered by a worker of any instance sharing the
   * store. Resolves once the row is written (durable). Throws on an event that cannot be delivered as given (a URL
   * that does not parse, legacy authentication the profile does not offer, an `idempotency_key` in the payload).
   */
  enqueue(event: WebhookEvent): Promise<EnqueueResult>;
  /** The event's delivery record; undefined when unknown (or purged). */
  delivery(eventId: string): Promise<Delivery | undefined>;
  /**
   * Checks a buyer's push URL when the call that registers it arrives: https outside a sandbox, no private, loopback,
   * link-local or metadata address (literal or resolved) outside a sandbox. Undefined when acceptable, else the AdCP
   * error to answer (INVALID_REQUEST naming `field`, default `push_notification_config.url`).
   */
  checkPushUrl(url: unknown, field?: string): Promise<AdcpError | undefined>;
  /**
   * checkPushUrl on `config.url`, then `config.authentication` (the legacy HMAC-SHA256 / Bearer opt-in): refused when
   * the profile does not offer it (`webhook_signing.legacy_hmac_fallback`) or its credentials are under 32
   * characters. `field` defaults to `push_notification_config`.
   */
  checkPushConfig(config: unknown, field?: string): Promise<AdcpError | undefined>;
}

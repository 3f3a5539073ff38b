import { randomUUID } from 'node:crypto';
import type { AgentWebhooks, EnqueueResult, WebhookEvent } from '../../api/webhook-types.js';
import type { Store } from '../../stores/open.js';
import type { SqlQuery } from '../../stores/sql.js';
import type { SigningKeys } from '../keys/keys.js';
import { checkPushAuthentication, checkPushUrl, vetPushConfig, type PushCheck, type PushVerdict } from './push-config.js';
import { insertRow, readRow, type AuthMode } from './records.js';
import { outboxGauges } from './gauges.js';
import { deliveryWorker, type DeliveryWorker, type WorkerSettings } from './worker.js';

/**
 * The agent's durable webhook outbox (webhooks.mdx; security.mdx, Webhook callbacks): events written to the agent's
 * store — in the caller's own transaction when it has one, so a state change and the webhook announcing it are
 * committed together or not at all — and delivered by the worker of any instance sharing the store, signed per
 * attempt, retried for the retry horizon, one delivery per logical event.
 *
 * For the services built on it (async tasks, capability-change notifications):
 *
 *   await sql.transaction(async (tx) => {
 *     await tx.query('UPDATE adcp_tasks SET status = $2 … WHERE task_id = $1', [taskId, 'completed']);
 *     await outbox.enqueue({ url, operationId, dedupeKey: `task:${taskId}:completed`,
 *       payload: { task_id: taskId, task_type, protocol, status: 'completed', result } }, tx);
 *   });
 *   outbox.wake(); // after the commit: this process's worker looks at once
 */
export interface WebhookOutbox extends AgentWebhooks {
  /** As AgentWebhooks.enqueue; with `tx`, the row is written by that transaction (`Sql.transaction`) and commits with it. */
  enqueue(event: WebhookEvent, tx?: SqlQuery): Promise<EnqueueResult>;
  /** A push registration's verdict: refused now, or unusable (refused when a task would deliver through it). */
  vetPushConfig(config: unknown, field?: string): Promise<PushVerdict>;
  /** This process's worker looks for due rows now (after a transaction that enqueued commits). */
  wake(): void;
  /** Starts this process's delivery worker (unless `deliver: false`). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface OutboxSettings extends WorkerSettings, PushCheck {
  /** Whether this process runs a delivery worker. */
  readonly deliver: boolean;
}

/** What receivers accept (webhooks.mdx, Security requirements: a 1 MB limit before verification). */
const MAX_BODY_BYTES = 1_048_576;
const DEDUPE_KEY_MAX = 512;

export function webhookOutbox(store: Store, keys: SigningKeys, settings: OutboxSettings): WebhookOutbox {
  const worker: DeliveryWorker | undefined = settings.deliver ? deliveryWorker(store, keys, settings) : undefined;
  let started = false;
  let gauged = false;
  return {
    async enqueue(event, tx) {
      const row = rowOf(event, settings, store);
      const result = await insertRow(tx ?? (await store.open()), row);
      // Outside a transaction the row is committed: look now. Inside one, the caller wakes the worker after its commit.
      if (tx === undefined && result.enqueued) worker?.wake();
      return result;
    },
    async delivery(eventId) {
      return readRow(await store.open(), eventId);
    },
    checkPushUrl: (url, field = 'push_notification_config.url') => checkPushUrl(url, field, settings),
    async checkPushConfig(config, field = 'push_notification_config') {
      const c = (config ?? {}) as { url?: unknown; authentication?: unknown };
      return (await checkPushUrl(c.url, `${field}.url`, settings)) ?? checkPushAuthentication(c.authentication, field, settings);
    },
    vetPushConfig: (config, field = 'push_notification_config') => vetPushConfig(config, field, settings),
    wake: () => worker?.wake(),
    async start() {
      if (!gauged) outboxGauges(store, settings.profile);
      gauged = true;
      if (worker === undefined || started) return;
      await worker.start();
      started = true;
    },
    async stop() {
      started = false;
      await worker?.stop();
    },
  };
}

/** The event as its row: the body frozen now (idempotency key minted, operation_id and timestamp set), checked. */
function rowOf(event: WebhookEvent, settings: OutboxSettings, store: Store) {
  const fail = (problem: string): never => {
    throw new Error(`adcp-codegen: webhook not enqueued: ${problem}`);
  };
  let url: URL;
  try {
    url = new URL(event.url);
  } catch {
    return fail('its url is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail('its url must be an https (or http) URL');
  if (typeof event.dedupeKey !== 'string' || event.dedupeKey === '' || event.dedupeKey.length > DEDUPE_KEY_MAX) fail(`its dedupeKey must be a string of 1 to ${DEDUPE_KEY_MAX} characters`);
  const payload = event.payload;
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return fail('its payload must be an object');
  if (Object.prototype.hasOwnProperty.call(payload, 'idempotency_key')) fail('its payload carries idempotency_key: the outbox mints it');
  if (event.operationId !== undefined && payload.operation_id !== undefined && payload.operation_id !== event.operationId) fail('its payload states another operation_id than operationId');
  const authError = checkPushAuthentication(event.authentication, 'authentication', settings);
  if (authError !== undefined) fail(authError.message);
  const now = Date.now();
  const idempotencyKey = `whk_${randomUUID().replace(/-/g, '')}`;
  const body: Record<string, unknown> = { idempotency_key: idempotencyKey, ...payload };
  if (event.operationId !== undefined) body.operation_id = event.operationId;
  const stamp = event.timestampField === undefined ? 'timestamp' : event.timestampField;
  if (stamp !== null && body[stamp] === undefined) body[stamp] = new Date(now).toISOString();
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch {
    return fail('its payload is not JSON');
  }
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) fail(`its body is over ${MAX_BODY_BYTES} bytes, which receivers refuse`);
  const scheme = event.authentication?.schemes[0];
  const authMode: AuthMode = scheme === 'HMAC-SHA256' ? 'hmac_sha256' : scheme === 'Bearer' ? 'bearer' : 'rfc9421';
  if (authMode !== 'rfc9421') store.log.warn('legacy_webhook_auth', `adcp-codegen: ${settings.profile}: a webhook to ${url.host} uses the buyer's legacy ${scheme} authentication (deprecated, removed in AdCP 4.0) instead of RFC 9421`, { host: url.host, scheme });
  return {
    eventId: `whe_${randomUUID()}`,
    dedupeKey: event.dedupeKey,
    url: event.url,
    body: text,
    idempotencyKey,
    authMode,
    authSecret: authMode === 'rfc9421' ? null : event.authentication!.credentials,
    now,
  };
}

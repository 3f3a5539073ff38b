// @ts-check
import { createHash } from 'node:crypto';

/**
 * Creative lifecycle webhooks (docs/creative/specification, "Creative lifecycle webhooks"): a creative's status change
 * or purge is fired to every active subscriber of its account that registered for the event type
 * (`sync_accounts.accounts[].notification_configs`), through the runtime's durable outbox — signed, retried,
 * delivered at least once, by whichever instance holds the lease (docs/webhooks.md). The fire is enqueued before the
 * transition is answered, so a buyer that reads the creative next also finds the webhook on its way; the delivery
 * records feed `list_creatives` `webhook_activity`.
 *
 * @typedef {import('./library.js').Creative} Creative
 * @typedef {import('./library.js').Account} Account
 */

/**
 * @param {{ webhooks: () => import('../../generated/index.js').AgentWebhooks | undefined }} deps `webhooks`: the
 *   agent's outbox (absent when the profile delivers no webhooks: then nothing is fired)
 */
export function createNotifications({ webhooks }) {
  return {
    /** Fires `event` (its notification_type and fields) about a creative to the account's subscribers. */
    async notify(/** @type {Account} */ account, /** @type {Creative} */ creative, /** @type {Record<string, any>} */ event) {
      const outbox = webhooks();
      if (outbox === undefined) return;
      // One logical event, whatever retries: the id is the transition's, stable for the same change.
      const id = createHash('sha256').update(`${account.account_id}\0${creative.creative_id}\0${event.notification_type}\0${creative.updated_date}`).digest('hex').slice(0, 20);
      for (const sub of account.notification_configs) {
        if (sub.active === false || !sub.event_types.includes(event.notification_type)) continue;
        const result = await outbox.enqueue({
          url: sub.url,
          payload: { notification_id: `crv_${id}`, subscriber_id: sub.subscriber_id, account_id: account.account_id, creative_id: creative.creative_id, ...event },
          dedupeKey: `creative:${id}:${sub.subscriber_id}`,
          timestampField: 'fired_at',
        });
        creative.activity.unshift(result.eventId);
      }
    },
    /** The webhook activity records of a creative, newest first, as core/webhook-activity-record.json has them. */
    async activity(/** @type {Creative} */ creative, /** @type {number} */ limit) {
      const outbox = webhooks();
      if (outbox === undefined) return [];
      const records = await Promise.all(creative.activity.slice(0, limit).map((id) => outbox.delivery(id)));
      return records.flatMap((d) => {
        if (d === undefined) return [];
        const body = JSON.parse(d.body);
        return [
          {
            idempotency_key: d.idempotencyKey,
            notification_id: body.notification_id,
            subscriber_id: body.subscriber_id,
            fired_at: body.fired_at,
            ...(d.finishedAt !== undefined ? { completed_at: new Date(d.finishedAt).toISOString() } : {}),
            notification_type: body.notification_type,
            attempt: Math.max(1, d.attempts),
            status: d.state === 'delivered' ? 'success' : d.state === 'failed' ? 'failed' : 'pending',
            url: d.url,
            ...(d.lastStatus !== undefined ? { http_status_code: d.lastStatus } : {}),
            payload_size_bytes: Buffer.byteLength(d.body),
          },
        ];
      });
    },
  };
}

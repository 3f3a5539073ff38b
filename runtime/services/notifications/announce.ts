import { createHash } from 'node:crypto';
import type { Store } from '../../stores/open.js';
import { StoreUnavailable, type SqlQuery } from '../../stores/sql.js';
import type { WebhookOutbox } from '../webhooks/outbox.js';
import type { Subscriber } from './subscribers.js';

/**
 * capabilities.changed (protocol/sync_agent_notification_configs.mdx; core/capabilities-changed-webhook.json): when an
 * instance starts on a `capabilities_version` (derived at generation from the served capabilities) other than the one
 * the agent last announced (`adcp_agent_state`), it records the new one and enqueues one webhook per active
 * subscriber, in one transaction. The new snapshot is already what get_adcp_capabilities serves (this instance
 * serves it), as the spec requires before firing. Two instances starting together on the new version send one: the
 * record moves from the old version once (the second's guarded update finds it moved), and each (move, subscriber)
 * is one dedupe key in the outbox — the move being the record replaced and the new version, so a deployment going
 * back and forth between two versions announces each change. The very first start records its version and fires
 * nothing: no buyer held an older snapshot.
 */
export interface Announcement {
  readonly store: Store;
  readonly outbox: WebhookOutbox;
  /** The version this instance serves. */
  readonly version: string;
  /** The agent's MCP URL (`agent_url`): the canonical URL buyers cache its capabilities under. */
  readonly agentUrl: string;
  /** Active subscribers to capabilities.changed, in the transaction. */
  readonly subscribers: (tx: SqlQuery) => Promise<Subscriber[]>;
}

const STATE = 'capabilities_version';
const READ = 'SELECT value, updated_at FROM adcp_agent_state WHERE name = $1';
const FIRST = 'INSERT INTO adcp_agent_state (name, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING';
const MOVE = 'UPDATE adcp_agent_state SET value = $3, updated_at = $4 WHERE name = $1 AND value = $2';

/** What happened: `first` (recorded, nothing fired), `unchanged`, or `changed` with the webhooks enqueued. */
export async function announceCapabilities(a: Announcement): Promise<{ outcome: 'first' | 'unchanged' | 'changed'; enqueued: number }> {
  const sql = await a.store.open();
  const result = await sql.transaction(async (tx) => {
    const now = Date.now();
    const row = (await tx.query(READ, [STATE])).rows[0];
    if (row === undefined) {
      await tx.query(FIRST, [STATE, a.version, now]);
      return { outcome: 'first' as const, enqueued: 0 };
    }
    const previous = String(row.value);
    if (previous === a.version || (await tx.query(MOVE, [STATE, previous, a.version, now])).rowCount === 0) return { outcome: 'unchanged' as const, enqueued: 0 };
    let enqueued = 0;
    const changedAt = new Date(now).toISOString();
    // The move this is (from the record both racing instances read, to this version): a later change back and forth
    // between two versions is a new event, not one the outbox remembers as sent.
    const move = digest(`${previous}\n${String(row.updated_at)}\n${a.version}`);
    for (const s of await a.subscribers(tx)) {
      const event = {
        url: s.url,
        dedupeKey: `capabilities.changed:${move}:${digest(s.scope)}:${s.subscriber_id}`,
        timestampField: 'fired_at',
        payload: {
          notification_id: `capchg_${digest(a.version)}`,
          notification_type: 'capabilities.changed',
          subscriber_id: s.subscriber_id,
          agent_url: a.agentUrl,
          changed_at: changedAt,
          reason: 'deployment_changed',
          capabilities_version: a.version,
        },
        ...(legacy(s.authentication) ?? {}),
      };
      try {
        if ((await a.outbox.enqueue(event, tx)).enqueued) enqueued++;
      } catch (e) {
        // A subscriber the outbox refuses now (its legacy scheme no longer offered) is skipped, not every other one;
        // a store failure ends the transaction (the version stays unannounced, and the next start tries again).
        if (e instanceof StoreUnavailable) throw e;
        a.store.log.warn('webhook_not_enqueued', `adcp-codegen: capabilities.changed to subscriber ${s.subscriber_id} not enqueued: ${(e as Error).message}`);
      }
    }
    return { outcome: 'changed' as const, enqueued };
  });
  if (result.enqueued > 0) a.outbox.wake();
  return result;
}

function legacy(auth: Record<string, unknown> | undefined): { authentication: { schemes: string[]; credentials: string } } | undefined {
  if (auth === undefined || !Array.isArray(auth.schemes) || typeof auth.credentials !== 'string') return undefined;
  return { authentication: { schemes: auth.schemes as string[], credentials: auth.credentials } };
}

/** A short digest: keys stay within the outbox's bound and the payload's id charset whatever the version says. */
function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 24);
}

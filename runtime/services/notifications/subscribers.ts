import type { Store } from '../../stores/open.js';
import type { SqlQuery } from '../../stores/sql.js';

/**
 * Agent-level notification subscribers (protocol/sync_agent_notification_configs.mdx): each authenticated principal's
 * own set, replaced whole by each sync (declarative), never reading or touching another principal's. Credentials are
 * kept to sign deliveries and never read back out.
 */

export interface Subscriber {
  readonly scope: string;
  readonly subscriber_id: string;
  readonly url: string;
  readonly event_types: readonly string[];
  readonly authentication?: Record<string, unknown>;
  readonly active: boolean;
}

export interface Subscribers {
  /** The principal's set, as registered (credentials included: for delivery only). */
  of(principal: string): Promise<Subscriber[]>;
  /** Replaces the principal's set with exactly `next` (all or nothing). */
  replace(principal: string, next: readonly Omit<Subscriber, 'scope'>[]): Promise<void>;
  /** Every active subscriber to an event type, across principals (to fire it); read in `tx` when given. */
  activeFor(eventType: string, tx?: SqlQuery): Promise<Subscriber[]>;
}

const SELECT = 'SELECT scope, subscriber_id, config, active FROM adcp_agent_subscribers';

export function subscribers(store: Store): Subscribers {
  const rows = async (sql: SqlQuery, where: string, params: unknown[]): Promise<Subscriber[]> =>
    (await sql.query(`${SELECT} ${where} ORDER BY subscriber_id`, params)).rows.map((r) => ({
      ...(JSON.parse(String(r.config)) as Omit<Subscriber, 'scope' | 'active'>),
      scope: String(r.scope),
      active: Number(r.active) === 1,
    }));
  return {
    of: async (principal) => rows(await store.open(), 'WHERE scope = $1', [principal]),
    async replace(principal, next) {
      const now = Date.now();
      // All or nothing: the old set goes and the new one comes in one transaction.
      await (await store.open()).transaction(async (tx) => {
        await tx.query('DELETE FROM adcp_agent_subscribers WHERE scope = $1', [principal]);
        for (const { active, ...config } of next) {
          await tx.query('INSERT INTO adcp_agent_subscribers (scope, subscriber_id, config, active, updated_at) VALUES ($1, $2, $3, $4, $5)', [
            principal,
            config.subscriber_id,
            JSON.stringify(config),
            active ? 1 : 0,
            now,
          ]);
        }
      });
    },
    async activeFor(eventType, tx) {
      return (await rows(tx ?? (await store.open()), 'WHERE active = 1', [])).filter((s) => s.event_types.includes(eventType));
    },
  };
}

import type { HandlerContext } from '../../api/agent-types.js';
import { AdcpError } from '../../wire/errors.js';
import type { Subscriber, Subscribers } from './subscribers.js';

/**
 * sync_agent_notification_configs (AdCP 3.2) as the runtime's own handler: the authenticated caller's complete set of
 * agent-level subscribers, replaced whole (`[]` clears it), never touching another caller's; a dry run changes
 * nothing. Refused unless the profile advertises capability-change notifications: a subscriber that will never fire
 * must not be accepted. Credentials are write-only: never in an answer.
 */
export interface SyncConfigsDeps {
  readonly subscribers: Subscribers;
  /** Whether the profile advertises `adcp.capability_changes.notifications.supported`. */
  readonly advertised: boolean;
  /**
   * Why a subscriber's registration is refused — its URL (the SSRF policy: https and a public address outside a
   * sandbox, a host that resolves), or its legacy `authentication` where the profile offers none — or undefined when
   * it may be used: a string is why the URL is refused; `{ message, field }` an error naming its field (under `at`,
   * `notification_configs[i]`). Checked for every entry, inactive ones too; may resolve the host (async).
   */
  readonly refuseUrl?: (
    url: string,
    authentication: Record<string, unknown> | undefined,
    at: string,
  ) => string | { message: string; field?: string } | undefined | Promise<string | { message: string; field?: string } | undefined>;
  /** Proof of control of a new or changed active subscriber's endpoint: undefined when proven, else why not. */
  readonly prove?: (principal: string, subscriber: Omit<Subscriber, 'scope'>) => Promise<string | undefined>;
}

type Entry = Omit<Subscriber, 'scope'>;

export function syncAgentNotificationConfigs(deps: SyncConfigsDeps) {
  return async (args: Record<string, any>, ctx: HandlerContext): Promise<Record<string, unknown>> => {
    if (!deps.advertised) {
      throw new AdcpError('UNSUPPORTED_FEATURE', 'This agent does not offer capability-change notifications (adcp.capability_changes.notifications)', { recovery: 'terminal' });
    }
    // The entry authenticates protected calls; an unbound registration is refused here too (defence in depth).
    if (ctx.principal === undefined || ctx.principal === '') throw new AdcpError('AUTH_MISSING', 'Registering agent-level subscribers needs an authenticated caller', { recovery: 'correctable' });
    const principal = ctx.principal;
    const dryRun = args.dry_run === true;
    const next: Entry[] = (args.notification_configs as Record<string, any>[]).map((c) => ({
      subscriber_id: String(c.subscriber_id),
      url: String(c.url),
      event_types: [...(c.event_types as string[])],
      ...(c.authentication !== undefined ? { authentication: c.authentication as Record<string, unknown> } : {}),
      active: c.active !== false,
    }));
    const current = (await deps.subscribers.of(principal)).map(({ scope: _s, ...e }) => e);
    const failed = (code: string, message: string, field: string) => ({ action: 'failed', dry_run: dryRun, notification_configs: current.map(redacted), errors: [{ code, message, field }] });
    const seen = new Set<string>();
    for (const [i, c] of next.entries()) {
      if (seen.has(c.subscriber_id)) return failed('INVALID_REQUEST', `subscriber_id ${c.subscriber_id} appears twice`, `notification_configs[${i}].subscriber_id`);
      seen.add(c.subscriber_id);
      const refused = await deps.refuseUrl?.(c.url, c.authentication, `notification_configs[${i}]`);
      if (typeof refused === 'string') return failed('INVALID_REQUEST', `the subscriber URL is refused: ${refused}`, `notification_configs[${i}].url`);
      if (refused !== undefined) return failed('INVALID_REQUEST', refused.message, refused.field ?? `notification_configs[${i}].url`);
    }
    const same = JSON.stringify(sorted(current)) === JSON.stringify(sorted(next));
    const action = same ? 'unchanged' : next.length === 0 ? 'cleared' : 'updated';
    if (!dryRun && !same) {
      // Endpoint proof for each new or changed active subscriber, before any of them is activated.
      for (const [i, c] of next.entries()) {
        const before = current.find((p) => p.subscriber_id === c.subscriber_id);
        if (!c.active || (before !== undefined && JSON.stringify(before) === JSON.stringify(c))) continue;
        const unproven = await deps.prove?.(principal, c);
        if (unproven !== undefined) return failed('INVALID_REQUEST', `endpoint proof of control failed: ${unproven}`, `notification_configs[${i}].url`);
      }
      await deps.subscribers.replace(principal, next);
    }
    return { action, dry_run: dryRun, notification_configs: (dryRun ? current : next).map(redacted) };
  };
}

/** An entry as answered: `authentication.credentials` left out. */
function redacted(e: Entry): Record<string, unknown> {
  if (e.authentication === undefined) return { ...e };
  const { credentials: _c, ...auth } = e.authentication;
  return { ...e, authentication: auth };
}

function sorted(list: readonly Entry[]): Entry[] {
  return [...list].sort((a, b) => (a.subscriber_id < b.subscriber_id ? -1 : 1));
}

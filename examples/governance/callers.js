// @ts-check
import { reject } from '../common/errors.js';

/**
 * Who is calling, as the governance agent's own records say: each credential's principal resolves to one agent URL
 * (the buyer an orchestrator's key belongs to, the service a sync_governance credential was registered for). The
 * `caller` a request claims must be exactly that URL (the governance specification: the agent resolves the
 * credential, requires equality with `caller`, and uses only the resolved URL for authorization, audit and issuance).
 *
 * @param {Readonly<Record<string, string>>} urls principal → agent URL
 * @returns {(ctx: { principal?: string }, claimed: unknown) => string}
 */
export function createCallers(urls) {
  return (ctx, claimed) => {
    const principal = ctx.principal ?? '';
    const url = Object.hasOwn(urls, principal) ? urls[principal] : undefined;
    if (url === undefined) return reject('PERMISSION_DENIED', 'this credential resolves to no agent URL', { recovery: 'terminal' });
    if (claimed !== undefined && claimed !== url) return reject('PERMISSION_DENIED', 'caller is not the URL the authenticated credential resolves to', { field: 'caller' });
    return url;
  };
}

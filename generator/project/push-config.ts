import type { Release } from '../load/index.js';
import { declaresPath } from './capabilities.js';

/**
 * The tools of a release whose request's `push_notification_config` declares `operation_id` (AdCP 3.2's
 * core/push-notification-config.json does; 3.0.6's does not). In such a release a task that registers a webhook
 * without `operation_id` is refused with INVALID_REQUEST (L3/webhooks.mdx, Operation IDs: the webhook envelope it
 * must send requires one); a release that never declared it keeps 3.0's behaviour. Derived from the schemas.
 */
export function pushOperationIdTools(release: Release, tools: readonly string[]): string[] {
  return tools.filter((name) => {
    const root = release.schemas.byPath.get(release.tools.get(name)!.requestSchema);
    return root !== undefined && declaresPath(release, root.schema, root.id, ['push_notification_config', 'operation_id']);
  });
}

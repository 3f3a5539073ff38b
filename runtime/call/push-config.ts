import type { Answer, Call } from './call.js';

/**
 * A buyer's `push_notification_config`, checked when the call registering it arrives (security.mdx, Webhook URL
 * validation (SSRF); L3/webhooks.mdx, mode selection), before the replay contract and the handler, by the outbox's
 * push check: a URL the agent must never register — not https (outside a sandbox), a private, loopback, link-local
 * or metadata address as written or as its name resolves, credentials in it — or a malformed legacy `authentication`
 * is INVALID_REQUEST naming the field, now. A channel the agent could not honour — it delivers no webhooks, the host
 * does not resolve, a legacy scheme the profile does not offer — is refused by `ctx.task()`, the same error, when the
 * call goes async (L3/async-operations.mdx: a server rejects a webhook channel it cannot honour rather than accept the
 * task); a call answered at once sends no webhook and needs none (L3/webhooks.mdx). A tool called without one costs
 * nothing here: no service is made, no module loaded.
 */
export async function pushConfig(call: Call): Promise<Answer | void> {
  if (pushConfig.idle(call)) return;
  const verdict = await call.env.services.vetPush(call.asked.push_notification_config);
  if (verdict.refused !== undefined) return call.reject(verdict.refused.toBody());
  call.pushUnusable = verdict.unusable;
}

/** No push_notification_config: nothing to check. */
pushConfig.idle = (call: Call): boolean => call.asked.push_notification_config === undefined;

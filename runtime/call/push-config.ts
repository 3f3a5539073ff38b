import type { Answer, Call } from './call.js';

/**
 * A buyer's `push_notification_config`, checked when the call registering it arrives (security.mdx, Webhook URL
 * validation (SSRF); L3/webhooks.mdx, mode selection), before the replay contract and the handler: a URL the agent
 * would never deliver to — http or a private, loopback, link-local or metadata address outside a sandbox, a host that
 * does not resolve — or a legacy `authentication` the profile does not offer is INVALID_REQUEST naming the field, not
 * a webhook a worker fails to send later. An agent that delivers no webhooks refuses the channel outright (AdCP: a
 * server that cannot honour a webhook channel rejects the request rather than downgrading). A tool called without
 * one costs nothing here: no service is made, no module loaded.
 */
export async function pushConfig(call: Call): Promise<Answer | void> {
  const push = call.asked.push_notification_config;
  if (push === undefined) return;
  const refused = await call.env.services.webhooks.checkPushConfig(push);
  if (refused !== undefined) return call.reject(refused.toBody());
}

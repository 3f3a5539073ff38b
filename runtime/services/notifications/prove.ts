import { WARNINGS, type RuntimeLog } from '../../ops/log.js';
import { createHash, randomBytes } from 'node:crypto';
import type { SigningKeys } from '../keys/keys.js';
import { sdkServer, sdkSigningClient, ssrfPolicy, type FetchLike } from '../webhooks/sdk.js';
import type { Subscriber } from './subscribers.js';
import { firstLine, hostOf } from '../../wire/report.js';

/**
 * Endpoint proof of control before a new or changed active agent-level subscriber is activated
 * (protocol/sync_agent_notification_configs.mdx, Endpoint proof; security.mdx, Webhook URL validation): a POST of
 * core/agent-webhook-challenge.json — `type: "webhook.challenge"`, `scope: "agent"`, a fresh random `challenge`,
 * the `subscriber_id`, the agent's URL, the delivery mode it will use and the event types — signed with the agent's
 * RFC 9421 webhook key (@adcp/sdk's signWebhook, as every webhook; even for a subscriber choosing legacy delivery),
 * through the same SSRF-safe, address-pinned fetch as deliveries, never following a redirect. Proven when the
 * receiver answers 2xx with JSON echoing the challenge (core/webhook-challenge-response.json: `challenge`, or its
 * alias `token`). Why not is told without the fetch's details (security.mdx: no network side channel to the caller).
 */
export interface ProofEnv {
  readonly keys: SigningKeys;
  readonly sandbox: boolean;
  /** The agent's MCP URL (`seller_agent_url`), once known. */
  readonly agentUrl: () => string | undefined;
  readonly timeoutMs?: number;
  readonly profile: string;
  readonly log?: RuntimeLog;
}

/** A 2xx answer's body beyond this is not a challenge response. */
const MAX_ANSWER_BYTES = 65_536;

type Prove = (principal: string, subscriber: Omit<Subscriber, 'scope'>) => Promise<string | undefined>;

export function endpointProof(env: ProofEnv): Prove {
  let fetch: FetchLike | undefined;
  return async (_principal, subscriber) => {
    const agentUrl = env.agentUrl();
    if (agentUrl === undefined) return "the agent's own URL is not known yet (set ADCP_PUBLIC_URL), so no challenge can name it";
    const challenge = randomBytes(32).toString('base64url');
    const auth = subscriber.authentication as { schemes?: unknown; credentials?: unknown } | undefined;
    const scheme = Array.isArray(auth?.schemes) ? String(auth.schemes[0]) : undefined;
    const body = JSON.stringify({
      type: 'webhook.challenge',
      scope: 'agent',
      challenge,
      subscriber_id: subscriber.subscriber_id,
      seller_agent_url: agentUrl,
      delivery_auth:
        scheme === undefined ? { mode: 'rfc9421' } : { mode: scheme, credential_fingerprint: createHash('sha256').update(String(auth!.credentials)).digest('hex') },
      event_types: [...new Set(subscriber.event_types)],
    });
    const sdk = sdkServer();
    fetch ??= sdk.createPinAndBindFetch({ policy: ssrfPolicy(env.sandbox) });
    const headers = { 'content-type': 'application/json' };
    const signed = sdkSigningClient().signWebhook({ method: 'POST', url: subscriber.url, headers, body }, (await env.keys.pair()).signer);
    let answer: { status: number; text: string | undefined };
    try {
      const response = await fetch(subscriber.url, { method: 'POST', headers: { ...headers, ...signed.headers }, body, redirect: 'manual', signal: AbortSignal.timeout(env.timeoutMs ?? 10_000) });
      answer = { status: response.status, text: await bounded(response.body as unknown as Readable | null | undefined) };
    } catch (e) {
      (env.log ?? WARNINGS).warn('endpoint_proof_failed', `adcp-codegen: ${env.profile}: the endpoint-proof challenge to ${hostOf(subscriber.url)} failed: ${firstLine(e)}`, { host: hostOf(subscriber.url) });
      return 'the endpoint could not be reached';
    }
    if (answer.status < 200 || answer.status > 299) return `the endpoint answered the challenge with HTTP ${answer.status}, not 2xx`;
    let echoed: unknown;
    try {
      const parsed = JSON.parse(answer.text ?? '') as Record<string, unknown>;
      // webhook-challenge-response.json: exactly one of `challenge` and its alias `token`.
      echoed = parsed.challenge !== undefined && parsed.token !== undefined ? undefined : (parsed.challenge ?? parsed.token);
    } catch {
      echoed = undefined;
    }
    return echoed === challenge ? undefined : 'the endpoint answered 2xx without echoing the challenge (a JSON body { "challenge": "<the challenge>" })';
  };
}

interface Readable {
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> };
}

/** The body as text, or undefined when it is over MAX_ANSWER_BYTES (then not read further). */
async function bounded(body: Readable | null | undefined): Promise<string | undefined> {
  if (body === null || body === undefined) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value!.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value!);
  }
  return Buffer.concat(chunks).toString('utf8');
}


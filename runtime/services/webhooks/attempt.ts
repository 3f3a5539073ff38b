import type { SignerKey } from '../keys/key-material.js';
import type { LeasedRow } from './records.js';
import type { FetchLike, LegacyAuthentication, ResponseLike, SdkServer } from './sdk.js';

/**
 * One delivery attempt of one outbox row, through @adcp/sdk's webhook emitter with retries off: it signs the row's
 * body (RFC 9421 with a fresh nonce, or the legacy HMAC/Bearer headers the buyer asked for) and posts it through the
 * SSRF-safe fetch. The emitter is handed the row's own idempotency key (its key store answers it) and the row's
 * event id as its `operation_id` (that parameter only keys its store; the buyer's operation_id is in the body), so the
 * body it serializes is the frozen one, byte for byte. What the receiver answered is read here, not from the
 * emitter's summary, and classified by the outbox's rules (classify).
 */

export type Verdict =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'retry'; readonly status?: number; readonly error: string; readonly retryAfterMs?: number }
  | { readonly kind: 'terminal'; readonly status?: number; readonly error: string };

export interface AttemptEnv {
  readonly sdk: SdkServer;
  /** The pin-and-bind fetch (one per worker: it owns a connection pool). */
  readonly fetch: FetchLike;
  readonly signer: SignerKey;
  readonly timeoutMs: number;
}

export async function attempt(env: AttemptEnv, row: LeasedRow): Promise<Verdict> {
  let response: ResponseLike | undefined;
  let thrown: unknown;
  const fetch: FetchLike = async (url, init) => {
    try {
      // Redirects are never followed (security.mdx, Webhook URL validation, rule 4): a 3xx is the receiver's answer.
      response = await env.fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(env.timeoutMs) });
    } catch (e) {
      thrown = e;
      throw e;
    }
    // The emitter reads the status and headers only: the body is let go, so the connection is free at once.
    await response.body?.cancel().catch(() => undefined);
    return response;
  };
  const emitter = env.sdk.createWebhookEmitter({
    signerKey: env.signer,
    fetch,
    retries: { maxAttempts: 1 },
    idempotencyKeyStore: { get: () => row.idempotencyKey, set: () => undefined },
    // The deprecation is the outbox's to log (once per event), not the SDK's console.
    suppressLegacyWarnings: true,
  });
  const result = await emitter.emit({ url: row.url, payload: JSON.parse(row.body) as Record<string, unknown>, operation_id: row.eventId, authentication: legacy(row) });
  if (response !== undefined) return classify(response);
  if (thrown !== undefined && hasCode(thrown, 'EADCP_SSRF_BLOCKED')) return { kind: 'terminal', error: `refused by the SSRF policy: ${reason(thrown)}` };
  if (thrown !== undefined) return { kind: 'retry', error: reason(thrown) };
  // Nothing was sent: signing failed (the emitter caught it). Retried, as a key problem may be fixed by a restart.
  return { kind: 'retry', error: result.errors.at(-1)?.replace(/^attempt \d+: /, '') ?? 'not sent' };
}

/**
 * The receiver's answer as the outbox reads it (webhooks.mdx, Reliability; security.mdx, Webhook error taxonomy):
 * 2xx delivered; 429 and 5xx retried (after Retry-After when it says longer); a 401 with
 * `WWW-Authenticate: Signature error="webhook_*"` and every other 4xx are final for this event (409: the key is bound
 * to another payload; retrying sends the same bytes and fails the same way); a 3xx is final too (never followed).
 */
export function classify(response: { status: number; headers: { get(name: string): string | null } }): Verdict {
  const status = response.status;
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 429 || status >= 500) {
    const after = retryAfterMs(response.headers.get('retry-after'));
    return { kind: 'retry', status, error: `HTTP ${status}`, ...(after !== undefined ? { retryAfterMs: after } : {}) };
  }
  const challenge = response.headers.get('www-authenticate') ?? '';
  const code = /Signature\s+error="(webhook_[a-z0-9_]+)"/i.exec(challenge)?.[1];
  if (status === 401 && code !== undefined) return { kind: 'terminal', status, error: `HTTP 401: the receiver refused the signature (${code})` };
  if (status >= 300 && status < 400) return { kind: 'terminal', status, error: `HTTP ${status}: redirects are not followed` };
  return { kind: 'terminal', status, error: `HTTP ${status}` };
}

/** Retry-After as delay-seconds or an HTTP date, in ms; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function legacy(row: LeasedRow): LegacyAuthentication | null {
  if (row.authMode === 'hmac_sha256') return { type: 'hmac_sha256', secret: row.authSecret ?? '' };
  if (row.authMode === 'bearer') return { type: 'bearer', token: row.authSecret ?? '' };
  return null;
}

/** Whether an error or one of its causes (undici wraps the connector's) carries `code`. */
function hasCode(e: unknown, code: string): boolean {
  for (let cur = e, depth = 0; cur !== null && typeof cur === 'object' && depth < 6; cur = (cur as { cause?: unknown }).cause, depth++) {
    if ((cur as { code?: unknown }).code === code) return true;
  }
  return false;
}

/** An error's reason, its causes joined, short: codes and first lines (no header, body or credential is in them). */
function reason(e: unknown): string {
  const parts: string[] = [];
  for (let cur = e, depth = 0; cur !== null && typeof cur === 'object' && depth < 4; cur = (cur as { cause?: unknown }).cause, depth++) {
    const err = cur as { code?: unknown; name?: unknown; message?: unknown };
    const message = typeof err.message === 'string' ? err.message.split('\n')[0]! : '';
    parts.push([typeof err.code === 'string' ? err.code : err.name === 'TimeoutError' ? 'timeout' : '', message].filter((p) => p !== '').join(' '));
  }
  return parts.filter((p) => p !== '').join(': ').slice(0, 300) || String(e).slice(0, 300);
}

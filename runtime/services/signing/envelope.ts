import type { Headers } from './sdk.js';

/**
 * What the verifier reads of a request before any signature work: whether it is signed at all, and, from its JSON-RPC
 * body, the protocol methods and AdCP operations it invokes and whether it registers webhook credentials. Plain JSON
 * reading only; the signature headers themselves are the SDK's to parse.
 */

/** One JSON-RPC message of the body: its method, and the AdCP operation it invokes, if any. */
export interface Invocation {
  /** `tools/call`, `tasks/cancel`, `message/send` … */
  readonly method: string;
  /** MCP `tools/call` → `params.name`; A2A `message/send` / `message/stream` → its DataPart's `skill`. */
  readonly operation?: string;
}

/**
 * Bodies larger than this are not read on the unsigned path (@adcp/sdk's bound): one that may carry webhook credentials
 * cannot be shown not to within that budget, so it must be signed.
 */
export const MAX_UNSIGNED_BODY_BYTES = 1_048_576;
/** Deeper than this, a body is not searched for webhook credentials (real AdCP payloads reach depth 5–8). */
const MAX_DEPTH = 64;

const A2A_SEND = new Set(['message/send', 'message/stream', 'SendMessage', 'SendStreamingMessage']);

/** A header's value, the name matched case-insensitively (node lowercases; vectors and proxies may not). */
export function headerValue(headers: Headers, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name) continue;
    if (v === undefined) return undefined;
    return Array.isArray(v) ? v.map((s) => s.trim()).join(', ') : v.trim();
  }
  return undefined;
}

/** The body as JSON, or undefined when it is none (not JSON, empty). */
export function parseBody(body: string): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC messages of a body (one, or a batch); none when it is not JSON-RPC. */
export function invocationsOf(json: unknown): Invocation[] {
  const calls: Invocation[] = [];
  for (const message of Array.isArray(json) ? json : [json]) {
    if (!isObject(message) || typeof message.method !== 'string') continue;
    const params = isObject(message.params) ? message.params : {};
    let operation: string | undefined;
    if (message.method === 'tools/call' && typeof params.name === 'string') operation = params.name;
    if (A2A_SEND.has(message.method)) {
      const msg = isObject(params.message) ? params.message : isObject(params.request) ? params.request : undefined;
      if (Array.isArray(msg?.parts)) operation = msg.parts.map(skillOf).find((s) => s !== undefined);
    }
    calls.push(operation === undefined ? { method: message.method } : { method: message.method, operation });
  }
  return calls;
}

/** A DataPart's `skill`: 0.3 `{ kind: 'data', data }`, 1.x `{ data: { data } }` or `{ content: { value } }`. */
function skillOf(part: unknown): string | undefined {
  if (!isObject(part)) return undefined;
  const inner = isObject(part.data) ? part.data : isObject(part.content) ? part.content : undefined;
  for (const candidate of [inner, inner?.data, inner?.value]) {
    if (isObject(candidate) && typeof candidate.skill === 'string') return candidate.skill;
  }
  return undefined;
}

/**
 * Whether the body registers webhook credentials anywhere (`push_notification_config.authentication`, or an
 * `authentication` in `notification_configs[]`): such a request must be signed whatever its operation (security.mdx,
 * "Webhook callbacks", downgrade resistance; negative vector 027), other credentials or not.
 */
export function carriesWebhookCredentials(value: unknown, depth = MAX_DEPTH): boolean {
  if (depth <= 0 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => carriesWebhookCredentials(v, depth - 1));
  const obj = value as Record<string, unknown>;
  if (hasAuthentication(obj.push_notification_config)) return true;
  if (Array.isArray(obj.notification_configs) && obj.notification_configs.some(hasAuthentication)) return true;
  for (const [key, v] of Object.entries(obj)) {
    if (key !== 'push_notification_config' && carriesWebhookCredentials(v, depth - 1)) return true;
  }
  return false;
}

function hasAuthentication(config: unknown): boolean {
  if (!isObject(config)) return false;
  const auth = config.authentication;
  return isObject(auth) && Object.keys(auth).length > 0;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

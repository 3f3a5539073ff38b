import { agentPackage } from '../../artifacts/packages.js';
import type { SignerKey } from '../keys/key-material.js';

/**
 * What the outbox uses of the agent's own @adcp/sdk (6.11), structurally, loaded on first need: requiring
 * `@adcp/sdk/server` costs ~0.9 s, so an agent pays it when its delivery worker starts (`ready()`), never on a call.
 * - `createWebhookEmitter`, driven one attempt at a time (`retries.maxAttempts: 1`): the compact JSON body, the
 *   RFC 9421 webhook signature (`signWebhook`, a fresh nonce and `created` per attempt), the legacy HMAC-SHA256 and
 *   Bearer headers, posted through the fetch it is given;
 * - `createPinAndBindFetch` with `WEBHOOK_SSRF_POLICY` (https only; private, loopback, link-local and metadata
 *   addresses refused after resolution, the connection pinned to the checked address), or in a sandbox
 *   `LOOPBACK_OK_WEBHOOK_SSRF_POLICY` (http and loopback allowed, every other range still refused), each with the
 *   special-purpose blocks the SDK's lists miss refused beneath it (address-policy.ts);
 * - from `@adcp/sdk/substitution` (~25 ms), `enforceSsrfPolicy` / `enforceSsrfPolicyResolved`: the same policy
 *   checked on a push URL when the call registering it arrives.
 */

export interface ResponseLike {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body?: { cancel(): Promise<void> } | null;
}

export interface FetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  redirect?: 'manual' | 'follow' | 'error';
  signal?: AbortSignal;
}

export type FetchLike = (url: string, init: FetchInit) => Promise<ResponseLike>;

export type LegacyAuthentication = { type: 'hmac_sha256'; secret: string } | { type: 'bearer'; token: string };

export interface EmitResult {
  readonly delivered: boolean;
  readonly final_status?: number;
  readonly errors: readonly string[];
}

export interface WebhookEmitter {
  emit(params: { url: string; payload: Record<string, unknown>; operation_id: string; authentication?: LegacyAuthentication | null }): Promise<EmitResult>;
}

export interface SdkServer {
  createWebhookEmitter(options: {
    signerKey: SignerKey;
    fetch: FetchLike;
    retries: { maxAttempts: number };
    idempotencyKeyStore: { get(id: string): string | undefined; set(id: string, key: string): void };
    suppressLegacyWarnings: boolean;
  }): WebhookEmitter;
  createPinAndBindFetch(options: { policy: SsrfPolicy; lookup?: (hostname: string, options: Record<string, unknown>, callback: (error: NodeJS.ErrnoException | null, addresses?: { address: string; family: number }[]) => void) => void }): FetchLike;
  readonly WEBHOOK_SSRF_POLICY: SsrfPolicy;
  readonly LOOPBACK_OK_WEBHOOK_SSRF_POLICY: SsrfPolicy;
}

/** The SDK's SSRF policy object: opaque here, passed back to the SDK. */
export type SsrfPolicy = { readonly schemes_allowed: readonly string[] } & Readonly<Record<string, unknown>>;

export interface PolicyResult {
  readonly allowed: boolean;
  readonly rule?: string;
  readonly message?: string;
}

export interface SdkSubstitution {
  enforceSsrfPolicy(url: URL, policy: SsrfPolicy): PolicyResult;
  enforceSsrfPolicyResolved(url: URL, addresses: readonly string[], policy: SsrfPolicy): PolicyResult;
}

/** @adcp/sdk/signing/client, structurally: the RFC 9421 webhook signature alone (the endpoint-proof challenge's). */
export interface SdkSigningClient {
  signWebhook(request: { method: string; url: string; headers: Record<string, string>; body: string }, key: SignerKey): { headers: Record<string, string> };
}

export function sdkServer(): SdkServer {
  return agentPackage<SdkServer>('@adcp/sdk/server', 'signed webhook delivery');
}

/** Loaded after @adcp/sdk/server (its modules are already in memory then): nothing more to pay. */
export function sdkSigningClient(): SdkSigningClient {
  return agentPackage<SdkSigningClient>('@adcp/sdk/signing/client', 'signing an endpoint-proof challenge');
}

export function sdkSubstitution(): SdkSubstitution {
  return agentPackage<SdkSubstitution>('@adcp/sdk/substitution', 'checking webhook URLs');
}

/** The SSRF policy for this agent: AdCP's webhook policy, or in a sandbox the one that lets loopback receivers in. */
export function ssrfPolicy(sandbox: boolean): SsrfPolicy {
  const sdk = sdkServer();
  return sandbox ? sdk.LOOPBACK_OK_WEBHOOK_SSRF_POLICY : sdk.WEBHOOK_SSRF_POLICY;
}

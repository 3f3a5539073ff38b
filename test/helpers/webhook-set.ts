import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli.js';
import { tempDir, tinyRelease, writeTree } from './fixture-release.js';
import { repoRoot } from './releases.js';

/**
 * A generated set over the tiny fixture release whose profiles advertise webhook signing as AdCP 3.2 lets them
 * (security.mdx, Webhook callbacks) — the release's capabilities schema declares `webhook_signing` and
 * `identity.brand_json_url`, as 3.2's does — in an agent repository with its dependencies beside it:
 * - `hooks-sandbox`: a sandbox surface (the compliance controller served), legacy HMAC offered, a replay window;
 * - `hooks-production`: production, legacy HMAC not offered;
 * - `hooks-stated`: production, stating its own `identity.brand_json_url`;
 * - `hooks-plain`: no webhook_signing (an agent that delivers no webhooks);
 * - `hooks-notify` and `hooks-notify-next`: capability-change notifications (AdCP 3.2's `adcp.capability_changes`,
 *   sync_agent_notification_configs served), two deployments whose capabilities differ (so their derived
 *   capabilities_version does); `hooks-notify-unsigned` advertises notifications without webhook_signing.
 * Async tasks register webhooks the way AdCP's releases do: `make_thing` with 3.2's push_notification_config (it
 * declares `operation_id`), `get_things` with 3.0.6's (it does not).
 * Generated once per process; the set's directory is returned.
 */
export const SIGNING = { supported: true, profile: 'adcp/webhook-signing/v1', algorithms: ['ed25519'], delivery_retry_horizon_seconds: 86400 };
export const STATED_BRAND_JSON = 'https://operator.example/.well-known/brand.json';

const NOTIFY = {
  cache_ttl_seconds: 3600,
  notifications: { supported: true, registration_task: 'sync_agent_notification_configs', event_types: ['capabilities.changed'] },
};

let generated: Promise<string> | undefined;

export function webhookSet(): Promise<string> {
  generated ??= (async () => {
    const id = (p: string): string => `/schemas/9.1.0/${p}`;
    const schema = (p: string, body: Record<string, unknown>) => ({ [p]: { $schema: 'http://json-schema.org/draft-07/schema#', $id: id(p), ...body } });
    const caps = JSON.parse(readFileSync(join(tinyRelease(), 'protocol/caps-response.json'), 'utf8')) as { properties: Record<string, unknown> };
    caps.properties.webhook_signing = {
      type: 'object',
      required: ['supported'],
      properties: {
        supported: { type: 'boolean' },
        profile: { enum: ['adcp/webhook-signing/v1'] },
        algorithms: { type: 'array', items: { enum: ['ed25519', 'ecdsa-p256-sha256'] } },
        legacy_hmac_fallback: { type: 'boolean' },
        delivery_retry_horizon_seconds: { type: 'integer', minimum: 86400, maximum: 604800 },
      },
    };
    caps.properties.identity = { type: 'object', properties: { brand_json_url: { type: 'string', format: 'uri', pattern: '^https://' } } };
    const push = (operationId: boolean) => ({
      type: 'object',
      required: ['url'],
      properties: {
        url: { type: 'string', format: 'uri' },
        ...(operationId ? { operation_id: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,255}$' } } : {}),
        token: { type: 'string', minLength: 16, maxLength: 4096 },
        authentication: { type: 'object', required: ['schemes', 'credentials'], properties: { schemes: { type: 'array', items: { enum: ['Bearer', 'HMAC-SHA256'] } }, credentials: { type: 'string', minLength: 32 } } },
      },
    });
    const manifest = JSON.parse(readFileSync(join(tinyRelease(), 'manifest.json'), 'utf8')) as { tools: Record<string, unknown> };
    manifest.tools.sync_agent_notification_configs = {
      protocol: 'protocol',
      mutating: true,
      request_schema: 'protocol/sync-configs-request.json',
      response_schema: 'protocol/sync-configs-response.json',
      summary: 'Agent-level subscribers.',
    };
    const release = tinyRelease({
      'manifest.json': manifest,
      'protocol/caps-response.json': { ...caps, $id: id('protocol/caps-response.json') },
      ...schema('core/push-notification-config.json', push(true)),
      ...schema('core/push-notification-config-3.0.json', push(false)),
      ...schema('media-buy/make-thing-request.json', {
        type: 'object',
        properties: { thing: { $ref: '../core/thing.json' }, idempotency_key: { type: 'string' }, context: { type: 'object' }, push_notification_config: { $ref: '../core/push-notification-config.json' } },
        required: ['thing'],
      }),
      ...schema('media-buy/get-things-request.json', {
        type: 'object',
        properties: { limit: { type: 'integer' }, context: { type: 'object' }, push_notification_config: { $ref: '../core/push-notification-config-3.0.json' } },
      }),
      ...schema('protocol/sync-configs-request.json', {
        type: 'object',
        required: ['idempotency_key', 'notification_configs'],
        properties: {
          idempotency_key: { type: 'string' },
          dry_run: { type: 'boolean' },
          context: { type: 'object' },
          notification_configs: {
            type: 'array',
            maxItems: 16,
            items: {
              type: 'object',
              required: ['subscriber_id', 'url', 'event_types'],
              properties: {
                subscriber_id: { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$' },
                url: { type: 'string', format: 'uri' },
                event_types: { type: 'array', minItems: 1, items: { enum: ['capabilities.changed'] } },
                authentication: { type: 'object' },
                active: { type: 'boolean' },
              },
            },
          },
        },
      }),
      ...schema('protocol/sync-configs-response.json', { type: 'object' }),
    });
    const base = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };
    const profile = (name: string, extra: Record<string, unknown>) => ({
      name,
      tools: ['get_adcp_capabilities', 'get_things', 'make_thing'],
      capabilities: { ...base, webhook_signing: { ...SIGNING, legacy_hmac_fallback: false } },
      ...extra,
    });
    const notify = (name: string, protocols: string[], signing = true) => ({
      name,
      tools: ['get_adcp_capabilities', 'get_things', 'make_thing', 'sync_agent_notification_configs'],
      capabilities: {
        adcp: { major_versions: [9], capability_changes: NOTIFY },
        supported_protocols: protocols,
        ...(signing ? { webhook_signing: { ...SIGNING, legacy_hmac_fallback: false } } : {}),
      },
    });
    const work = writeTree(
      {
        'package.json': { name: 'agent', private: true, type: 'module' },
        'profiles/sandbox.json': {
          ...profile('hooks-sandbox', { surface: 'sandbox', tools: ['get_adcp_capabilities', 'get_things', 'make_thing', 'comply_test_controller'], shared_tools: ['comply_test_controller'] }),
          capabilities: { adcp: { major_versions: [9], idempotency: { supported: true, replay_ttl_seconds: 86400 } }, supported_protocols: ['media_buy'], webhook_signing: { ...SIGNING, legacy_hmac_fallback: true } },
        },
        'profiles/production.json': profile('hooks-production', {}),
        'profiles/stated.json': {
          ...profile('hooks-stated', {}),
          capabilities: { ...base, webhook_signing: SIGNING, identity: { brand_json_url: STATED_BRAND_JSON } },
        },
        'profiles/plain.json': { ...profile('hooks-plain', {}), capabilities: base },
        'profiles/notify.json': notify('hooks-notify', ['media_buy']),
        'profiles/notify-next.json': notify('hooks-notify-next', ['media_buy', 'signals']),
        'profiles/notify-unsigned.json': notify('hooks-notify-unsigned', ['media_buy'], false),
        'adcp-codegen.config.json': { releases: [release], profiles: ['profiles/*.json'], out: 'generated' },
      },
      tempDir('adcp-webhook-set-'),
    );
    symlinkSync(join(repoRoot, 'node_modules'), join(work, 'node_modules'), 'dir');
    const run = await runCli(['generate'], work);
    if (run.code !== 0) throw new Error(`the webhook test set did not generate: ${run.stderr}`);
    return join(work, 'generated');
  })();
  return generated;
}

/**
 * AdCP 3.2.0-beta.5's webhook payload schemas, to check what the agent sends (ajv, draft-07): core/mcp-webhook-payload.json
 * with its enum `$ref`s inlined (`task_type` any string: the fixture's tools are not AdCP's) and `result` an object
 * (core/async-response-data.json's arms are AdCP's tools' responses); core/capabilities-changed-webhook.json and
 * core/agent-webhook-challenge.json as published (`ext` left out).
 */
const KEY = { type: 'string', minLength: 16, maxLength: 255, pattern: '^[A-Za-z0-9_.:-]{16,255}$' };
export const PAYLOAD_SCHEMAS = {
  mcpWebhookPayload: {
    type: 'object',
    required: ['idempotency_key', 'operation_id', 'task_id', 'task_type', 'status', 'timestamp'],
    properties: {
      idempotency_key: KEY,
      notification_id: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_.:-]{1,255}$' },
      operation_id: { type: 'string' },
      task_id: { type: 'string' },
      task_type: { type: 'string' },
      protocol: { enum: ['media-buy', 'signals', 'governance', 'creative', 'brand', 'sponsored-intelligence', 'measurement'] },
      status: { enum: ['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown'] },
      timestamp: { type: 'string', format: 'date-time' },
      message: { type: 'string' },
      context_id: { type: 'string' },
      token: { type: 'string', minLength: 16, maxLength: 4096 },
      result: { type: 'object' },
    },
    additionalProperties: true,
  },
  capabilitiesChanged: {
    type: 'object',
    required: ['idempotency_key', 'notification_id', 'notification_type', 'fired_at', 'subscriber_id', 'agent_url', 'changed_at', 'reason', 'capabilities_version'],
    properties: {
      idempotency_key: KEY,
      notification_id: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_.:-]{1,255}$' },
      notification_type: { type: 'string', const: 'capabilities.changed' },
      fired_at: { type: 'string', format: 'date-time' },
      subscriber_id: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]{1,64}$' },
      agent_url: { type: 'string', format: 'uri' },
      changed_at: { type: 'string', format: 'date-time' },
      reason: { type: 'string', enum: ['configuration_changed', 'deployment_changed', 'capability_enabled', 'capability_disabled', 'protocol_versions_changed', 'manual_refresh', 'other'] },
      capabilities_version: { type: 'string', minLength: 1, maxLength: 255 },
      changed_paths: { type: 'array', items: { type: 'string', pattern: '^(/[^\\s]*)$' }, minItems: 1, uniqueItems: true },
    },
    additionalProperties: false,
  },
  agentWebhookChallenge: {
    type: 'object',
    required: ['type', 'scope', 'challenge', 'subscriber_id', 'seller_agent_url', 'delivery_auth', 'event_types'],
    properties: {
      type: { type: 'string', const: 'webhook.challenge' },
      scope: { type: 'string', const: 'agent' },
      challenge: { type: 'string', minLength: 32, maxLength: 255, pattern: '^[A-Za-z0-9_.:-]{32,255}$' },
      subscriber_id: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]{1,64}$' },
      seller_agent_url: { type: 'string', format: 'uri' },
      delivery_auth: {
        type: 'object',
        properties: { mode: { type: 'string', enum: ['rfc9421', 'Bearer', 'HMAC-SHA256'] }, credential_fingerprint: { type: 'string', pattern: '^[a-f0-9]{64}$' } },
        required: ['mode'],
        allOf: [
          { if: { properties: { mode: { type: 'string', const: 'rfc9421' } }, required: ['mode'] }, then: { not: { required: ['credential_fingerprint'] } } },
          { if: { properties: { mode: { type: 'string', enum: ['Bearer', 'HMAC-SHA256'] } }, required: ['mode'] }, then: { required: ['credential_fingerprint'] } },
        ],
        additionalProperties: false,
      },
      event_types: { type: 'array', items: { type: 'string', enum: ['capabilities.changed'] }, minItems: 1, uniqueItems: true },
    },
    additionalProperties: false,
  },
} as const;

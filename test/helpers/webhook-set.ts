import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli.js';
import { tempDir, tinyRelease, writeTree } from './fixture-release.js';
import { repoRoot } from './releases.js';

/**
 * A generated set over the tiny fixture release whose profiles advertise webhook signing as AdCP 3.2 lets them
 * (security.mdx, Webhook callbacks) — the release's capabilities schema declares `webhook_signing` and
 * `identity.brand_json_url`, as 3.2's does — in an agent repository with its dependencies beside it:
 * - `hooks-sandbox`: a sandbox surface (the compliance controller served), legacy HMAC offered;
 * - `hooks-production`: production, legacy HMAC not offered;
 * - `hooks-stated`: production, stating its own `identity.brand_json_url`.
 * Generated once per process; the set's directory is returned.
 */
export const SIGNING = { supported: true, profile: 'adcp/webhook-signing/v1', algorithms: ['ed25519'], delivery_retry_horizon_seconds: 86400 };
export const STATED_BRAND_JSON = 'https://operator.example/.well-known/brand.json';

let generated: Promise<string> | undefined;

export function webhookSet(): Promise<string> {
  generated ??= (async () => {
    const id = (p: string): string => `/schemas/9.1.0/${p}`;
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
    const release = tinyRelease({ 'protocol/caps-response.json': { ...caps, $id: id('protocol/caps-response.json') } });
    const profile = (name: string, extra: Record<string, unknown>) => ({
      name,
      tools: ['get_adcp_capabilities', 'get_things', 'make_thing'],
      capabilities: { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'], webhook_signing: { ...SIGNING, legacy_hmac_fallback: false } },
      ...extra,
    });
    const work = writeTree(
      {
        'package.json': { name: 'agent', private: true, type: 'module' },
        'profiles/sandbox.json': {
          ...profile('hooks-sandbox', { surface: 'sandbox', tools: ['get_adcp_capabilities', 'get_things', 'make_thing', 'comply_test_controller'], shared_tools: ['comply_test_controller'] }),
          capabilities: { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'], webhook_signing: { ...SIGNING, legacy_hmac_fallback: true } },
        },
        'profiles/production.json': profile('hooks-production', {}),
        'profiles/stated.json': {
          ...profile('hooks-stated', {}),
          capabilities: { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'], webhook_signing: SIGNING, identity: { brand_json_url: STATED_BRAND_JSON } },
        },
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

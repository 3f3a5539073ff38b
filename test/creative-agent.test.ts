import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';
import { verifySigned } from './helpers/verify-webhook.js';
import { startReceiver } from './helpers/webhook-receiver.js';

/**
 * The reference creative agent (examples/creative/) white-box, on the committed set's `creative-agent` profile (AdCP
 * 3.0.6, development mode: the runtime checks every answer against the release) with the sandbox profile's format
 * catalog and webhook signing (what the committed 3.0 profile cannot state), its handlers called through agent.call:
 * the library's checks and policies, the template and the ad server's tags, usage reporting, and the lifecycle
 * webhooks, delivered signed to a receiver on loopback — which AdCP's grader cannot reach (grader-classified.ts).
 */
type Body = Record<string, any>;
const { createCreativeAgent } = (await import(pathToFileURL(join(repoRoot, 'examples/creative/index.js')).href)) as {
  createCreativeAgent(agent: unknown, options?: Record<string, unknown>): { handlers: Record<string, unknown> };
};
const sandbox = JSON.parse(readFileSync(join(repoRoot, 'examples/profiles/creative-agent-sandbox.json'), 'utf8')) as { capabilities: Record<string, any> };
const { loadProfile } = await committedSet();
const TOOLS = ['sync_creatives', 'list_creatives', 'build_creative', 'preview_creative', 'get_creative_delivery', 'report_usage', 'list_creative_formats'];

async function creativeAgent() {
  const agent = await loadProfile('creative-agent', { mode: 'development', store: { stateDir: tempDir() }, webhooks: { pollIntervalMs: 50 } });
  await agent.ready();
  const capabilities = (r?: string) => ({ ...agent.capabilities(r as never), creative: sandbox.capabilities.creative, webhook_signing: sandbox.capabilities.webhook_signing });
  const { handlers } = createCreativeAgent({ ...agent, webhooks: agent.webhooks, tools: () => [...TOOLS, 'comply_test_controller', 'sync_accounts'], capabilities }, { agentUrl: 'https://creative.example' });
  const call = async (tool: string, args: Record<string, unknown>): Promise<Body> => {
    // The controller, sync_accounts and report_usage are not in the committed 3.0 profile: called as handlers.
    if (tool === 'comply_test_controller' || tool === 'sync_accounts' || tool === 'report_usage') return (await (handlers[tool] as (a: unknown, c: unknown) => Promise<Body>)(args, { principal: 'buyer' })) as Body;
    return JSON.parse((await agent.call(tool, args, handlers[tool] as never, { principal: 'buyer' })).content[0]!.text as string) as Body;
  };
  return { agent, call };
}

let keys = 0;
const key = (): string => `k-${String(++keys).padStart(4, '0')}-c4ea7e00-0000-4000`;
const ACCOUNT = { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' };
const image = (width: number, height: number, url = 'https://cdn.acme.example/hero.png') => ({ asset_type: 'image', url, width, height });
const FORMAT = (id: string) => ({ agent_url: 'https://creative.example', id });

test('sync_creatives: a batch with a malformed creative is refused whole, naming each defect; a policy breach is that creative\'s failed row, one error per policy', async () => {
  const { agent, call } = await creativeAgent();
  const sync = (creatives: unknown[]) => call('sync_creatives', { idempotency_key: key(), account: ACCOUNT, creatives });
  const wrongSize = await sync([
    { creative_id: 'ok', name: 'ok', format_id: FORMAT('display_300x250'), assets: { image_main: image(300, 250) } },
    { creative_id: 'small', name: 'small', format_id: FORMAT('display_300x250'), assets: { image_main: image(320, 50) } },
  ]);
  assert.equal([wrongSize.adcp_error?.code, wrongSize.adcp_error?.field], ['VALIDATION_ERROR', 'creatives[1].assets.image_main']);
  assert.is((await call('list_creatives', { account: ACCOUNT })).creatives.length, 0, 'nothing of the refused batch was kept');
  const unknown = await sync([{ creative_id: 'x', name: 'x', format_id: { agent_url: 'https://other.example', id: 'x' }, assets: {} }]);
  assert.is(unknown.adcp_error?.code, 'FORMAT_NOT_SUPPORTED');

  const tag = { asset_type: 'url', url_type: 'tracker_script', url: 'http://ads.example/auto-redirect.js' };
  const rows = await sync([
    { creative_id: 'hero', name: 'Hero', format_id: FORMAT('display_300x250'), assets: { image_main: image(300, 250) } },
    { creative_id: 'bad_tag', name: 'Bad tag', format_id: FORMAT('display_tag_300x250'), assets: { tag_url: tag } },
  ]);
  assert.equal([rows.creatives[0].action, rows.creatives[0].status], ['created', 'approved']);
  assert.is(rows.creatives[1].action, 'failed');
  assert.equal(rows.creatives[1].errors.map((e: Body) => [e.code, e.details.policy_id]), [
    ['CREATIVE_REJECTED', 'creative_security_https_only'],
    ['CREATIVE_REJECTED', 'creative_security_auto_redirect'],
  ]);
  const listed = await call('list_creatives', { account: ACCOUNT, include_pricing: true });
  assert.equal(listed.creatives.map((c: Body) => c.creative_id), ['hero']);
  assert.equal(listed.creatives[0].format_id, FORMAT('display_300x250'), '3.0 names the format on this agent');
  await agent.close();
});

test('build_creative: the template renders each target from the manifest; the ad server tags a library creative for a buy; an unknown target is FORMAT_NOT_SUPPORTED', async () => {
  const { agent, call } = await creativeAgent();
  const manifest = { format_id: FORMAT('display_300x250'), assets: { image_main: image(300, 250), headline: { asset_type: 'text', content: 'Trail <Pro> & more' } } };
  const built = await call('build_creative', { idempotency_key: key(), account: ACCOUNT, creative_manifest: manifest, target_format_id: FORMAT('display_728x90') });
  const asset = built.creative_manifest.assets.image_main;
  assert.equal([asset.width, asset.height], [728, 90]);
  const svg = Buffer.from(String(asset.url).split(',')[1]!, 'base64').toString('utf8');
  assert.match(svg, /<svg [^>]*width="728" height="90"/);
  assert.match(svg, /Trail &#60;Pro&#62; &#38; more/, 'the headline is escaped into the markup');
  assert.match(svg, /href="https:\/\/cdn\.acme\.example\/hero\.png"/);
  assert.equal([built.pricing_option_id, built.vendor_cost], ['po_template_build', 2], 'the account is billed per output');

  const unknown = await call('build_creative', { idempotency_key: key(), account: ACCOUNT, creative_manifest: manifest, target_format_id: FORMAT('takeover_1x1') });
  assert.equal([unknown.errors?.[0].code, unknown.errors?.[0].field], ['FORMAT_NOT_SUPPORTED', 'target_capability_id']);

  await call('sync_creatives', { idempotency_key: key(), account: ACCOUNT, creatives: [{ creative_id: 'hero', name: 'Hero', format_id: FORMAT('display_300x250'), assets: { image_main: image(300, 250) } }] });
  const tagged = await call('build_creative', { idempotency_key: key(), account: ACCOUNT, creative_id: 'hero', target_format_id: FORMAT('display_tag_300x250'), media_buy_id: 'mb_1', package_id: 'pkg_1' });
  assert.match(tagged.creative_manifest.assets.tag_url.url, /^https:\/\/creative\.example\/adserver\/impression\?c=hero&mb=mb_1&pkg=pkg_1$/);
  const delivery = await call('get_creative_delivery', { account: ACCOUNT, media_buy_ids: ['mb_1'] });
  assert.equal(delivery.creatives.map((c: Body) => [c.creative_id, c.totals.impressions]), [['hero', 0]], 'the buy\'s creative, nothing served yet');
  await agent.close();
});

test('report_usage checks each record against the option it names; lifecycle changes are fired, signed, to the account\'s subscribers and listed as webhook activity', async () => {
  const receiver = await startReceiver();
  const { agent, call } = await creativeAgent();
  try {
    await call('sync_accounts', { accounts: [{ ...ACCOUNT, billing: 'operator', notification_configs: [{ subscriber_id: 'buyer-primary', url: `${receiver.base}/creative`, event_types: ['creative.status_changed'], active: true }] }] });
    await call('sync_creatives', { idempotency_key: key(), account: ACCOUNT, creatives: [{ creative_id: 'hero', name: 'Hero', format_id: FORMAT('display_300x250'), assets: { image_main: image(300, 250) } }] });
    const usage = await call('report_usage', {
      idempotency_key: key(),
      reporting_period: { start: '2026-01-01T00:00:00Z', end: '2026-01-31T23:59:59Z' },
      usage: [
        { account: ACCOUNT, creative_id: 'hero', pricing_option_id: 'po_adserving_cpm', impressions: 2000, vendor_cost: 1, currency: 'USD' },
        { account: ACCOUNT, creative_id: 'hero', pricing_option_id: 'po_adserving_cpm', impressions: 2000, vendor_cost: 5, currency: 'USD' },
        { account: ACCOUNT, creative_id: 'nope', pricing_option_id: 'po_adserving_cpm', impressions: 1, vendor_cost: 0, currency: 'USD' },
      ],
    });
    assert.is(usage.accepted, 1);
    assert.equal(usage.errors.map((e: Body) => [e.code, e.field]), [['INVALID_USAGE_DATA', 'usage[1].vendor_cost'], ['CREATIVE_NOT_FOUND', 'usage[2].creative_id']]);

    const forced = await call('comply_test_controller', { scenario: 'force_creative_status', account: { ...ACCOUNT, sandbox: true }, params: { creative_id: 'hero', status: 'suspended', reason_code: 'identity_authorization_expired' } });
    assert.equal([forced.success, forced.previous_state, forced.current_state], [true, 'approved', 'suspended']);
    await receiver.until((r) => r.some((x) => x.path === '/creative'), 10_000);
    const hook = receiver.received.find((x) => x.path === '/creative')!;
    assert.equal([hook.json.notification_type, hook.json.subscriber_id, hook.json.creative_id, hook.json.transition], ['creative.status_changed', 'buyer-primary', 'hero', { from: 'approved', to: 'suspended', observed_at: (hook.json.transition as Body).observed_at }]);
    assert.ok(typeof hook.json.idempotency_key === 'string' && typeof hook.json.fired_at === 'string');
    assert.ok((await verifySigned(agent, hook)).startsWith('adcp-dev-'), 'signed with the sandbox\'s key');
    const listed = await call('list_creatives', { account: ACCOUNT, include_webhook_activity: true });
    // 3.0 has no `suspended`: a held creative is `pending_review` there (3.2 says suspended).
    assert.equal([listed.creatives[0].status, listed.creatives[0].webhook_activity?.[0]?.notification_type], ['pending_review', 'creative.status_changed']);
    const invalid = await call('comply_test_controller', { scenario: 'force_creative_status', account: { ...ACCOUNT, sandbox: true }, params: { creative_id: 'hero', status: 'processing' } });
    assert.equal([invalid.error, invalid.current_state], ['INVALID_TRANSITION', 'suspended']);
  } finally {
    await agent.close();
    await receiver.close();
  }
});

test.run();

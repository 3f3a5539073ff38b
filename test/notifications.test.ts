import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';

/**
 * sync_agent_notification_configs as the runtime serves it (protocol/sync_agent_notification_configs.mdx), over the
 * embedded store really opened: each caller's set replaced whole and declaratively, `[]` clearing it, dry runs
 * changing nothing, credentials never answered, another caller's set untouched, and the task refused when the profile
 * advertises no notifications. Over AdCP 3.2 end to end (and AdCP's grader): test/real.
 */
type Body = Record<string, any>;
const dist = (p: string): string => pathToFileURL(join(repoRoot, 'dist/runtime', p)).href;
const { lazyStore } = (await import(dist('stores/open.js'))) as { lazyStore(o: unknown, p: string): { close(): Promise<void> } };
const { subscribers } = (await import(dist('services/notifications/subscribers.js'))) as { subscribers(s: unknown): unknown };
const { syncAgentNotificationConfigs } = (await import(dist('services/notifications/sync-configs.js'))) as {
  syncAgentNotificationConfigs(d: Body): (args: Body, ctx: Body) => Promise<Body>;
};

const config = (id: string, extra: Body = {}) => ({ subscriber_id: id, url: `https://buyer.example/hooks/${id}`, event_types: ['capabilities.changed'], ...extra });

test('replace, unchanged, dry run, clear; credentials never answered; another caller untouched; duplicates fail and change nothing', async () => {
  const store = lazyStore({ stateDir: tempDir() }, 'agent');
  const proven: string[] = [];
  const sync = syncAgentNotificationConfigs({ subscribers: subscribers(store), advertised: true, prove: async (_p: string, s: Body) => void proven.push(s.subscriber_id) });
  const a = { principal: 'buyer-a' };
  const b = { principal: 'buyer-b' };
  const secret = { schemes: ['Bearer'], credentials: 'x'.repeat(40) };
  const first = await sync({ idempotency_key: 'k'.repeat(16), notification_configs: [config('cache', { authentication: secret }), config('audit', { active: false })] }, a);
  assert.is(first.action, 'updated');
  assert.is(first.dry_run, false);
  assert.not.match(JSON.stringify(first), /xxxxxxxx/, 'credentials are write-only');
  assert.equal(first.notification_configs.map((c: Body) => c.subscriber_id), ['cache', 'audit']);
  assert.equal(proven, ['cache'], 'only a new active subscriber needs proof');
  await sync({ notification_configs: [config('cache')] }, b);
  const again = await sync({ notification_configs: [config('audit', { active: false }), config('cache', { authentication: secret })] }, a);
  assert.is(again.action, 'unchanged');
  const dry = await sync({ notification_configs: [], dry_run: true }, a);
  assert.is(dry.action, 'cleared');
  assert.is(dry.dry_run, true);
  assert.is(dry.notification_configs.length, 2, 'a dry run changes nothing');
  const dup = await sync({ notification_configs: [config('x'), config('x')] }, a);
  assert.is(dup.action, 'failed');
  assert.is(dup.errors[0].field, 'notification_configs[1].subscriber_id');
  assert.is(dup.notification_configs.length, 2, 'a failed replacement leaves the prior set');
  const cleared = await sync({ notification_configs: [] }, a);
  assert.is(cleared.action, 'cleared');
  assert.equal(cleared.notification_configs, []);
  assert.is((await sync({ notification_configs: [], dry_run: true }, a)).action, 'unchanged');
  assert.is((await sync({ notification_configs: [config('cache')], dry_run: true }, b)).action, 'unchanged', 'buyer-b keeps its own');
  await store.close();
});

test('refused when the profile advertises no notifications, for an anonymous caller, and for a URL the policy refuses', async () => {
  const store = lazyStore('memory', 'agent');
  const refusing = (e: Promise<unknown>) => e.then(() => undefined, (x: { code?: string }) => x.code);
  const off = syncAgentNotificationConfigs({ subscribers: subscribers(store), advertised: false });
  assert.is(await refusing(off({ notification_configs: [] }, { principal: 'a' })), 'UNSUPPORTED_FEATURE');
  const on = syncAgentNotificationConfigs({ subscribers: subscribers(store), advertised: true, refuseUrl: (u: string) => (u.includes('10.0.0.1') ? 'a private address' : undefined) });
  assert.is(await refusing(on({ notification_configs: [] }, {})), 'AUTH_MISSING');
  const r = await on({ notification_configs: [config('x', { url: 'https://10.0.0.1/hook' })] }, { principal: 'a' });
  assert.is(r.action, 'failed');
  assert.match(r.errors[0].message, /private address/);
  await store.close();
});

test.run();

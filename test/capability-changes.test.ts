import { verifyApiKey } from '@adcp/sdk/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setAt } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';
import { assertSchema, verifySigned } from './helpers/verify-webhook.js';
import { startReceiver, type Received, type Receiver } from './helpers/webhook-receiver.js';
import { PAYLOAD_SCHEMAS, webhookSet } from './helpers/webhook-set.js';
import { expectWarnings } from './helpers/warnings.js';

// The warnings this file provokes on purpose (test/helpers/warnings.ts): captured, and each must occur.
expectWarnings(/proof: the endpoint-proof challenge to 10\.9\.9\.9 failed/);

/**
 * Capability-change notifications (protocol/sync_agent_notification_configs.mdx), end to end over the HTTP entry and
 * the embedded store, to a real node:http receiver: sync_agent_notification_configs proves each new active
 * subscriber's endpoint with a signed core/agent-webhook-challenge.json before activating it (a receiver that does
 * not echo the challenge fails the sync, the prior set unchanged; a dry run sends none); an instance starting on
 * another capabilities_version than the one last announced fires capabilities.changed once per version change to
 * every active subscriber — none on the very first start, one for two instances starting together — and a profile
 * advertising notifications without webhook signing does not start.
 */
const setDir = await webhookSet();
const { loadProfile } = await setAt(setDir);
type Agent = Awaited<ReturnType<typeof loadProfile>>;
type Body = Record<string, any>;
const FAST = { pollIntervalMs: 50, initialBackoffMs: 40, maxBackoffMs: 200 };
const KEYS = { sk_caps_a: 'buyer-a', sk_caps_b: 'buyer-b' };
const authenticate = verifyApiKey({ keys: Object.fromEntries(Object.entries(KEYS).map(([key, principal]) => [key, { principal }])) });
const handlers = { get_things: () => ({ things: [] }), make_thing: () => ({ thing: { id: 'x' } }) };
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const dist = async <T>(p: string): Promise<T> => (await import(pathToFileURL(join(repoRoot, 'dist/runtime', p)).href)) as T;

let receiver: Receiver;
const challenges = (path: string): Received[] => receiver.received.filter((r) => r.path === path && r.json.type === 'webhook.challenge');
const fires = (path: string): Received[] => receiver.received.filter((r) => r.path === path && r.json.notification_type === 'capabilities.changed');
test.before(async () => {
  receiver = await startReceiver();
  const echo = (field: 'challenge' | 'token') => ({ json }: { json: Body }) =>
    json.type === 'webhook.challenge' ? { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [field]: json.challenge }) } : { status: 204 };
  receiver.handle('/caps/cache', echo('challenge'));
  receiver.handle('/caps/alias', echo('token'));
  receiver.handle('/caps/b', echo('challenge'));
  receiver.handle('/caps/paused', echo('challenge'));
  receiver.handle('/caps/dry', echo('challenge'));
  receiver.handle('/caps/mute', () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{}' }));
  receiver.handle('/caps/gone', () => ({ status: 404 }));
});
test.after(async () => {
  await receiver.close();
});

/** A deployment of `profile` on `stateDir`, served (the sandbox of mode development: loopback receivers, a development key). */
async function deploy(profile: string, stateDir: string): Promise<{ agent: Agent; url: string; close(): Promise<unknown> }> {
  const agent = await loadProfile(profile as never, { mode: 'development', store: { stateDir }, webhooks: FAST });
  const served = await agent.serve(handlers as never, { port: 0, authenticate });
  return { agent, url: served.url, close: () => served.close() };
}

async function mcp(url: string, key: string): Promise<{ sync(args: Body): Promise<Body>; close(): Promise<void> }> {
  const client = new Client({ name: 'caps-buyer', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return {
    sync: async (args) => ((await client.callTool({ name: 'sync_agent_notification_configs', arguments: { idempotency_key: randomUUID(), ...args } })) as { structuredContent: Body }).structuredContent,
    close: () => client.close(),
  };
}

const sub = (id: string, extra: Body = {}) => ({ subscriber_id: id, url: `${receiver.base}/caps/${id}`, event_types: ['capabilities.changed'], ...extra });
const version = (agent: Agent): string => (agent.capabilities().adcp as Body).capability_changes.capabilities_version;

test('endpoint proof, then capabilities.changed once per version change to every active subscriber; nothing on the first start; one for two instances together', async () => {
  const stateDir = tempDir();
  const first = await deploy('hooks-notify', stateDir);
  const a = await mcp(first.url, 'sk_caps_a');
  const b = await mcp(first.url, 'sk_caps_b');
  try {
    // Proof of control: a signed challenge each new active subscriber's endpoint must echo (`challenge`, or `token`).
    const synced = await a.sync({ notification_configs: [sub('cache'), sub('alias'), sub('paused', { active: false })], context: { correlation_id: 'sync-1' } });
    assert.is(synced.action, 'updated', JSON.stringify(synced));
    assert.equal(synced.context, { correlation_id: 'sync-1' });
    const [challenge] = challenges('/caps/cache');
    assert.ok(challenge !== undefined, 'the endpoint was challenged');
    assertSchema(PAYLOAD_SCHEMAS.agentWebhookChallenge, challenge!.json, 'core/agent-webhook-challenge.json');
    assert.equal(
      { ...challenge!.json, challenge: undefined },
      { type: 'webhook.challenge', scope: 'agent', challenge: undefined, subscriber_id: 'cache', seller_agent_url: first.url, delivery_auth: { mode: 'rfc9421' }, event_types: ['capabilities.changed'] },
    );
    await verifySigned(first.agent, challenge!);
    assert.is(challenges('/caps/alias').length, 1);
    assert.is(challenges('/caps/paused').length, 0, 'a paused subscriber is not challenged');
    assert.is((await b.sync({ notification_configs: [sub('b')] })).action, 'updated');

    // A receiver that does not echo the challenge (or is not there) fails the sync, and the prior set stays.
    for (const bad of ['mute', 'gone']) {
      const failed = await a.sync({ notification_configs: [sub('cache'), sub('alias'), sub(bad)] });
      assert.is(failed.action, 'failed', bad);
      assert.is(failed.errors[0].field, 'notification_configs[2].url');
      assert.match(failed.errors[0].message, /endpoint proof of control failed/);
      assert.equal(failed.notification_configs.map((c: Body) => c.subscriber_id), ['alias', 'cache', 'paused']);
    }
    // A dry run sends no challenge.
    const dry = await a.sync({ notification_configs: [sub('dry')], dry_run: true });
    assert.equal([dry.action, dry.dry_run], ['updated', true]);
    assert.is(receiver.received.filter((r) => r.path === '/caps/dry').length, 0);
    assert.is((await a.sync({ notification_configs: [sub('cache'), sub('alias'), sub('paused', { active: false })], dry_run: true })).action, 'unchanged');
  } finally {
    await a.close();
    await b.close();
    await first.close();
  }
  await settle(200);
  assert.is(fires('/caps/cache').length, 0, 'the first start announces nothing');

  // A deployment whose capabilities differ: one capabilities.changed per active subscriber, of every principal.
  const next = await deploy('hooks-notify-next', stateDir);
  assert.not.equal(version(next.agent), version(first.agent));
  try {
    await receiver.until(() => fires('/caps/cache').length > 0 && fires('/caps/alias').length > 0 && fires('/caps/b').length > 0);
    await settle(300);
    for (const id of ['cache', 'alias', 'b']) {
      const got = fires(`/caps/${id}`);
      assert.is(got.length, 1, id);
      assertSchema(PAYLOAD_SCHEMAS.capabilitiesChanged, got[0]!.json, 'core/capabilities-changed-webhook.json');
      assert.equal(
        { ...got[0]!.json, idempotency_key: undefined, fired_at: undefined, changed_at: undefined, notification_id: undefined },
        { subscriber_id: id, notification_type: 'capabilities.changed', agent_url: next.url, reason: 'deployment_changed', capabilities_version: version(next.agent), idempotency_key: undefined, fired_at: undefined, changed_at: undefined, notification_id: undefined },
      );
      await verifySigned(next.agent, got[0]!);
    }
    assert.is(fires('/caps/paused').length, 0, 'a paused subscriber is not fired');
    assert.is(new Set(['cache', 'alias', 'b'].map((id) => fires(`/caps/${id}`)[0]!.json.notification_id)).size, 1, 'one logical change');
  } finally {
    await next.close();
  }
  // The same version again: nothing.
  const again = await deploy('hooks-notify-next', stateDir);
  await settle(400);
  await again.close();
  assert.is(fires('/caps/cache').length, 1);
  // Two instances (processes) starting together on a changed version: one webhook per subscriber.
  const pair = await Promise.all([instance('hooks-notify', stateDir), instance('hooks-notify', stateDir)]);
  try {
    await receiver.until(() => fires('/caps/cache').length > 1);
    await settle(600);
    assert.is(fires('/caps/cache').length, 2);
    assert.is(fires('/caps/b').length, 2);
    assert.is(fires('/caps/cache')[1]!.json.capabilities_version, version(first.agent));
    assert.is(fires('/caps/cache')[1]!.json.agent_url, 'http://127.0.0.1:9/mcp');
  } finally {
    for (const child of pair) child.kill();
  }
  // And back again: a change to a version announced before is announced again.
  const back = await deploy('hooks-notify-next', stateDir);
  try {
    await receiver.until(() => fires('/caps/cache').length > 2);
    assert.is(fires('/caps/cache')[2]!.json.capabilities_version, version(back.agent));
  } finally {
    await back.close();
  }
});

/**
 * An agent process of `profile` on `stateDir` with a configured public URL: it announces at `ready()`, then keeps
 * delivering until killed. Resolves once it is ready.
 */
async function instance(profile: string, stateDir: string): Promise<ChildProcess> {
  const script = join(tempDir(), 'instance.mjs');
  writeFileSync(
    script,
    [
      `const { loadProfile } = await import(${JSON.stringify(pathToFileURL(join(setDir, 'index.js')).href)});`,
      `const agent = await loadProfile(${JSON.stringify(profile)}, { mode: 'development', store: { stateDir: ${JSON.stringify(stateDir)} }, webhooks: ${JSON.stringify(FAST)}, publicUrl: 'http://127.0.0.1:9' });`,
      `await agent.ready();`,
      `process.stdout.write('ready\\n');`,
      `setInterval(() => undefined, 1000);`,
    ].join('\n'),
  );
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`the instance exited (${code}): ${stderr}`)));
  });
  return child;
}

test('the very first start of a store that already holds subscribers records its version and fires nothing', async () => {
  const stateDir = tempDir();
  const { lazyStore } = await dist<{ lazyStore(o: unknown, p: string): { close(): Promise<void> } }>('stores/open.js');
  const { subscribers } = await dist<{ subscribers(s: unknown): { replace(p: string, next: Body[]): Promise<void> } }>('services/notifications/subscribers.js');
  const store = lazyStore({ stateDir }, 'hooks-notify');
  await subscribers(store).replace('buyer-a', [{ ...sub('cache'), url: `${receiver.base}/caps/first`, active: true }]);
  await store.close();
  const d = await deploy('hooks-notify', stateDir);
  await settle(400);
  await d.close();
  assert.is(receiver.received.filter((r) => r.path === '/caps/first').length, 0);
  const next = await deploy('hooks-notify-next', stateDir);
  await receiver.until((all) => all.some((r) => r.path === '/caps/first'));
  await next.close();
});

test('a profile advertising notifications without webhook signing does not start; a legacy scheme not offered, or a private URL, fails the sync', async () => {
  const e = await loadProfile('hooks-notify-unsigned' as never, { store: 'memory' }).then(() => undefined, (x: Error) => x);
  assert.match(String(e?.message), /advertises adcp\.capability_changes\.notifications\.supported but not webhook_signing\.supported/);
  const d = await deploy('hooks-notify', tempDir());
  const a = await mcp(d.url, 'sk_caps_a');
  try {
    const secret = 'legacy-subscriber-secret-0123456789abcdef';
    const refused = await a.sync({ notification_configs: [sub('cache', { authentication: { schemes: ['HMAC-SHA256'], credentials: secret } })] });
    assert.is(refused.action, 'failed');
    assert.is(refused.errors[0].field, 'notification_configs[0].authentication');
    assert.not.ok(JSON.stringify(refused).includes(secret), 'credentials are never echoed');
    const privateUrl = await a.sync({ notification_configs: [{ ...sub('cache'), url: 'http://10.1.2.3/hook' }] });
    assert.equal([privateUrl.action, privateUrl.errors[0].field], ['failed', 'notification_configs[0].url']);
  } finally {
    await a.close();
    await d.close();
  }
});

test('the challenge of a subscriber asking for legacy delivery names its mode and the SHA-256 of its credential, never the credential', async () => {
  const { lazyStore } = await dist<{ lazyStore(o: unknown, p: string): { close(): Promise<void> } }>('stores/open.js');
  const { signingKeys } = await dist<{ signingKeys(s: unknown, o: unknown): unknown }>('services/keys/keys.js');
  const { endpointProof } = await dist<{ endpointProof(e: unknown): (p: string, s: Body) => Promise<string | undefined> }>('services/notifications/prove.js');
  const store = lazyStore('memory', 'proof');
  const prove = endpointProof({ keys: signingKeys(store, { profile: 'proof', sandbox: true }), sandbox: true, agentUrl: () => 'https://seller.example/mcp', profile: 'proof' });
  const secret = 'legacy-subscriber-secret-0123456789abcdef';
  assert.is(await prove('buyer-a', { ...sub('cache'), url: `${receiver.base}/caps/cache`, authentication: { schemes: ['Bearer'], credentials: secret }, active: true }), undefined);
  const got = challenges('/caps/cache').at(-1)!;
  assertSchema(PAYLOAD_SCHEMAS.agentWebhookChallenge, got.json, 'core/agent-webhook-challenge.json');
  assert.equal(got.json.delivery_auth, { mode: 'Bearer', credential_fingerprint: createHash('sha256').update(secret).digest('hex') });
  assert.not.ok(got.body.includes(secret));
  assert.is(got.headers.authorization, undefined, 'the challenge itself is signed with RFC 9421, whatever the delivery mode');
  assert.match(String(got.headers['signature-input']), /tag="adcp\/webhook-signing\/v1"/);
  assert.match(String(await prove('buyer-a', { ...sub('x'), url: `${receiver.base}/caps/mute`, active: true })), /without echoing the challenge/);
  assert.match(String(await prove('buyer-a', { ...sub('x'), url: 'http://10.9.9.9/x', active: true })), /could not be reached/);
  await store.close();
});

test.run();

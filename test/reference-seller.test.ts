import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet, EXAMPLE_ACCOUNTS, exampleHandlers } from './helpers/generated.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { repoRoot } from './helpers/releases.js';

/**
 * The reference seller (examples/seller/) on the committed set (AdCP 3.0.6), in development mode so the runtime checks
 * every answer against the release's response schema: the business rules AdCP's storyboards expect a seller to
 * enforce, account isolation, and the idempotency_key replay contract (security.mdx, "Idempotency"), which the
 * grader's storyboards cannot reach in full (its runner has no parallel dispatch and no rate-limit trip). AdCP 3.2
 * bodies are proved by AdCP's own grader in test/real/grader.test.ts.
 */
const { loadProfile } = await committedSet();
type Body = Record<string, any>;
type Idempotency = {
  run(call: { scope: string; budget: string; tool: string; key: string; args: Record<string, unknown>; kind: 'write' | 'read' }, execute: () => Promise<unknown>): Promise<any>;
};
const { createIdempotency } = (await import(pathToFileURL(join(repoRoot, 'examples/seller/idempotency.js')).href)) as {
  createIdempotency(o?: { replayTtlSeconds?: number; now?: () => number; writes?: { sustainedPerSecond: number; burstPerSecond: number } }): Idempotency;
};
const { Rejection } = (await import(pathToFileURL(join(repoRoot, 'examples/seller/errors.js')).href)) as { Rejection: new (...a: never[]) => Error & { code: string; body(): Body } };

async function seller() {
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development' });
  const server = new McpServer({ name: 'reference-seller', version: '1.0.0' });
  agent.registerMcp(server, await exampleHandlers(agent));
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'buyer', version: '1.0.0' });
  await client.connect(b);
  const call = async (name: string, args: Record<string, unknown>): Promise<Body> => {
    const r = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; structuredContent?: Body };
    return r.structuredContent ?? (JSON.parse(r.content[0]!.text) as Body);
  };
  return { call, close: () => client.close() };
}

let keys = 0;
const key = (): string => `k-${String(++keys).padStart(4, '0')}-c0ffee00-0000-4000`;
const buy = (extra: Record<string, unknown> = {}): Record<string, unknown> => createMediaBuyRequest({ idempotency_key: key(), ...extra });
const code = (b: Body): string | undefined => b.adcp_error?.code;

test('create_media_buy refuses what AdCP expects a seller to refuse, naming the field; nothing is booked', async () => {
  const { call, close } = await seller();
  const cases: [Record<string, unknown>, string, string][] = [
    [{ start_time: '2099-12-31T00:00:00Z', end_time: '2099-01-01T00:00:00Z' }, 'INVALID_REQUEST', 'end_time'],
    [{ start_time: '2020-01-01T00:00:00Z', end_time: '2099-01-01T00:00:00Z' }, 'INVALID_REQUEST', 'start_time'],
    [{ packages: [{ product_id: 'nonexistent-product-id-xyz', pricing_option_id: 'cpm_fixed', budget: 1000 }] }, 'PRODUCT_NOT_FOUND', 'packages[0].product_id'],
    [{ packages: [{ product_id: 'homepage_takeover', pricing_option_id: 'bad-pricing', budget: 1000 }] }, 'INVALID_PRICING_OPTION', 'packages[0].pricing_option_id'],
    [{ packages: [{ product_id: 'homepage_takeover', pricing_option_id: 'cpm_fixed', budget: 0 }] }, 'INVALID_REQUEST', 'packages[0].budget'],
    [
      {
        packages: [
          {
            product_id: 'homepage_takeover',
            pricing_option_id: 'cpm_fixed',
            budget: 25000,
            measurement_terms: { billing_measurement: { vendor: { domain: 'summit-measurement.example' }, measurement_window: 'c28', max_variance_percent: 0 } },
          },
        ],
      },
      'TERMS_REJECTED',
      'packages[0].measurement_terms.billing_measurement.measurement_window',
    ],
    [{ account: { account_id: 'acct_never_issued' } }, 'ACCOUNT_NOT_FOUND', 'account.account_id'],
  ];
  for (const [extra, expected, field] of cases) {
    const b = await call('create_media_buy', buy({ ...extra, context: { probe: expected } }));
    assert.is(code(b), expected, JSON.stringify(b));
    assert.is(b.adcp_error.field, field);
    assert.equal(b.context, { probe: expected });
  }
  // Reversed dates are refused before the product is looked up (AdCP's error_compliance books an unseeded product).
  assert.is(code(await call('create_media_buy', buy({ start_time: '2099-12-31T00:00:00Z', end_time: '2099-01-01T00:00:00Z', packages: [{ product_id: 'nope', pricing_option_id: 'x', budget: 1 }] }))), 'INVALID_REQUEST');
  assert.equal((await call('get_media_buys', { account: { account_id: 'acc_1' } })).media_buys, [], 'no refused request booked anything');
  await close();
});

test('the media buy state machine: invalid transitions, unknown packages, re-cancel, stale revisions', async () => {
  const { call, close } = await seller();
  const created = await call('create_media_buy', buy());
  assert.is(created.status, 'pending_creatives', '3.0 states the buy\'s own status');
  const id = created.media_buy_id as string;
  const update = (extra: Record<string, unknown>) => call('update_media_buy', { account: { account_id: 'acc_1' }, media_buy_id: id, idempotency_key: key(), ...extra });
  assert.is(code(await update({ media_buy_id: 'does-not-exist' })), 'MEDIA_BUY_NOT_FOUND');
  assert.is(code(await update({ packages: [{ package_id: 'does-not-exist', budget: 5001 }] })), 'PACKAGE_NOT_FOUND');
  assert.is(code(await update({ paused: true })), 'INVALID_STATE', 'a buy waiting for creatives cannot pause');
  assert.is(code(await update({ revision: 99, paused: false })), 'CONFLICT');
  const renamed = await update({ revision: created.revision, packages: [{ package_id: created.packages[0].package_id, budget: 2000 }] });
  assert.is(renamed.revision, created.revision + 1);
  assert.is(renamed.affected_packages[0].budget, 2000);
  const canceled = await update({ canceled: true, cancellation_reason: 'testing' });
  assert.is(canceled.status, 'canceled');
  assert.is(code(await update({ canceled: true })), 'NOT_CANCELLABLE');
  assert.is(code(await update({ paused: false })), 'INVALID_STATE');
  const [listed] = (await call('get_media_buys', { account: { account_id: 'acc_1' }, media_buy_ids: [id] })).media_buys as Body[];
  assert.is(listed!.status, 'canceled');
  assert.is(listed!.cancellation.reason, 'testing');
  assert.is(listed!.revision, canceled.revision);
  await close();
});

test('state per account: another account neither sees nor changes a buy, and gets the answer an unknown id gets', async () => {
  const { call, close } = await seller();
  const created = await call('create_media_buy', buy());
  const other = { account_id: EXAMPLE_ACCOUNTS[1]!.account_id };
  assert.equal((await call('get_media_buys', { account: other, media_buy_ids: [created.media_buy_id] })).media_buys, []);
  const theirs = await call('update_media_buy', { account: other, media_buy_id: created.media_buy_id, paused: true, idempotency_key: key() });
  const unknown = await call('update_media_buy', { account: other, media_buy_id: 'mb_never', paused: true, idempotency_key: key() });
  assert.equal(theirs.adcp_error, unknown.adcp_error);
  assert.is((await call('get_media_buys', { account: { account_id: 'acc_1' } })).media_buys.length, 1);
  await close();
});

test('a mutating call replays by its idempotency_key: same answer, replayed, one buy; another payload conflicts', async () => {
  const { call, close } = await seller();
  const args = buy({ context: { attempt: 1 } });
  const first = await call('create_media_buy', args);
  const again = await call('create_media_buy', { ...args, context: { attempt: 2 } });
  assert.is(first.replayed, undefined);
  assert.is(again.replayed, true);
  assert.is(again.media_buy_id, first.media_buy_id);
  assert.equal(again.context, { attempt: 2 }, 'the envelope is the current call\'s');
  const { replayed: _r, context: _c, ...cached } = again;
  const { context: _c1, ...original } = first;
  assert.equal(cached, original, 'the cached answer, byte for byte');
  const conflict = await call('create_media_buy', { ...args, end_time: '2099-09-30T23:59:59Z' });
  assert.equal(conflict.adcp_error, {
    code: 'IDEMPOTENCY_CONFLICT',
    message: conflict.adcp_error.message,
    recovery: 'correctable',
  });
  assert.not.match(JSON.stringify(conflict.adcp_error), /end_time|2099|packages/, 'no hint of the cached payload');
  assert.is(code(await call('update_media_buy', { account: { account_id: 'acc_1' }, media_buy_id: first.media_buy_id, idempotency_key: args.idempotency_key })), 'IDEMPOTENCY_CONFLICT', 'a key is one request, on one tool');
  // A failure is not cached: the same key executes again once the request can succeed.
  const failing = buy({ packages: [{ product_id: 'nope', pricing_option_id: 'x', budget: 1 }] });
  assert.is(code(await call('create_media_buy', failing)), 'PRODUCT_NOT_FOUND');
  const fixed = await call('create_media_buy', { ...failing, packages: [{ product_id: 'homepage_takeover', pricing_option_id: 'cpm_fixed', budget: 1000 }] });
  assert.match(fixed.media_buy_id, /^mb_/);
  assert.is((await call('get_media_buys', { account: { account_id: 'acc_1' } })).media_buys.length, 2);
  await close();
});

test('replay rules in the store itself: concurrent retries, the hash exclusions, expiry, insert rate limits', async () => {
  let clock = 1_000_000;
  let store = createIdempotency({ replayTtlSeconds: 3600, now: () => clock });
  const call = (args: Record<string, unknown>, k = 'key-0001-0000-0000') => ({ scope: 'agent', budget: 'agent\0acct', tool: 'create_media_buy', key: k, args, kind: 'write' as const });
  const attempt = async (args: Record<string, unknown>, k?: string, execute = async () => ({ media_buy_id: `mb_${++executions}` })) => {
    try {
      return await store.run(call(args, k), execute);
    } catch (e) {
      if (e instanceof Rejection) return { adcp_error: e.body() };
      throw e;
    }
  };
  let executions = 0;
  // Rule 9: the second of two concurrent requests waits for the first and replays it.
  let release!: () => void;
  const slow = new Promise<void>((r) => (release = r));
  const racing = [attempt({ budget: 1 }, undefined, async () => (await slow, { media_buy_id: `mb_${++executions}` })), attempt({ budget: 1 })];
  release();
  const [a, b] = await Promise.all(racing);
  assert.equal([a, b], [{ media_buy_id: 'mb_1' }, { media_buy_id: 'mb_1', replayed: true }]);
  assert.is(executions, 1);
  // The closed exclusion list: context, governance_context and push credentials are not the payload; ext is.
  const push = (url: string, credentials: string) => ({ url, authentication: { schemes: ['Bearer'], credentials } });
  const pushed = { budget: 1, context: { x: 1 }, governance_context: 'tok-1', push_notification_config: push('https://b.example/h', 'secret-one-000000000000000000000') };
  const k = 'key-0009-0000-0000';
  assert.match((await attempt(pushed, k)).media_buy_id, /^mb_/);
  assert.is((await attempt({ ...pushed, context: { x: 2 }, governance_context: 'tok-2', push_notification_config: push('https://b.example/h', 'secret-two-000000000000000000000') }, k)).replayed, true);
  assert.is((await attempt({ ...pushed, push_notification_config: push('https://c.example/h', 'secret-one-000000000000000000000') }, k)).adcp_error.code, 'IDEMPOTENCY_CONFLICT', 'the URL is payload');
  assert.is((await attempt({ ...pushed, ext: { trace: 'changes' } }, k)).adcp_error.code, 'IDEMPOTENCY_CONFLICT', 'ext is payload');
  // Rule 6: past the window (and the 60 s skew) a seen key is IDEMPOTENCY_EXPIRED, never a silent second execution.
  clock += 3600_000 + 59_000;
  assert.is((await attempt({ budget: 1 })).replayed, true, 'still inside the skew');
  clock += 2_000;
  assert.is((await attempt({ budget: 1 })).adcp_error.code, 'IDEMPOTENCY_EXPIRED');
  // Rule 8: new keys beyond the insert budget (here one per 10 s) are RATE_LIMITED with retry_after, and the
  // refusal is not cached.
  store = createIdempotency({ replayTtlSeconds: 3600, now: () => clock, writes: { sustainedPerSecond: 1, burstPerSecond: 0.1 } });
  const limited = await attempt({ budget: 2 }, 'key-0002-0000-0000');
  const over = await attempt({ budget: 3 }, 'key-0003-0000-0000');
  assert.match(limited.media_buy_id, /^mb_/);
  assert.is(over.adcp_error.code, 'RATE_LIMITED');
  assert.is(over.adcp_error.recovery, 'transient');
  assert.ok(over.adcp_error.retry_after >= 1);
  clock += over.adcp_error.retry_after * 1000;
  assert.match((await attempt({ budget: 3 }, 'key-0003-0000-0000')).media_buy_id, /^mb_/, 'the retry executes');
});

test('the sandbox profile is the production profile plus the compliance controller, on a sandbox surface', () => {
  const read = (p: string): Record<string, any> => JSON.parse(readFileSync(join(repoRoot, p), 'utf8')) as Record<string, any>;
  const production = read('schemas/profiles/guaranteed-publisher.json');
  const sandbox = read('examples/profiles/guaranteed-publisher-sandbox.json');
  assert.is(sandbox.name, 'guaranteed-publisher-sandbox');
  assert.is(sandbox.surface, 'sandbox');
  assert.equal(sandbox.tools, [...production.tools, 'comply_test_controller']);
  assert.equal(sandbox.shared_tools, [...production.shared_tools, 'comply_test_controller']);
  assert.equal(sandbox.capabilities, production.capabilities);
});

test('the examples type-check (// @ts-check) against the committed set', () => {
  const r = spawnSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', join(repoRoot, 'examples')], { encoding: 'utf8' });
  assert.is(r.status, 0, `${r.stdout}${r.stderr}`);
});

test.run();

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
import { tempDir } from './helpers/temp.js';

/**
 * The reference seller (examples/seller/) on the committed set (AdCP 3.0.6), in development mode so the runtime checks
 * every answer against the release's response schema: the business rules AdCP's storyboards expect a seller to
 * enforce, account isolation, and the idempotency_key replay contract as a seller's buyer sees it (the runtime keeps
 * it: test/idempotency.test.ts has its rules one by one). AdCP 3.2 bodies are proved by AdCP's own grader in
 * test/real/grader.test.ts.
 */
const { loadProfile } = await committedSet();
type Body = Record<string, any>;

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

const CONTROLLER_SCENARIOS = [
  'force_account_status',
  'force_create_media_buy_arm',
  'force_creative_status',
  'force_get_products_arm',
  'force_media_buy_status',
  'force_task_completion',
  'seed_account',
  'seed_creative',
  'seed_media_buy',
  'seed_pricing_option',
  'seed_product',
  'simulate_budget_spend',
  'simulate_delivery',
];

test('the sandbox profile is the production profile plus the compliance controller, async tasks, notifications, signed webhooks and governance enforcement, on a sandbox surface', () => {
  const read = (p: string): Record<string, any> => JSON.parse(readFileSync(join(repoRoot, p), 'utf8')) as Record<string, any>;
  const production = read('schemas/profiles/guaranteed-publisher.json');
  const sandbox = read('examples/profiles/guaranteed-publisher-sandbox.json');
  assert.is(sandbox.name, 'guaranteed-publisher-sandbox');
  assert.is(sandbox.surface, 'sandbox');
  // AdCP 3.1+ tools the runtime answers itself (the task reads, agent-level notification configs): 3.2 only here.
  const runtimeTools = ['get_task_status', 'list_tasks', 'sync_agent_notification_configs'];
  // AdCP 3.2's compact lifecycle and proposal tools beside the facades (3.2 only: 3.0.6 has none of them), declared in
  // media_buy.lifecycle_tools.
  const compact = ['list_products', 'request_proposals', 'refine_proposals', 'decline_proposals', 'buy_products', 'accept_proposal', 'control_media_buy'];
  assert.equal(sandbox.tools.filter((t: string) => !compact.includes(t)), [...production.tools, 'sync_governance', 'comply_test_controller', ...runtimeTools]);
  assert.equal(sandbox.tools.filter((t: string) => compact.includes(t)), compact);
  assert.equal(sandbox.shared_tools, [...production.shared_tools, 'sync_governance', 'comply_test_controller', ...runtimeTools]);
  const {
    webhook_signing: webhookSigning,
    compliance_testing: testing,
    adcp: { capability_changes: changes, governance_enforcement: enforcement, ...adcp },
    media_buy: { lifecycle_tools: lifecycleTools, supports_proposals: supportsProposals, measurement_terms_acceptance: termsAcceptance, ...mediaBuy },
    account: { supported_account_currency_modes: currencyModes, ...account },
    specialisms,
    ...capabilities
  } = sandbox.capabilities;
  // Two capabilities only AdCP 3.2 defines: the sandbox, generated for 3.2, states them; the production profile,
  // which the committed set (and the quick start) generates for 3.0.6 alone, does not advertise them undefined there.
  assert.equal([currencyModes, termsAcceptance], [['per_media_buy'], true]);
  assert.equal({ ...capabilities, account, media_buy: mediaBuy, adcp }, production.capabilities);
  assert.equal(lifecycleTools, compact);
  // Proposals through get_products and create_media_buy too, graded as sales-proposal-mode.
  assert.equal([supportsProposals, specialisms], [true, ['sales-proposal-mode']]);
  // The controller's state scenarios and the compact probes; 3.0.6, whose enum names six scenarios, is served the
  // ones it knows (the generator's capabilities fit). list_scenarios answers every one, seeds included (below).
  assert.equal(testing, {
    scenarios: [...CONTROLLER_SCENARIOS.filter((s) => /^(force_(account|creative|media_buy)_status|simulate_)/.test(s)), 'compact_direct_buy_lifecycle_probe', 'compact_product_lifecycle_probe'],
  });
  // It signs webhooks (a development key it makes itself): AdCP 3.2 wants the retry horizon stated.
  assert.equal(webhookSigning, { supported: true, profile: 'adcp/webhook-signing/v1', algorithms: ['ed25519'], legacy_hmac_fallback: false, delivery_retry_horizon_seconds: 86400 });
  assert.equal(changes, { cache_ttl_seconds: 3600, notifications: { supported: true, registration_task: 'sync_agent_notification_configs', event_types: ['capabilities.changed'] } });
  // It verifies signed governance on create_media_buy, and checks each buy's planned delivery with the buyer's agent.
  assert.equal(enforcement, { tasks: [{ task: 'create_media_buy', modes: ['signed_context', 'online_execution_check'] }] });

  // The signed deployment: the same, requiring RFC 9421 signatures as AdCP's signed_requests runner contract asks
  // (required_for create_media_buy, protocol_methods_required_for tasks/cancel; "required", as a 3.2 profile must).
  const signed = read('examples/profiles/guaranteed-publisher-sandbox-signed.json');
  const { request_signing: signing, ...signedCapabilities } = signed.capabilities;
  assert.equal({ ...signed, name: sandbox.name, description: sandbox.description, capabilities: signedCapabilities }, sandbox);
  assert.equal(signing, {
    supported: true,
    covers_content_digest: 'required',
    supported_for: ['create_media_buy', 'update_media_buy', 'sync_creatives'],
    required_for: ['create_media_buy'],
    protocol_methods_supported_for: ['tasks/cancel'],
    protocol_methods_required_for: ['tasks/cancel'],
  });
});

test('comply_test_controller lists exactly the scenarios the sandbox profile declares in compliance_testing', async () => {
  const { createSeller } = (await import(pathToFileURL(join(repoRoot, 'examples/seller/index.js')).href)) as { createSeller(agent: unknown): { handlers: Record<string, (args: unknown, ctx: unknown) => Promise<Record<string, unknown>>> } };
  const { loadProfile } = await committedSet();
  const agent = await loadProfile('guaranteed-publisher', { mode: 'production' });
  // The committed set has no controller (3.0.6 ships no controller schemas): the seller's own handler, called directly.
  const seller = createSeller({ ...agent, tools: (r?: string) => [...agent.tools(r as never), 'comply_test_controller'] });
  const listed = await seller.handlers.comply_test_controller!({ scenario: 'list_scenarios' }, {});
  // The committed production profile serves no compact tools: their probes are not scenarios there.
  assert.equal(listed.scenarios, CONTROLLER_SCENARIOS);
  const compact = ['list_products', 'request_proposals', 'buy_products', 'comply_test_controller'];
  const withCompact = createSeller({ ...agent, tools: (r?: string) => [...agent.tools(r as never), ...compact] });
  const all = await withCompact.handlers.comply_test_controller!({ scenario: 'list_scenarios' }, {});
  assert.equal(all.scenarios, [...CONTROLLER_SCENARIOS, 'compact_direct_buy_lifecycle_probe', 'compact_product_lifecycle_probe'].sort());
});

test('a forced submitted arm is a real task: answered submitted under the forced id, replayed for its key, ended by force_task_completion', async () => {
  const { createSeller } = (await import(pathToFileURL(join(repoRoot, 'examples/seller/index.js')).href)) as {
    createSeller(agent: unknown): { handlers: Record<string, (args: unknown, ctx: unknown) => Promise<Record<string, unknown>>> };
  };
  const { loadProfile } = await committedSet();
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development', store: { stateDir: tempDir() } });
  const seller = createSeller({ ...agent, tools: (r?: string) => [...agent.tools(r as never), 'comply_test_controller'] });
  const controller = seller.handlers.comply_test_controller!;
  const account = { brand: { domain: 'forced.example' }, operator: 'forced.example', sandbox: true };
  const forced = await controller({ scenario: 'force_create_media_buy_arm', account, params: { arm: 'submitted', task_id: 'task_forced_0001' } }, {});
  assert.equal(forced.forced, { arm: 'submitted', task_id: 'task_forced_0001' });
  const args = buy({ account });
  const create = async (): Promise<Body> => JSON.parse((await agent.call('create_media_buy', args, seller.handlers.create_media_buy as never)).content[0]!.text as string) as Body;
  const first = await create();
  assert.equal([first.status, first.task_id], ['submitted', 'task_forced_0001']);
  const again = await create();
  assert.equal([again.status, again.task_id, again.replayed], ['submitted', 'task_forced_0001', true], 'a retry replays the task, never a second one');
  assert.is(await agent.task('task_forced_0001').status(), 'submitted');
  // The directive was one-shot: the account's next create books at once.
  assert.match((await agent.call('create_media_buy', buy({ account }), seller.handlers.create_media_buy as never)).content[0]!.text as string, /"media_buy_id":"mb_/);
  const result = { media_buy_id: 'mb_forced', packages: [] };
  assert.is((await controller({ scenario: 'force_task_completion', account, params: { task_id: 'task_forced_0001', result } }, {})).success, true);
  assert.is(await agent.task('task_forced_0001').status(), 'completed');
  assert.is((await controller({ scenario: 'force_task_completion', account, params: { task_id: 'task_forced_0001', result } }, {})).error, 'INVALID_TRANSITION', 'a settled task stays settled');
  assert.is((await controller({ scenario: 'force_task_completion', account, params: { task_id: 'task_nope', result } }, {})).error, 'NOT_FOUND');
  await agent.close();
});

test('provide_performance_feedback finds the buy among the caller\'s accounts (its request names none); another principal\'s buy is MEDIA_BUY_NOT_FOUND', async () => {
  const { loadProfile } = await committedSet();
  const agent = await loadProfile('guaranteed-publisher', { mode: 'development', store: 'memory' });
  const handlers = await exampleHandlers(agent);
  const call = async (tool: string, args: Record<string, unknown>, principal: string): Promise<Body> =>
    JSON.parse((await agent.call(tool, args, (handlers as Record<string, unknown>)[tool] as never, { principal })).content[0]!.text as string) as Body;
  // Booked under a natural key: the account is provisioned implicitly, as the caller's own.
  const account = { brand: { domain: 'feedback.example' }, operator: 'feedback.example' };
  const booked = await call('create_media_buy', buy({ account }), 'alice');
  assert.ok(typeof booked.media_buy_id === 'string', JSON.stringify(booked));
  const packageId = booked.packages[0].package_id as string;
  // Schema-true for 3.0.6: no account field at all.
  const feedback = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    idempotency_key: key(),
    media_buy_id: booked.media_buy_id,
    measurement_period: { start: '2026-01-01T00:00:00Z', end: '2026-01-08T00:00:00Z' },
    performance_index: 1.2,
    ...extra,
  });
  assert.ok(agent.validateRequest('provide_performance_feedback', feedback(), { release: '3.0' }).ok);
  const first = await call('provide_performance_feedback', feedback({ package_id: packageId }), 'alice');
  assert.is(first.success, true, JSON.stringify(first));
  assert.is(code(await call('provide_performance_feedback', feedback(), 'mallory')), 'MEDIA_BUY_NOT_FOUND', 'another principal\'s buy is not there for it');
  assert.is(code(await call('provide_performance_feedback', feedback({ media_buy_id: 'mb_never' }), 'alice')), 'MEDIA_BUY_NOT_FOUND');
  const unknownPackage = await call('provide_performance_feedback', feedback({ package_id: 'pkg_nope' }), 'alice');
  assert.equal([code(unknownPackage), unknownPackage.adcp_error?.field], ['PACKAGE_NOT_FOUND', 'package_id']);
  const reversed = await call('provide_performance_feedback', feedback({ measurement_period: { start: '2026-02-01T00:00:00Z', end: '2026-01-01T00:00:00Z' } }), 'alice');
  assert.equal([code(reversed), reversed.adcp_error?.field], ['INVALID_REQUEST', 'measurement_period']);
  await agent.close();
});

test('the examples type-check (// @ts-check) against the committed set', () => {
  const r = spawnSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', join(repoRoot, 'examples')], { encoding: 'utf8' });
  assert.is(r.status, 0, `${r.stdout}${r.stderr}`);
});

test.run();

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';

/**
 * The reference signals agent (examples/signals/) white-box, on the committed set's `signals-agent` profile (AdCP
 * 3.0.6, development mode: the runtime checks every answer against the release) and, for what 3.0.6 cannot express
 * (the wholesale feed, the controller), its handlers called directly: the rules AdCP's storyboards expect and the
 * ones the grader cannot reach (test/real/grader-classified.ts says which). AdCP 3.2 bodies are proved by AdCP's own
 * grader in test/real/grader.test.ts.
 */
type Body = Record<string, any>;
type Handler = (args: unknown, ctx: unknown) => Promise<Body>;
const { createSignalsAgent } = (await import(pathToFileURL(join(repoRoot, 'examples/signals/index.js')).href)) as {
  createSignalsAgent(agent: unknown, options?: Record<string, unknown>): { handlers: Record<string, Handler> };
};
const { loadProfile } = await committedSet();

async function signalsAgent(extraTools: string[] = []) {
  const agent = await loadProfile('signals-agent', { mode: 'development', store: { stateDir: tempDir() } });
  const { handlers } = createSignalsAgent({ ...agent, tools: (r?: string) => [...agent.tools(r as never), ...extraTools] }, { modelMs: 10 });
  const call = async (tool: string, args: Record<string, unknown>, principal = 'buyer'): Promise<Body> =>
    JSON.parse((await agent.call(tool, args, handlers[tool] as never, { principal })).content[0]!.text as string) as Body;
  return { agent, handlers, call };
}

let keys = 0;
const key = (): string => `k-${String(++keys).padStart(4, '0')}-5160a150-0000-4000`;
const ACCOUNT = { brand: { domain: 'novamotors.example' }, operator: 'pinnacle-agency.example' };

test('a brief is ranked by the terms it shares with each segment; resold segments name their data provider, owned ones this agent', async () => {
  const { agent, call } = await signalsAgent();
  const ev = await call('get_signals', { account: ACCOUNT, signal_spec: 'In-market EV buyers with high purchase propensity, near auto dealerships' });
  assert.is(ev.signals[0].signal_agent_segment_id, 'meridian-auto__ev_in_market', JSON.stringify(ev.signals.map((s: Body) => s.signal_agent_segment_id)));
  assert.equal(ev.signals[0].signal_id, { source: 'catalog', data_provider_domain: 'meridian-auto.example', id: 'ev_in_market' });
  const owned = await call('get_signals', { account: ACCOUNT, signal_spec: 'High-value customers likely to purchase electronics, with loyalty program data' });
  assert.is(owned.signals[0].signal_type, 'owned');
  assert.is(owned.signals[0].signal_id.source, 'agent');
  // Filters: no segment whose every CPM is above the ceiling; countries where it may be used.
  const cheap = await call('get_signals', { account: ACCOUNT, signal_spec: 'automotive intenders', filters: { max_cpm: 4 } });
  assert.not.ok(cheap.signals.some((s: Body) => s.signal_agent_segment_id === 'meridian-auto__luxury_auto_intenders'), 'the 4.25 CPM luxury segment is filtered out');
  const gb = await call('get_signals', { account: ACCOUNT, signal_spec: 'outdoor enthusiasts', countries: ['GB'] });
  assert.not.ok(gb.signals.some((s: Body) => s.signal_agent_segment_id === 'pinnacle-data__outdoor_enthusiasts'), 'outdoor enthusiasts are US and CA only');
  // A broad brief pages through every segment.
  const first = await call('get_signals', { account: ACCOUNT, signal_spec: 'audience', pagination: { max_results: 1 } });
  assert.equal([first.signals.length, first.pagination.has_more], [1, true]);
  const second = await call('get_signals', { account: ACCOUNT, signal_spec: 'audience', pagination: { max_results: 1, cursor: first.pagination.cursor } });
  assert.is.not(second.signals[0].signal_agent_segment_id, first.signals[0].signal_agent_segment_id);
  await agent.close();
});

test('activation: a priced segment needs its pricing option; the destinations are all checked first; the key is the activating account\'s alone', async () => {
  const { agent, call } = await signalsAgent();
  const segment = 'meridian-auto__ev_in_market';
  const activate = (extra: Record<string, unknown>) => call('activate_signal', { idempotency_key: key(), account: ACCOUNT, signal_agent_segment_id: segment, destinations: [{ type: 'platform', platform: 'the-trade-desk', account: 'seat-1' }], ...extra });
  const unknown = await activate({ signal_agent_segment_id: 'nonexistent-signal-id-xyz', pricing_option_id: 'po_ev_cpm' });
  assert.equal([unknown.adcp_error?.code, unknown.adcp_error?.field], ['REFERENCE_NOT_FOUND', 'signal_agent_segment_id']);
  const unpriced = await activate({});
  assert.equal([unpriced.adcp_error?.code, unpriced.adcp_error?.field], ['INVALID_REQUEST', 'pricing_option_id']);
  assert.is((await activate({ pricing_option_id: 'po_nope' })).adcp_error?.code, 'INVALID_PRICING_OPTION');
  const nowhere = await activate({ pricing_option_id: 'po_ev_cpm', destinations: [{ type: 'platform', platform: 'the-trade-desk' }, { type: 'platform', platform: 'no-such-dsp' }] });
  assert.equal(nowhere.errors.map((e: Body) => e.field), ['destinations[1]']);
  const before = await call('get_signals', { account: ACCOUNT, signal_ids: [{ source: 'catalog', data_provider_domain: 'meridian-auto.example', id: 'ev_in_market' }] });
  assert.not.ok(before.signals[0].deployments.some((d: Body) => d.is_live), 'nothing was pushed by the refused request');

  const done = await activate({ pricing_option_id: 'po_ev_cpm' });
  assert.equal([done.deployments[0].type, done.deployments[0].is_live, done.deployments[0].activation_key.type], ['platform', true, 'segment_id']);
  const again = await activate({ pricing_option_id: 'po_ev_cpm' });
  assert.equal(again.deployments[0].activation_key, done.deployments[0].activation_key, 'activating again keeps the deployment and its key');
  const readback = await call('get_signals', { account: ACCOUNT, signal_ids: [{ source: 'catalog', data_provider_domain: 'meridian-auto.example', id: 'ev_in_market' }] });
  assert.equal([readback.signals[0].deployments[0].is_live, readback.signals[0].deployments[0].activation_key], [true, done.deployments[0].activation_key]);
  const other = await call('get_signals', { account: { brand: { domain: 'other.example' }, operator: 'other.example' }, signal_ids: [{ source: 'catalog', data_provider_domain: 'meridian-auto.example', id: 'ev_in_market' }] });
  assert.not.ok(other.signals[0].deployments.some((d: Body) => d.activation_key !== undefined), 'another account sees no key');
  const off = await activate({ action: 'deactivate' });
  assert.equal(off.deployments[0].is_live, false);
  await agent.close();
});

test('the wholesale feed: every segment with the feed version; the current version is answered unchanged; a lone if_pricing_version and a brief field are refused', async () => {
  const { agent, handlers } = await signalsAgent();
  const get = (args: Record<string, unknown>) => handlers.get_signals!({ discovery_mode: 'wholesale', account: ACCOUNT, ...args }, { principal: 'buyer' });
  const feed = await get({ pagination: { max_results: 100 } });
  assert.ok(feed.signals.length >= 6);
  assert.is(feed.cache_scope, 'public');
  const unchanged = await get({ if_wholesale_feed_version: feed.wholesale_feed_version });
  assert.equal(unchanged, { unchanged: true, wholesale_feed_version: feed.wholesale_feed_version, cache_scope: 'public' });
  assert.ok((await get({ if_wholesale_feed_version: 'sigfeed_stale' })).signals.length > 0, 'a stale version gets the feed');
  assert.is((await get({ if_pricing_version: 'stale-pricing-token' })).adcp_error.code, 'INVALID_REQUEST');
  assert.is((await get({ signal_spec: 'E2E fallback signal discovery' })).adcp_error.field, 'signal_spec');
  await agent.close();
});

test('force_get_signals_arm: one directive for the forcing sandbox account, never consumed by a 3.0 brief (3.0\'s get_signals has no submitted arm); force_task_completion refuses what it cannot end', async () => {
  const { agent, handlers, call } = await signalsAgent(['comply_test_controller']);
  const controller = handlers.comply_test_controller!;
  const sandbox = { ...ACCOUNT, sandbox: true };
  assert.equal((await controller({ scenario: 'list_scenarios' }, {})).scenarios, ['force_get_signals_arm', 'force_task_completion']);
  assert.is((await controller({ scenario: 'force_get_signals_arm', account: sandbox, params: { arm: 'completed', task_id: 't' } }, {})).error, 'INVALID_PARAMS');
  const forced = await controller({ scenario: 'force_get_signals_arm', account: sandbox, params: { arm: 'submitted', task_id: 'task_async_signals_1' } }, {});
  assert.equal(forced.forced, { arm: 'submitted', task_id: 'task_async_signals_1' });
  // The 3.0 buyer is answered from the catalog (the 3.2 path, submitted under the forced id and then completed, is
  // walked over MCP in test/real/grader.test.ts).
  assert.ok((await call('get_signals', { account: sandbox, signal_spec: 'outdoor enthusiasts' })).signals.length > 0);
  assert.is(await agent.task('task_async_signals_1').status(), undefined, 'no task was made');
  const result = { signals: [], cache_scope: 'public' };
  assert.is((await controller({ scenario: 'force_task_completion', account: sandbox, params: { task_id: 'task_async_signals_1', result } }, {})).error, 'NOT_FOUND');
  assert.is((await controller({ scenario: 'force_task_completion', account: sandbox, params: { task_id: 'task_async_signals_1' } }, {})).error, 'INVALID_PARAMS');
  assert.is((await controller({ scenario: 'force_get_signals_arm', account: ACCOUNT, params: { arm: 'submitted', task_id: 't2' } }, {})).error, 'FORBIDDEN', 'a live account is refused');
  await agent.close();
});

test('the signals agent serves the committed set\'s signals-agent profile from its entry file, over MCP', async () => {
  const { startSignalsAgent } = (await import(pathToFileURL(join(repoRoot, 'examples/signals-agent.js')).href)) as { startSignalsAgent(o: Record<string, unknown>): Promise<{ url: string; close(): Promise<void> }> };
  const served = await startSignalsAgent({ store: { stateDir: tempDir() }, apiKey: 'sk_signals' });
  try {
    const r = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer sk_signals' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_signals', arguments: { signal_spec: 'outdoor enthusiasts' } } }),
    });
    const body = (await r.json()) as { result: { structuredContent: Body } };
    assert.is(body.result.structuredContent.signals[0].signal_agent_segment_id, 'pinnacle-data__outdoor_enthusiasts');
  } finally {
    await served.close();
  }
});

test.run();

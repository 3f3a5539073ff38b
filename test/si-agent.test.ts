import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from './helpers/releases.js';

/**
 * The reference SI agent (examples/si/) white-box: its handlers called directly (the committed set, AdCP 3.0.6 alone,
 * carries no SI profile; AdCP's grader and the MCP walk in test/real/grader.test.ts prove its 3.2 bodies over both
 * transports). The session lifecycle as a host meets it: who may see a session, the handoff to checkout, idle expiry,
 * SESSION_TERMINATED after the end, the offering token, the controller's forced status.
 */
type Body = Record<string, any>;
type Handler = (args: unknown, ctx: unknown) => Promise<Body>;
const { createSiAgent } = (await import(pathToFileURL(join(repoRoot, 'examples/si/index.js')).href)) as {
  createSiAgent(agent: unknown, options?: Record<string, unknown>): { handlers: Record<string, Handler> };
};
const TOOLS = ['si_get_offering', 'si_initiate_session', 'si_send_message', 'si_terminate_session', 'comply_test_controller'];

function siAgent() {
  let clock = Date.parse('2026-06-15T10:00:00Z');
  const { handlers } = createSiAgent({ releases: ['3.2-beta.5'], tools: () => TOOLS }, { now: () => new Date(clock), ttlSeconds: 600, agentUrl: 'https://si.acmeoutdoor.example' });
  const call = (tool: string, args: Record<string, unknown>, principal = 'host-a') => handlers[tool]!(args, { principal });
  return { call, advance: (ms: number) => (clock += ms) };
}

let keys = 0;
const key = (): string => `k-${String(++keys).padStart(4, '0')}-51a9e700-0000-4000`;
const open = (call: ReturnType<typeof siAgent>['call'], extra: Record<string, unknown> = {}) =>
  call('si_initiate_session', { idempotency_key: key(), intent: 'Looking for a two-person backpacking tent', identity: { consent_granted: false }, ...extra });

test('a session answers from the brand\'s products, declares its sponsored context each turn, and is its host\'s alone', async () => {
  const { call } = siAgent();
  const s = await open(call);
  assert.equal([s.session_status, s.session_ttl_seconds], ['active', 600]);
  assert.match(s.response.message, /Trail Pro 2P tent is \$349/);
  assert.equal(s.sponsored_context.paying_principal.brand, { domain: 'acmeoutdoor.example' });
  assert.equal([s.sponsored_context.context_use, s.sponsored_context.declared_by], ['presentation_only', { agent_url: 'https://si.acmeoutdoor.example', role: 'brand_agent' }]);
  const next = await call('si_send_message', { idempotency_key: key(), session_id: s.session_id, message: 'and a headlamp?' });
  assert.match(next.response.message, /Ridge 400 headlamp is \$49/);
  assert.ok(next.sponsored_context !== undefined, 'every turn declares the sponsored context');
  const other = await call('si_send_message', { idempotency_key: key(), session_id: s.session_id, message: 'hi' }, 'host-b');
  assert.equal([other.adcp_error?.code, other.adcp_error?.field], ['SESSION_NOT_FOUND', 'session_id'], 'another host cannot reach it');
  assert.is((await call('si_send_message', { idempotency_key: key(), session_id: 'si_never', message: 'hi' })).adcp_error?.code, 'SESSION_NOT_FOUND');
});

test('buying hands the user to checkout: pending_handoff with the product and price, then complete with the checkout handoff; after the end, SESSION_TERMINATED', async () => {
  const { call } = siAgent();
  const s = await open(call);
  const buying = await call('si_send_message', { idempotency_key: key(), session_id: s.session_id, message: 'I want to buy the tent' });
  assert.equal([buying.session_status, buying.handoff.type, buying.handoff.intent.product.product_id, buying.handoff.intent.price], ['pending_handoff', 'transaction', 'trail_pro_2p', { amount: 349, currency: 'USD' }]);
  const out = await call('si_send_message', { idempotency_key: key(), session_id: s.session_id, message: 'a sold-out pack?' });
  assert.is(out.session_status, 'pending_handoff', 'the handoff stands until the host ends the session');
  const ended = await call('si_terminate_session', { session_id: s.session_id, reason: 'handoff_transaction' });
  assert.equal([ended.terminated, ended.session_status, ended.acp_handoff.checkout_url], [true, 'complete', 'https://acmeoutdoor.example/trail-pro-2p/checkout']);
  const late = await call('si_send_message', { idempotency_key: key(), session_id: s.session_id, message: 'hello?' });
  assert.equal([late.adcp_error?.code, late.adcp_error?.recovery], ['SESSION_TERMINATED', 'terminal']);
  const again = await call('si_terminate_session', { session_id: s.session_id, reason: 'user_exit' });
  assert.equal([again.terminated, again.session_status], [true, 'complete'], 'ending an ended session changes nothing');
});

test('a session idle past its time to live ends; the controller can end one as its host would', async () => {
  const { call, advance } = siAgent();
  const idle = await open(call);
  advance(601_000);
  assert.is((await call('si_send_message', { idempotency_key: key(), session_id: idle.session_id, message: 'still there?' })).adcp_error?.code, 'SESSION_TERMINATED');
  const s = await open(call);
  assert.equal((await call('comply_test_controller', { scenario: 'list_scenarios', account: { sandbox: true } })).scenarios, ['force_session_status']);
  assert.is((await call('comply_test_controller', { scenario: 'force_session_status', account: { brand: { domain: 'x.example' } }, params: { session_id: s.session_id, status: 'terminated' } })).error, 'FORBIDDEN');
  const forced = await call('comply_test_controller', { scenario: 'force_session_status', account: { sandbox: true }, params: { session_id: s.session_id, status: 'terminated', termination_reason: 'session_timeout' } });
  assert.equal([forced.success, forced.previous_state, forced.current_state], [true, 'active', 'terminated']);
  assert.is((await call('si_send_message', { idempotency_key: key(), session_id: s.session_id, message: 'hi' })).adcp_error?.code, 'SESSION_TERMINATED');
  assert.is((await call('comply_test_controller', { scenario: 'force_session_status', account: { sandbox: true }, params: { session_id: 'si_never', status: 'terminated' } })).error, 'NOT_FOUND');
});

test('offerings: the brand\'s own, with matching products and a token that frames the session; another brand\'s is unavailable, with alternatives', async () => {
  const { call, advance } = siAgent();
  const offering = await call('si_get_offering', { offering_id: 'acme_trail_season', intent: 'headlamp for night hikes', include_products: true, product_limit: 2 });
  assert.equal([offering.available, offering.offering.offering_id, offering.matching_products.map((p: Body) => p.product_id)], [true, 'acme_trail_season', ['ridge_headlamp', 'trail_pro_2p']]);
  assert.is(offering.total_matching, 3);
  const framed = await open(call, { offering_token: offering.offering_token });
  assert.is(framed.session_status, 'active');
  const other = await call('si_get_offering', { offering_id: 'novamotors_conversational_v1' });
  assert.equal([other.available, other.unavailable_reason, other.alternative_offering_ids], [false, 'not_found', ['acme_trail_season']]);
  advance(901_000);
  // A token past its time to live frames nothing: the session opens on the intent alone.
  assert.is((await open(call, { offering_token: offering.offering_token, offering_id: 'novamotors_conversational_v1' })).session_status, 'active');
});

test.run();

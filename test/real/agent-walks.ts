import { randomUUID } from 'node:crypto';

/**
 * A buyer's walk through every tool of each reference agent, as the official MCP client makes it (grader.test.ts
 * drives it over Streamable HTTP against a fresh instance in development mode, so the runtime checks every answer
 * against its release): each call is one a buyer would make, in an order that gives the later ones what they need
 * (a segment id from discovery before its activation, a media buy before its update). `call` fails the test unless
 * the agent answers with success; the harness then checks the walk reached every tool the profile serves and sends
 * each tool an invalid variant of the request it answered.
 */
export type Call = (tool: string, args: Record<string, unknown>) => Promise<Record<string, any>>;
export type Walk = (call: Call) => Promise<void>;

const key = (): string => randomUUID();
const ACCOUNT = { brand: { domain: 'walk-buyer.example' }, operator: 'walk-agency.example' };
const SANDBOX_ACCOUNT = { ...ACCOUNT, sandbox: true };

/** The runtime's own tools, the same on every agent that serves them (the task reads where the agent makes tasks). */
async function runtimeTools(call: Call, taskId?: string): Promise<void> {
  await call('get_adcp_capabilities', {});
  if (taskId !== undefined) {
    await call('list_tasks', { account: ACCOUNT });
    await call('get_task_status', { task_id: taskId });
  }
  // An inactive subscriber needs no endpoint proof: the agent keeps it without calling out.
  await call('sync_agent_notification_configs', {
    idempotency_key: key(),
    notification_configs: [{ subscriber_id: 'walk', url: 'https://walk-buyer.example/hooks/adcp', event_types: ['capabilities.changed'], active: false }],
  });
}

async function accounts(call: Call): Promise<void> {
  await call('sync_accounts', { idempotency_key: key(), accounts: [{ ...ACCOUNT, billing: 'operator' }] });
  await call('list_accounts', { account: ACCOUNT });
}

/** Registers a governance agent on the walk's account: on an agent enforcing signed governance, the account's later governed calls need that agent's token. */
async function registerGovernance(call: Call): Promise<void> {
  await call('sync_governance', {
    idempotency_key: key(),
    accounts: [{ account: ACCOUNT, governance_agents: [{ url: 'https://walk-governance.example/mcp', authentication: { schemes: ['Bearer'], credentials: 'walk-governance-credential-0123456789abcdef' } }] }],
  });
}

export const WALKS: Record<string, Walk> = {
  async seller(call) {
    await accounts(call);
    await call('list_creative_formats', {});
    const { products } = await call('get_products', { account: ACCOUNT, brief: 'homepage takeover', buying_mode: 'brief' });
    const product = products[0];
    const buy = await call('create_media_buy', {
      idempotency_key: key(),
      account: ACCOUNT,
      brand: ACCOUNT.brand,
      start_time: 'asap',
      end_time: '2099-01-31T23:59:59Z',
      packages: [{ product_id: product.product_id, pricing_option_id: product.pricing_options[0].pricing_option_id, budget: 50000 }],
    });
    await call('sync_creatives', {
      idempotency_key: key(),
      account: ACCOUNT,
      creatives: [{ creative_id: 'walk_creative', name: 'Walk creative', format_kind: 'image', assets: { image: { asset_type: 'image', url: 'https://walk-buyer.example/a.png', width: 970, height: 250 } } }],
    });
    await call('list_creatives', { account: ACCOUNT });
    await call('update_media_buy', { idempotency_key: key(), account: ACCOUNT, media_buy_id: buy.media_buy_id, name: 'Walk buy' });
    await call('get_media_buys', { account: ACCOUNT, media_buy_ids: [buy.media_buy_id] });
    await call('get_media_buy_delivery', { account: ACCOUNT, media_buy_ids: [buy.media_buy_id] });
    await call('provide_performance_feedback', { idempotency_key: key(), media_buy_id: buy.media_buy_id, measurement_period: { start: '2026-01-01T00:00:00Z', end: '2026-01-08T00:00:00Z' }, performance_index: 1.1 });
    // AdCP 3.2's compact lifecycle over the same inventory: a direct purchase at the listed versions, a control on it,
    // and a proposal negotiated, one declined.
    const listed = await call('list_products', { idempotency_key: key(), account: ACCOUNT, criteria: { product_ids: [product.product_id] } });
    const direct = await call('buy_products', {
      idempotency_key: key(),
      account: ACCOUNT,
      feed_version: listed.feed_version,
      pricing_version: listed.pricing_version,
      purchases: [{ product_id: product.product_id, pricing_option_id: listed.products[0].pricing_options[0].pricing_option_id, budget: 40000 }],
      start_time: 'asap',
      end_time: '2099-01-31T23:59:59Z',
    });
    await call('control_media_buy', { idempotency_key: key(), account: ACCOUNT, media_buy_id: direct.media_buy_id, revision: direct.revision, daily_budget_cap: 500 });
    const drafted = await call('request_proposals', { idempotency_key: key(), account: ACCOUNT, brief: 'USD 30,000 from March 1 through March 31, 2099', criteria: { product_ids: [product.product_id] } });
    const refined = await call('refine_proposals', { idempotency_key: key(), refinements: [{ proposal_id: drafted.proposals[0].proposal_id, action: 'finalize' }] });
    const committed = refined.results[0].proposal;
    await call('accept_proposal', { idempotency_key: key(), account: ACCOUNT, proposal_id: committed.proposal_id, proposal_terms_digest: committed.terms_digest });
    const other = await call('request_proposals', { idempotency_key: key(), account: ACCOUNT, brief: 'homepage takeover', criteria: { product_ids: [product.product_id] } });
    await call('decline_proposals', { idempotency_key: key(), declines: [{ proposal_id: other.proposals[0].proposal_id, reason: 'budget_changed' }] });
    // The controller's forced arm makes the sandbox account's next buy a task the runtime keeps.
    const taskId = `task_walk_${randomUUID().slice(0, 8)}`;
    await call('comply_test_controller', { account: SANDBOX_ACCOUNT, scenario: 'force_create_media_buy_arm', params: { arm: 'submitted', task_id: taskId } });
    const submitted = await call('create_media_buy', {
      idempotency_key: key(),
      account: SANDBOX_ACCOUNT,
      brand: ACCOUNT.brand,
      start_time: 'asap',
      end_time: '2099-01-31T23:59:59Z',
      packages: [{ product_id: product.product_id, pricing_option_id: product.pricing_options[0].pricing_option_id, budget: 50000 }],
    });
    if (submitted.task_id !== taskId) throw new Error(`the forced arm answered ${JSON.stringify(submitted)}`);
    // Last: a governance agent registered on the account makes its later buys need that agent's token (the seller
    // enforces signed governance on create_media_buy), so no buy of this walk comes after it.
    await registerGovernance(call);
    await runtimeTools(call, taskId);
  },

  async signals(call) {
    await accounts(call);
    const { signals } = await call('get_signals', { account: ACCOUNT, signal_spec: 'in-market electric vehicle buyers' });
    const signal = signals[0];
    await call('activate_signal', {
      idempotency_key: key(),
      account: ACCOUNT,
      signal_agent_segment_id: signal.signal_agent_segment_id,
      pricing_option_id: signal.pricing_options[0].pricing_option_id,
      destinations: [{ type: 'platform', platform: 'the-trade-desk', account: 'walk-seat' }],
    });
    await call('get_signals', { discovery_mode: 'wholesale', account: ACCOUNT, pagination: { max_results: 2 } });
    // The controller's forced arm makes the sandbox account's next brief a task the runtime keeps.
    const taskId = `task_walk_${randomUUID().slice(0, 8)}`;
    await call('comply_test_controller', { account: SANDBOX_ACCOUNT, scenario: 'force_get_signals_arm', params: { arm: 'submitted', task_id: taskId } });
    const submitted = await call('get_signals', { account: SANDBOX_ACCOUNT, signal_spec: 'outdoor enthusiasts' });
    if (submitted.status !== 'submitted' || submitted.task_id !== taskId || submitted.signals !== undefined) throw new Error(`the forced arm answered ${JSON.stringify(submitted)}`);
    const listed = await call('list_tasks', { account: SANDBOX_ACCOUNT, filters: { task_ids: [taskId], task_type: 'get_signals' } });
    if (listed.tasks?.[0]?.status !== 'submitted' || listed.tasks[0].domain !== 'signals') throw new Error(`list_tasks answered ${JSON.stringify(listed)}`);
    await call('comply_test_controller', { account: SANDBOX_ACCOUNT, scenario: 'force_task_completion', params: { task_id: taskId, result: { status: 'completed', signals: [], cache_scope: 'public' } } });
    const done = await call('get_task_status', { task_id: taskId, include_result: true });
    if (done.status !== 'completed') throw new Error(`get_task_status answered ${JSON.stringify(done)}`);
    // Last: a governance agent registered on the account makes its later activations need that agent's token (the
    // sandbox enforces signed governance on activate_signal), so no activation of this walk comes after it.
    await registerGovernance(call);
    await runtimeTools(call, taskId);
  },

  async creative(call) {
    await accounts(call);
    await call('list_creative_formats', {});
    const image = { asset_type: 'image', url: 'https://walk-buyer.example/hero-300x250.png', width: 300, height: 250 };
    await call('sync_creatives', { idempotency_key: key(), account: ACCOUNT, creatives: [{ creative_id: 'walk_hero', name: 'Walk hero', format_kind: 'image', assets: { image_main: image } }] });
    await call('list_creatives', { account: ACCOUNT, include_pricing: true });
    const manifest = { format_kind: 'image', assets: { image_main: image, headline: { asset_type: 'text', content: 'Walk the trail' } } };
    const built = await call('build_creative', { idempotency_key: key(), account: ACCOUNT, creative_manifest: manifest, target_capability_id: 'display_728x90' });
    if (built.creative_manifest?.assets?.image_main?.width !== 728) throw new Error(`the template answered ${JSON.stringify(built).slice(0, 500)}`);
    await call('build_creative', { idempotency_key: key(), account: ACCOUNT, creative_id: 'walk_hero', target_capability_id: 'display_tag_300x250', media_buy_id: 'mb_walk' });
    await call('preview_creative', { account: ACCOUNT, request_type: 'single', creative_manifest: manifest });
    await call('get_creative_delivery', { account: ACCOUNT, creative_ids: ['walk_hero'] });
    await call('report_usage', {
      idempotency_key: key(),
      reporting_period: { start: '2026-01-01T00:00:00Z', end: '2026-01-31T23:59:59Z' },
      usage: [{ account: ACCOUNT, creative_id: 'walk_hero', pricing_option_id: 'po_adserving_cpm', impressions: 10000, vendor_cost: 5, currency: 'USD' }],
    });
    await call('comply_test_controller', { account: SANDBOX_ACCOUNT, scenario: 'list_scenarios' });
    await runtimeTools(call);
  },

  async si(call) {
    const offering = await call('si_get_offering', { offering_id: 'acme_trail_season', intent: 'a light two-person tent', include_products: true });
    if (offering.available !== true || offering.matching_products?.[0]?.product_id !== 'trail_pro_2p') throw new Error(`si_get_offering answered ${JSON.stringify(offering).slice(0, 500)}`);
    const session = await call('si_initiate_session', {
      idempotency_key: key(),
      intent: 'The user wants a light two-person backpacking tent',
      identity: { consent_granted: false, anonymous_session_id: 'walk-anon' },
      offering_token: offering.offering_token,
    });
    await call('si_send_message', { idempotency_key: key(), session_id: session.session_id, message: 'How much does it weigh packed?' });
    const buying = await call('si_send_message', { idempotency_key: key(), session_id: session.session_id, message: 'I want to buy the Trail Pro 2P tent' });
    if (buying.session_status !== 'pending_handoff' || buying.handoff?.type !== 'transaction') throw new Error(`si_send_message answered ${JSON.stringify(buying).slice(0, 500)}`);
    const ended = await call('si_terminate_session', { session_id: session.session_id, reason: 'handoff_transaction' });
    if (ended.session_status !== 'complete' || typeof ended.acp_handoff?.checkout_url !== 'string') throw new Error(`si_terminate_session answered ${JSON.stringify(ended).slice(0, 500)}`);
    await call('comply_test_controller', { account: SANDBOX_ACCOUNT, scenario: 'list_scenarios' });
    await runtimeTools(call);
  },

  async brand(call) {
    const identity = await call('get_brand_identity', { brand_id: 'acme_outdoor', fields: ['colors', 'tone'] });
    if (identity.house?.domain !== 'acmeoutdoor.example' || identity.colors === undefined || identity.logos !== undefined) throw new Error(`get_brand_identity answered ${JSON.stringify(identity).slice(0, 500)}`);
    const found = await call('search_brands', { query: 'electric vehicles automotive' });
    if (found.brands?.[0]?.brand_id !== 'nova_motors' || found.brands[0].relationship_trust !== 'inline') throw new Error(`search_brands answered ${JSON.stringify(found).slice(0, 500)}`);
    await runtimeTools(call);
  },
};

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet } from './helpers/generated.js';
import { repoRoot } from './helpers/releases.js';
import { tempDir } from './helpers/temp.js';

/**
 * The reference signals agent's side of signed governance (examples/signals/governance.js) white-box: what it answers
 * the runtime's enforcement on activate_signal (its own price for an activation, which activations are governed, an
 * account's registration) and sync_governance. The enforcement itself is the runtime's (governance-enforce.test.ts);
 * AdCP's grader runs signal_marketplace/governance_approved and governance_denied against the sandbox in
 * test/real/governance-grader.test.ts.
 */
type Body = Record<string, any>;
type Hooks = { commitment(args: Body): { amount: number; currency: string } | undefined; governed(args: Body): boolean };
type Governance = {
  options: { buyers: Record<string, unknown>; registration(args: Body): { url: string; credentials?: string } | undefined; tasks: { activate_signal: Hooks } };
};
const dir = (f: string) => pathToFileURL(join(repoRoot, 'examples/signals', f)).href;
const { createSignalsGovernance, charge } = (await import(dir('governance.js'))) as {
  createSignalsGovernance(settings?: Record<string, unknown>): Governance;
  charge(option: Body): { amount: number; currency: string };
};
const { createSignalsAgent } = (await import(dir('index.js'))) as {
  createSignalsAgent(agent: unknown, options?: Record<string, unknown>): { handlers: Record<string, (args: unknown, ctx: unknown) => Promise<Body>> };
};
const { loadProfile } = await committedSet();

const ACCOUNT = { brand: { domain: 'acmeoutdoor.example' }, operator: 'pinnacle-agency.example' };
const OUTDOOR = 'pinnacle-data__outdoor_enthusiasts';

async function governedAgent(settings: Record<string, unknown> = {}) {
  const agent = await loadProfile('signals-agent', { mode: 'development', store: { stateDir: tempDir() } });
  const governance = createSignalsGovernance(settings);
  // The committed profile serves no sync_governance; the sandbox's does: the handler set is made as for it.
  const { handlers } = createSignalsAgent({ ...agent, tools: (r?: string) => [...agent.tools(r as never), 'sync_governance'] }, { governance });
  return { agent, governance, handlers, hooks: governance.options.tasks.activate_signal };
}

test('charge: a flat fee commits its amount at activation; CPM and percent-of-media fees commit zero, in the option\'s currency', () => {
  assert.equal(charge({ pricing_option_id: 'f', model: 'flat_fee', amount: 2500, period: 'monthly', currency: 'USD' }), { amount: 2500, currency: 'USD' });
  assert.equal(charge({ pricing_option_id: 'c', model: 'cpm', cpm: 1.9, currency: 'EUR' }), { amount: 0, currency: 'EUR' });
  assert.equal(charge({ pricing_option_id: 'p', model: 'percent_of_media', percent: 12, currency: 'GBP' }), { amount: 0, currency: 'GBP' });
});

test('the commitment is the agent\'s own price for the option the buyer accepts; nothing for what the handler refuses; deactivation is not governed', async () => {
  const unbound = createSignalsGovernance({ buyers: {} }).options.tasks.activate_signal;
  assert.is(unbound.commitment({ signal_agent_segment_id: OUTDOOR, pricing_option_id: 'po_outdoor_flat' }), undefined, 'no catalog yet: nothing priced');
  const { agent, hooks } = await governedAgent({ buyers: {} });
  const activation = { action: 'activate', account: ACCOUNT, signal_agent_segment_id: OUTDOOR, destinations: [{ type: 'platform', platform: 'the-trade-desk' }] };
  assert.equal(hooks.commitment({ ...activation, pricing_option_id: 'po_outdoor_flat' }), { amount: 2500, currency: 'USD' });
  assert.equal(hooks.commitment({ ...activation, pricing_option_id: 'po_outdoor_cpm' }), { amount: 0, currency: 'USD' });
  assert.is(hooks.commitment({ ...activation, pricing_option_id: 'po_nope' }), undefined);
  assert.is(hooks.commitment({ ...activation, signal_agent_segment_id: 'nonexistent', pricing_option_id: 'po_outdoor_cpm' }), undefined);
  assert.ok(hooks.governed(activation));
  assert.ok(hooks.governed({ ...activation, action: undefined }), 'activate is the default action');
  assert.not.ok(hooks.governed({ ...activation, action: 'deactivate' }), 'the specification exempts deactivation');
  await agent.close();
});

test('sync_governance: one agent per account, its credential write-only; the registration is what the runtime reads; an empty list removes it', async () => {
  const { agent, governance, handlers } = await governedAgent({ buyers: { buyer: { caller: 'https://pinnacle-agency.example', brandJson: 'pinnacle-agency.example' } } });
  assert.equal(Object.keys(governance.options.buyers), ['buyer']);
  assert.is(governance.options.registration({ account: ACCOUNT }), undefined, 'no registration yet');
  const credentials = 'gov-token-0123456789abcdef0123456789abcdef';
  const synced = await handlers.sync_governance!({ accounts: [{ account: ACCOUNT, governance_agents: [{ url: 'https://gov.example/mcp', authentication: { schemes: ['Bearer'], credentials } }] }] }, { principal: 'buyer' });
  assert.equal(synced.accounts[0], { account: ACCOUNT, status: 'synced', governance_agents: [{ url: 'https://gov.example/mcp' }] });
  assert.not.ok(JSON.stringify(synced).includes(credentials), 'the credential is never answered');
  assert.equal(governance.options.registration({ account: ACCOUNT }), { url: 'https://gov.example/mcp', credentials });
  assert.is(governance.options.registration({ account: { ...ACCOUNT, operator: 'other.example' } }), undefined, 'another account registered nothing');
  const unknown = await handlers.sync_governance!({ accounts: [{ account: { account_id: 'acct_nope' }, governance_agents: [] }] }, { principal: 'buyer' });
  assert.equal([unknown.accounts[0].status, unknown.accounts[0].errors[0].code], ['failed', 'ACCOUNT_NOT_FOUND']);
  assert.is(governance.options.registration({ account: { account_id: 'acct_nope' } }), undefined);
  await handlers.sync_governance!({ accounts: [{ account: ACCOUNT, governance_agents: [] }] }, { principal: 'buyer' });
  assert.is(governance.options.registration({ account: ACCOUNT }), undefined, 'removed');
  await agent.close();
});

test.run();

import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Agent, fetch as undiciFetch } from 'undici';

/**
 * signal_marketplace/governance_approved's flow as a buyer makes it, with the official MCP client (test/real/
 * governance-grader.test.ts runs it beside AdCP's grader, whose runner sends another request than it authorized): a
 * plan at the governance agent, an account registered with it at the signals agent, check_governance for the exact
 * activate_signal request, then that request with the token. A flat-fee option makes the agent's own price non-zero,
 * so a ceiling below it is refused. Answers what each activation got.
 */
export async function signedActivation(o: { gov: string; signals: string; key: string; ca: string; buyer: string }): Promise<Record<'approved' | 'belowPrice' | 'tokenless', string>> {
  const dispatcher = new Agent({ connect: { ca: o.ca } });
  const trusting = ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher } as never)) as unknown as typeof fetch;
  const connect = async (url: string): Promise<Client> => {
    const c = new Client({ name: 'signals-governance-flow', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: trusting, requestInit: { headers: { authorization: `Bearer ${o.key}` } } }));
    return c;
  };
  const [toGov, toSignals] = await Promise.all([connect(o.gov), connect(o.signals)]);
  const call = async (c: Client, name: string, args: Record<string, unknown>) => (await c.callTool({ name, arguments: args })).structuredContent as Record<string, any>;
  const outcome = (body: Record<string, any>) => (body.deployments?.[0]?.is_live === true ? 'live' : `${body.adcp_error?.code}/${body.adcp_error?.details?.governance_error ?? ''}`);
  try {
    const account = { brand: { domain: 'signals-e2e.example' }, operator: 'pinnacle-agency.example' };
    const plan = { plan_id: `plan_signals_${randomUUID().slice(0, 8)}`, brand: account.brand, objectives: 'governed activation', budget: { total: 10_000, currency: 'USD', reallocation_threshold: 10_000 }, flight: { start: '2020-01-01T00:00:00Z', end: '2099-12-31T23:59:59Z' }, countries: ['US'] };
    await call(toGov, 'sync_plans', { idempotency_key: randomUUID(), plans: [plan] });
    await call(toSignals, 'sync_accounts', { idempotency_key: randomUUID(), accounts: [{ ...account, billing: 'operator', payment_terms: 'net_30' }] });
    await call(toSignals, 'sync_governance', { idempotency_key: randomUUID(), accounts: [{ account, governance_agents: [{ url: o.gov, authentication: { schemes: ['Bearer'], credentials: 'signals-e2e-credential-0123456789abcdef' } }] }] });
    const { signals } = await call(toSignals, 'get_signals', { account, signal_spec: 'outdoor enthusiasts', fields: ['pricing_options'] });
    const signal = signals[0];
    const flat = signal.pricing_options.find((p: Record<string, any>) => p.model === 'flat_fee');
    const activation = (platform: string) => ({ action: 'activate', account, signal_agent_segment_id: signal.signal_agent_segment_id, pricing_option_id: flat.pricing_option_id, destinations: [{ type: 'platform', platform, account: 'e2e-seat' }], idempotency_key: randomUUID() });
    const authorized = async (payload: Record<string, unknown>, amount: number) => {
      const check = await call(toGov, 'check_governance', { plan_id: plan.plan_id, caller: o.buyer, target_agent: o.signals, tool: 'activate_signal', purchase_type: 'signal_activation', proposed_commitment: { amount, currency: flat.currency }, payload });
      if (typeof check.governance_context !== 'string') throw new Error(`check_governance answered ${JSON.stringify(check)}`);
      return outcome(await call(toSignals, 'activate_signal', { ...payload, governance_context: check.governance_context }));
    };
    return {
      belowPrice: await authorized(activation('the-trade-desk'), flat.amount - 1),
      tokenless: outcome(await call(toSignals, 'activate_signal', activation('the-trade-desk'))),
      approved: await authorized(activation('pinnacle-dsp'), flat.amount),
    };
  } finally {
    await Promise.all([toGov.close(), toSignals.close()]);
    await dispatcher.close();
  }
}

// @ts-check
import { Rejection } from './errors.js';

/**
 * What every reference agent enforcing signed governance keeps the same way (seller/governance.js,
 * signals/governance.js): who its buyers are, and which accounts registered a governance agent with sync_governance
 * (AdCP: exactly one per account; its credential write-only). The agent adds what it alone knows: the price of each
 * governed task (docs/governance.md).
 *
 * @typedef {{ buyers?: Readonly<Record<string, { caller: string, brandJson: string }>> }} GovernanceSettings
 *   Default `buyers`: ADCP_GOVERNANCE_BUYERS, a JSON object of principal → { caller, brandJson }.
 * @typedef {{ resolve(ref: any): { account_id: string } }} AccountBook the agent's accounts (common/accounts.js)
 */

/** @param {GovernanceSettings} [settings] */
export function createGovernanceRegistry(settings = {}) {
  /** @type {Map<string, { url: string, credentials?: string }>} account_id → its governance agent */
  const registrations = new Map();
  /** @type {AccountBook | undefined} */
  let book;
  const buyers = settings.buyers ?? (process.env.ADCP_GOVERNANCE_BUYERS ? JSON.parse(process.env.ADCP_GOVERNANCE_BUYERS) : {});
  /** The agent's account a request names, or undefined (the handler answers an unknown one). */
  const accountOf = (/** @type {unknown} */ ref) => {
    try {
      return book?.resolve(/** @type {any} */ (ref));
    } catch (e) {
      if (e instanceof Rejection) return undefined;
      throw e;
    }
  };

  return {
    buyers,
    /** AgentOptions.governance.registration: the governance agent the request's account registered, if any. */
    registration: (/** @type {Record<string, any>} */ args) => {
      const account = accountOf(args.account);
      return account === undefined ? undefined : registrations.get(account.account_id);
    },
    /** Connects the agent's accounts (its bind calls it). */
    connect(/** @type {AccountBook} */ accounts) {
      book = accounts;
    },
    /** sync_governance: replaces each account's governance agent (AdCP: exactly one per account). */
    syncGovernance: (/** @type {{ accounts: Record<string, any>[] }} */ args) => ({
      accounts: args.accounts.map((entry) => {
        const account = accountOf(entry.account);
        if (account === undefined) return { account: entry.account, status: 'failed', errors: [{ code: 'ACCOUNT_NOT_FOUND', message: 'No such account', field: 'account', recovery: 'correctable' }] };
        const [agent] = entry.governance_agents ?? [];
        if (agent === undefined) {
          registrations.delete(account.account_id);
          return { account: entry.account, status: 'synced' };
        }
        registrations.set(account.account_id, { url: agent.url, ...(typeof agent.authentication?.credentials === 'string' ? { credentials: agent.authentication.credentials } : {}) });
        // Credentials are write-only: the answer names the agent's URL alone.
        return { account: entry.account, status: 'synced', governance_agents: [{ url: agent.url }] };
      }),
    }),
  };
}

/**
 * An enforcing agent's governance: `options` (AgentOptions.governance: the buyers, the registration lookup, the agent's
 * own `tasks` hooks) and `bind`, which connects the agent's parts once it has made them (`connect` keeps what the hooks
 * need, such as its catalog) and returns sync_governance.
 * @template {{ accounts: AccountBook }} P
 * @param {GovernanceSettings} settings
 * @param {Record<string, Record<string, Function>>} tasks
 * @param {(parts: P) => void} connect
 */
export function enforcingGovernance(settings, tasks, connect) {
  const registry = createGovernanceRegistry(settings);
  return {
    options: { buyers: registry.buyers, registration: registry.registration, tasks },
    /** Connects the agent's accounts and parts (the agent's factory calls it) and returns the handlers this module serves. */
    bind(/** @type {P} */ parts) {
      connect(parts);
      registry.connect(parts.accounts);
      return { sync_governance: registry.syncGovernance };
    },
  };
}

// @ts-check
import { randomUUID } from 'node:crypto';
import { reject, Rejection } from './errors.js';
import { paginate } from './pagination.js';

/**
 * Advertiser accounts (docs/accounts): each is a space of its own — what it holds (a seller's media buys and
 * creatives, a signals agent's activations …) never crosses accounts; the agent says what a space holds. A request
 * names its account by `account_id` or by the natural key (brand + operator + optional operator_unit.id, fixed
 * currency, buyer-selected timezone, sandbox). These agents do not require operator auth
 * (`require_operator_auth: false`), so a natural key not seen before provisions the account implicitly, as AdCP's
 * implicit accounts do; an unknown `account_id` is ACCOUNT_NOT_FOUND. An account remembers the principal that
 * provisioned it: a request that names no account (provide_performance_feedback names only its media buy) is looked
 * up among the caller's own accounts.
 *
 * @typedef {{ domain: string, brand_id?: string, countries?: string[] }} BrandKey
 * @typedef {{ subscriber_id: string, url: string, event_types: string[], active?: boolean, [k: string]: unknown }} NotificationConfig
 */

/**
 * @template S
 * @typedef {{
 *   account_id: string, name: string, status: string, brand: BrandKey, operator: string, billing: string,
 *   sandbox: boolean, revision: number, operator_unit?: { id: string, name?: string }, currency?: string,
 *   timezone?: string, payment_terms?: string, notification_configs: NotificationConfig[], space: S,
 *   principal?: string
 * }} Account `principal`: who provisioned it (none: an account the agent already held, or a sandbox fixture's)
 */

/** Account statuses in which the account may not take on new spend (accounts overview, "Account status lifecycle"). */
const BLOCKED = /** @type {Record<string, string>} */ ({
  suspended: 'ACCOUNT_SUSPENDED',
  payment_required: 'ACCOUNT_PAYMENT_REQUIRED',
  pending_approval: 'ACCOUNT_SETUP_REQUIRED',
  rejected: 'ACCOUNT_SUSPENDED',
  closed: 'ACCOUNT_SUSPENDED',
});

/**
 * The natural key's identity fields: the BrandKey projection only (display fields never identify), in one fixed
 * order and with countries deduplicated and sorted, so equal keys serialize to equal strings.
 */
function naturalKey(/** @type {Record<string, any>} */ ref) {
  const brand = ref.brand ?? {};
  return JSON.stringify({
    domain: brand.domain,
    brand_id: brand.brand_id ?? null,
    countries: Array.isArray(brand.countries) ? [...new Set(brand.countries.map((/** @type {unknown} */ c) => String(c).toUpperCase()))].sort() : null,
    operator: ref.operator,
    operator_unit: ref.operator_unit?.id ?? null,
    currency: ref.currency ?? null,
    timezone: ref.timezone ?? null,
    sandbox: ref.sandbox === true,
  });
}

/**
 * @template S
 * @param {{ supportedBilling: readonly string[], space: () => S }} policy `space`: a new account's empty space
 */
export function createAccounts(policy) {
  /** @typedef {Account<S>} Held */
  /** @type {Map<string, Held>} */
  const byId = new Map();
  /** @type {Map<string, string>} natural key → account_id */
  const byNaturalKey = new Map();
  /**
   * Fixtures the compliance controller seeds without naming an account: this sandbox's shared test data, readable
   * from every account (a fixture that names its account lives in that account instead).
   */
  const fixtures = policy.space();

  /** @returns {Held} */
  const provision = (/** @type {Record<string, any>} */ fields, /** @type {string} */ id = `acct_${randomUUID().slice(0, 12)}`, /** @type {string | undefined} */ principal = undefined) => {
    const brand = { domain: fields.brand.domain, ...(fields.brand.brand_id !== undefined ? { brand_id: fields.brand.brand_id } : {}) };
    /** @type {Held} */
    const account = {
      account_id: id,
      name: fields.name ?? `${brand.domain} via ${fields.operator}`,
      status: fields.status ?? 'active',
      brand,
      operator: fields.operator,
      billing: fields.billing ?? 'operator',
      sandbox: fields.sandbox === true,
      revision: 1,
      ...(fields.operator_unit !== undefined ? { operator_unit: fields.operator_unit } : {}),
      ...(fields.currency !== undefined ? { currency: fields.currency } : {}),
      ...(fields.timezone !== undefined ? { timezone: fields.timezone } : {}),
      ...(fields.payment_terms !== undefined ? { payment_terms: fields.payment_terms } : {}),
      notification_configs: fields.notification_configs ?? [],
      space: policy.space(),
      ...(principal !== undefined ? { principal } : {}),
    };
    byId.set(id, account);
    byNaturalKey.set(naturalKey(fields), id);
    return account;
  };

  /**
   * The account a request names. A natural key provisions an implicit account on first use; an account_id must
   * exist. `undefined` (a tool whose account is optional) is the caller's default account for that brand-less call.
   * @param {Record<string, any> | undefined} ref core/account-ref.json
   * @param {string} [principal] the caller (ctx.principal): who an implicitly provisioned account belongs to
   * @returns {Held}
   */
  const resolve = (ref, principal) => {
    // No advertiser named (a read whose account is optional, or the controller's bare `{ sandbox: true }`).
    if (ref === undefined || (typeof ref.account_id !== 'string' && ref.brand === undefined)) {
      return resolve({ brand: { domain: 'default.example' }, operator: 'default.example', sandbox: ref?.sandbox === true }, principal);
    }
    if (typeof ref.account_id === 'string') {
      return byId.get(ref.account_id) ?? reject('ACCOUNT_NOT_FOUND', 'No account with this account_id is visible to the caller', { field: 'account.account_id' });
    }
    const id = byNaturalKey.get(naturalKey(ref));
    return (id !== undefined ? byId.get(id) : undefined) ?? provision(ref, undefined, principal);
  };

  /** Refuses new spend on an account whose status forbids it. */
  const requireActive = (/** @type {Held} */ account) => {
    const code = BLOCKED[account.status];
    if (code !== undefined) reject(code, `The account is ${account.status}; it cannot take new spend`, { recovery: code === 'ACCOUNT_PAYMENT_REQUIRED' || code === 'ACCOUNT_SETUP_REQUIRED' ? 'correctable' : 'terminal' });
  };

  /** The account as AdCP's core/account.json shows it. */
  const view = (/** @type {Held} */ a) => ({
    account_id: a.account_id,
    name: a.name,
    status: a.status,
    brand: a.brand,
    operator: a.operator,
    billing: a.billing,
    sandbox: a.sandbox,
    revision: a.revision,
    ...(a.operator_unit !== undefined ? { operator_unit: a.operator_unit } : {}),
    ...(a.currency !== undefined ? { currency: a.currency } : {}),
    ...(a.timezone !== undefined ? { timezone: a.timezone } : {}),
    ...(a.payment_terms !== undefined ? { payment_terms: a.payment_terms } : {}),
    notification_configs: a.notification_configs,
  });

  /** A sync_accounts entry's own defects, as its failed row's errors (field relative to the entry). */
  const entryDefects = (/** @type {Record<string, any>} */ entry) => {
    const seen = new Set();
    /** @type {{ code: string, message: string, field?: string, recovery: string, details?: Record<string, unknown> }[]} */
    const errors = [];
    (entry.notification_configs ?? []).forEach((/** @type {NotificationConfig} */ c, /** @type {number} */ i) => {
      if (seen.has(c.subscriber_id)) {
        errors.push({ code: 'INVALID_REQUEST', message: `subscriber_id ${JSON.stringify(c.subscriber_id)} appears twice`, field: `notification_configs[${i}].subscriber_id`, recovery: 'correctable' });
      }
      seen.add(c.subscriber_id);
    });
    if (entry.account === undefined && entry.billing !== undefined && !policy.supportedBilling.includes(entry.billing)) {
      errors.push({
        code: 'BILLING_NOT_SUPPORTED',
        message: `billing ${JSON.stringify(entry.billing)} is not supported; supported: ${policy.supportedBilling.join(', ')}`,
        field: 'billing',
        recovery: 'correctable',
        details: { scope: 'capability', supported_billing: [...policy.supportedBilling] },
      });
    }
    // Agent billing needs a billing agreement with the calling agent; this sandbox has one with no agent, so it
    // points the buyer at the billing party it can use (no account terms disclosed: only what to send instead).
    if (errors.length === 0 && entry.account === undefined && entry.billing === 'agent') {
      errors.push({
        code: 'BILLING_NOT_PERMITTED_FOR_AGENT',
        message: 'Agent billing is not available to this agent; bill the operator instead',
        field: 'billing',
        recovery: 'correctable',
        details: { rejected_billing: 'agent', suggested_billing: 'operator' },
      });
    }
    return errors;
  };

  /** One sync_accounts entry → its result row. */
  const syncEntry = (/** @type {Record<string, any>} */ entry, /** @type {boolean} */ dryRun, /** @type {string | undefined} */ principal) => {
    const identity = entry.account === undefined ? { brand: entry.brand, operator: entry.operator } : {};
    const errors = entryDefects(entry);
    if (errors.length > 0) return { ...identity, ...(entry.account !== undefined ? resolvedIdentity(entry.account) : {}), action: 'failed', status: 'rejected', errors };
    if (entry.account !== undefined) {
      // Settings update of an existing account: never provisions (UNSUPPORTED_PROVISIONING otherwise).
      let account;
      try {
        account = typeof entry.account.account_id === 'string' ? resolve(entry.account) : byId.get(byNaturalKey.get(naturalKey(entry.account)) ?? '');
      } catch (e) {
        if (!(e instanceof Rejection)) throw e;
      }
      if (account === undefined) {
        return { ...resolvedIdentity(entry.account), action: 'failed', status: 'rejected', errors: [{ code: 'ACCOUNT_NOT_FOUND', message: 'No such account to update', field: 'account', recovery: 'correctable' }] };
      }
      if (!dryRun) {
        if (entry.payment_terms !== undefined) account.payment_terms = entry.payment_terms;
        if (entry.notification_configs !== undefined) account.notification_configs = structuredClone(entry.notification_configs);
        if (entry.billing !== undefined) account.billing = entry.billing;
        account.revision += 1;
      }
      return { ...view(account), action: 'updated' };
    }
    const existing = byNaturalKey.get(naturalKey(entry));
    if (existing !== undefined) {
      const account = /** @type {Held} */ (byId.get(existing));
      if (!dryRun) {
        if (entry.notification_configs !== undefined) account.notification_configs = structuredClone(entry.notification_configs);
        if (entry.payment_terms !== undefined) account.payment_terms = entry.payment_terms;
        if (entry.billing !== undefined) account.billing = entry.billing;
      }
      return { ...view(account), action: 'unchanged' };
    }
    if (dryRun) return { ...identity, action: 'created', status: 'active' };
    return { ...view(provision(entry, undefined, principal)), action: 'created' };
  };

  /** Brand and operator of an account reference, for a failed row (which requires them). */
  const resolvedIdentity = (/** @type {Record<string, any>} */ ref) => {
    const known = typeof ref.account_id === 'string' ? byId.get(ref.account_id) : undefined;
    if (known !== undefined) return { account_id: known.account_id, brand: known.brand, operator: known.operator };
    return { brand: ref.brand ?? { domain: 'unknown.example' }, operator: ref.operator ?? 'unknown.example' };
  };

  return {
    fixtures,
    resolve,
    requireActive,
    view,
    /** An account with a fixed id: one the seller already holds, or a controller fixture (seed_account). */
    seed(/** @type {string} */ id, /** @type {Record<string, any>} */ fields) {
      const existing = byId.get(id);
      if (existing !== undefined) return existing;
      return provision({ brand: { domain: `${id.replace(/[^a-z0-9-]/gi, '-').toLowerCase()}.example` }, operator: 'seller.example', ...fields }, id);
    },
    byId: (/** @type {string} */ id) => byId.get(id),
    all: () => [...byId.values()],
    /** The accounts `principal` may act in: those it provisioned, and those the agent holds for every caller. */
    of: (/** @type {string | undefined} */ principal) => [...byId.values()].filter((a) => a.principal === undefined || a.principal === principal),
    handlers: {
      sync_accounts: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string } | undefined} */ ctx) => ({
        accounts: (args.accounts ?? []).map((/** @type {Record<string, any>} */ e) => syncEntry(e, args.dry_run === true, ctx?.principal)),
        ...(args.dry_run === true ? { dry_run: true } : {}),
      }),
      list_accounts: (/** @type {Record<string, any>} */ args) => {
        let accounts = [...byId.values()];
        if (args.account !== undefined) {
          const id = typeof args.account.account_id === 'string' ? args.account.account_id : byNaturalKey.get(naturalKey(args.account));
          accounts = accounts.filter((a) => a.account_id === id);
        }
        if (args.status !== undefined) accounts = accounts.filter((a) => a.status === args.status);
        if (args.sandbox !== undefined) accounts = accounts.filter((a) => a.sandbox === args.sandbox);
        const { page, pagination } = paginate(accounts, args.pagination);
        return { accounts: page.map(view), pagination };
      },
    },
  };
}

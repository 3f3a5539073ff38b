// @ts-check
import { createAccounts as accountBook } from '../common/accounts.js';

/**
 * The seller's accounts (common/accounts.js): each holds its own media buys and creatives.
 *
 * @typedef {{ mediaBuys: Map<string, import('./media-buys.js').MediaBuy>, creatives: Map<string, import('./creatives.js').Creative> }} AccountSpace
 * @typedef {import('../common/accounts.js').Account<AccountSpace>} Account
 */

/** @param {{ supportedBilling: readonly string[] }} policy */
export function createAccounts(policy) {
  return accountBook({ ...policy, space: () => /** @type {AccountSpace} */ ({ mediaBuys: new Map(), creatives: new Map() }) });
}

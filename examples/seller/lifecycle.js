// @ts-check
/**
 * The state machines, as data. Media buys (docs/media-buy/specification, "Media buy lifecycle"): a buy waits for
 * creatives, then for its flight to start, runs, may pause and resume, and ends completed, canceled or rejected —
 * terminal states no transition leaves; `rejected` only comes before delivery starts. Creatives
 * (docs/creative/specification, "Creative status lifecycle"): review comes before approval (this seller's
 * ingestion is instant, so a synced creative starts in `pending_review`); an archived creative is revived by syncing
 * it again. Accounts (docs/accounts/overview): `rejected` and `closed` are terminal.
 */

/** @type {Record<string, readonly string[]>} status → statuses it may move to */
export const MEDIA_BUY_TRANSITIONS = {
  pending_creatives: ['pending_start', 'active', 'canceled', 'rejected'],
  pending_start: ['pending_creatives', 'active', 'canceled', 'rejected'],
  active: ['paused', 'completed', 'canceled'],
  paused: ['active', 'completed', 'canceled'],
  completed: [],
  canceled: [],
  rejected: [],
};

/** @type {Record<string, readonly string[]>} */
export const CREATIVE_TRANSITIONS = {
  processing: ['pending_review', 'rejected'],
  pending_review: ['approved', 'rejected'],
  approved: ['suspended', 'archived', 'rejected', 'pending_review'],
  suspended: ['approved', 'archived', 'rejected'],
  rejected: ['processing'],
  archived: ['approved', 'pending_review'],
};

/** @type {Record<string, readonly string[]>} */
export const ACCOUNT_TRANSITIONS = {
  pending_approval: ['active', 'rejected'],
  active: ['suspended', 'payment_required', 'closed'],
  suspended: ['active', 'closed'],
  payment_required: ['active', 'suspended', 'closed'],
  rejected: [],
  closed: [],
};

/** Whether `from` → `to` is a transition of `machine` (staying put is not a transition, and always allowed). */
export function canMove(/** @type {Record<string, readonly string[]>} */ machine, /** @type {string} */ from, /** @type {string} */ to) {
  return from === to || (machine[from] ?? []).includes(to);
}

export const isTerminalMediaBuy = (/** @type {string} */ status) => MEDIA_BUY_TRANSITIONS[status]?.length === 0;

/** What a buyer may do with a buy in each status (enums/media-buy-valid-action.json, names both releases share). */
const CHANGES = ['update_budget', 'update_dates', 'update_packages', 'add_packages', 'sync_creatives'];
export const VALID_ACTIONS = /** @type {Record<string, string[]>} */ ({
  pending_creatives: ['cancel', ...CHANGES],
  pending_start: ['cancel', ...CHANGES],
  active: ['pause', 'cancel', ...CHANGES],
  paused: ['resume', 'cancel', ...CHANGES],
  completed: [],
  canceled: [],
  rejected: [],
});

// @ts-check
export { ACCOUNT_TRANSITIONS, canMove, CREATIVE_TRANSITIONS } from '../common/lifecycle.js';

/**
 * The media buy's state machine, as data (the creative and account ones are every agent's: common/lifecycle.js).
 * Media buys (docs/media-buy/specification, "Media buy lifecycle"): a buy waits for creatives, then for its flight to
 * start, runs, may pause and resume, and ends completed, canceled or rejected — terminal states no transition leaves;
 * `rejected` only comes before delivery starts. This seller's creative ingestion is instant, so a synced creative
 * starts in `pending_review`.
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

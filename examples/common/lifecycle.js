// @ts-check
/**
 * The state machines every reference agent shares, as data. Creatives (docs/creative/specification, "Creative status
 * lifecycle"): review comes before approval; an approved creative may be suspended (and reinstated), archived or
 * rejected; a rejected one is resubmitted by syncing it again, an archived one revived. Accounts
 * (docs/accounts/overview): `rejected` and `closed` are terminal.
 */

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


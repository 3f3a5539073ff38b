// @ts-check
import { randomUUID } from 'node:crypto';
import { reject } from '../common/errors.js';

/**
 * provide_performance_feedback: a buyer's (or its measurement partner's) assertion about how a media buy performs,
 * which the seller's optimizer weighs. The request names only the media buy, never an account (neither release's
 * request has one), so the buy is looked up among the caller's accounts — those its principal provisioned and those
 * the seller holds for every caller — and the sandbox's shared fixtures; a buy of another principal's account is
 * MEDIA_BUY_NOT_FOUND, as for an id that never existed. Each assertion is kept immutable under a `feedback_id` the
 * seller issues; a revision names the one it supersedes.
 *
 * @typedef {{ feedback_id: string, received_at: string, package_id?: string, creative_id?: string,
 *   measurement_period: { start: string, end: string }, performance_index: number, supersedes_feedback_id?: string,
 *   superseded: boolean }} Feedback
 */

/**
 * @param {{ accounts: ReturnType<typeof import('./accounts.js').createAccounts>, now: () => Date }} deps
 */
export function createFeedback({ accounts, now }) {
  /** @type {Map<string, Feedback[]>} per media buy id, in arrival order */
  const received = new Map();

  /** The buy `id` among the accounts `principal` may act in, with the account holding it. */
  const findForCaller = (/** @type {string | undefined} */ principal, /** @type {string} */ id) => {
    for (const account of accounts.of(principal)) {
      const buy = account.space.mediaBuys.get(id);
      if (buy !== undefined) return { buy, creatives: account.space.creatives };
    }
    const fixture = accounts.fixtures.mediaBuys.get(id);
    if (fixture !== undefined) return { buy: fixture, creatives: accounts.fixtures.creatives };
    return reject('MEDIA_BUY_NOT_FOUND', 'No such media buy in the caller\'s accounts', { field: 'media_buy_id' });
  };

  return {
    /** Feedback received for a media buy (what the seller's optimizer reads). */
    of: (/** @type {string} */ mediaBuyId) => received.get(mediaBuyId) ?? [],
    handlers: {
      provide_performance_feedback: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string } | undefined} */ ctx) => {
        const { buy, creatives } = findForCaller(ctx?.principal, args.media_buy_id);
        if (args.package_id !== undefined && !buy.packages.some((p) => p.package_id === args.package_id)) {
          reject('PACKAGE_NOT_FOUND', `No package ${JSON.stringify(args.package_id)} in this media buy`, { field: 'package_id' });
        }
        if (args.creative_id !== undefined && !creatives.has(args.creative_id) && !accounts.fixtures.creatives.has(args.creative_id)) {
          reject('CREATIVE_NOT_FOUND', `No creative ${JSON.stringify(args.creative_id)} in this account's library`, { field: 'creative_id' });
        }
        const period = args.measurement_period;
        if (!(Date.parse(period.start) < Date.parse(period.end))) reject('INVALID_REQUEST', 'measurement_period.start must be before its end', { field: 'measurement_period' });
        const history = received.get(buy.media_buy_id) ?? [];
        const superseded = args.supersedes_feedback_id === undefined ? undefined : history.find((f) => f.feedback_id === args.supersedes_feedback_id);
        if (args.supersedes_feedback_id !== undefined && superseded === undefined) {
          reject('INVALID_REQUEST', 'supersedes_feedback_id names no feedback this seller received for the media buy', { field: 'supersedes_feedback_id' });
        }
        if (superseded !== undefined) superseded.superseded = true;
        const received_at = now().toISOString();
        /** @type {Feedback} */
        const feedback = {
          feedback_id: `fb_${randomUUID().slice(0, 12)}`,
          received_at,
          measurement_period: { start: period.start, end: period.end },
          performance_index: args.performance_index,
          superseded: false,
          ...(args.package_id !== undefined ? { package_id: args.package_id } : {}),
          ...(args.creative_id !== undefined ? { creative_id: args.creative_id } : {}),
          ...(args.supersedes_feedback_id !== undefined ? { supersedes_feedback_id: args.supersedes_feedback_id } : {}),
        };
        history.push(feedback);
        received.set(buy.media_buy_id, history);
        // Stored and eligible for the optimizer's next pass; nothing here claims it was applied.
        return { success: true, feedback_id: feedback.feedback_id, application_status: 'accepted', received_at };
      },
    },
  };
}

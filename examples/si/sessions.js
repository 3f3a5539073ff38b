// @ts-check
import { randomUUID } from 'node:crypto';
import { reject } from '../common/errors.js';
import { declare, priceOf } from './brand.js';
import { productsFor, reply } from './conversation.js';

/**
 * The session lifecycle (docs/sponsored-intelligence/specification): a host hands a user over with their intent
 * (si_initiate_session), the brand agent converses (si_send_message) and either hands the user to checkout
 * (`pending_handoff`, then `complete`) or the session ends (`terminated`: the user left, the host ended it, or it sat
 * idle past its time to live). A session belongs to the host that opened it; another caller asking for it gets
 * SESSION_NOT_FOUND, as for an id never issued. A message to an ended session is SESSION_TERMINATED. The offering a
 * host promoted (`offering_token`, `offering_id`) frames the conversation when it is this brand's and current.
 *
 * Every brand response carries the brand's sponsored-context declaration — who pays, how the host may use it, what
 * disclosure it owes. A host's receipt of an earlier declaration is kept with the session as audit: accepted
 * (with the declared use and its disclosure commitment) or rejected, which the host may do; what it may not do is
 * accept under another use than the one declared, which its request schema refuses before this code runs.
 *
 * @typedef {{ session_id: string, principal: string | undefined, status: 'active' | 'pending_handoff' | 'complete' | 'terminated',
 *   intent: string, offering_id?: string, media_buy_id?: string, placement?: string, opened_at: number, last_at: number,
 *   transcript: { role: 'user' | 'brand', text: string, at: string }[], receipts: Record<string, unknown>[],
 *   handoff?: import('./brand.js').BrandProduct, ended_reason?: string }} Session
 */

const ENDED = new Set(['complete', 'terminated']);
/** What this brand agent can render, offered against what the host says it supports. */
const OURS = { modalities: { conversational: true }, components: { standard: ['text', 'link', 'product_card'] } };

/**
 * @param {{ brand: import('./brand.js').Brand, agentUrl: string, now: () => Date, ttlSeconds?: number, offerings: { resolve(token: string): { offering_id: string } | undefined } }} deps
 */
export function createSessions({ brand, agentUrl, now, ttlSeconds = 1800, offerings }) {
  /** @type {Map<string, Session>} */
  const sessions = new Map();

  const declaration = () => declare(brand, agentUrl, now());

  /** The caller's session, ended for inactivity when it sat idle past its time to live. */
  const find = (/** @type {string} */ id, /** @type {string | undefined} */ principal) => {
    const s = sessions.get(id);
    if (s === undefined || s.principal !== principal) return reject('SESSION_NOT_FOUND', 'No such session for this caller', { field: 'session_id' });
    if (!ENDED.has(s.status) && now().getTime() - s.last_at > ttlSeconds * 1000) Object.assign(s, { status: 'terminated', ended_reason: 'session_timeout' });
    return s;
  };

  /** Keeps a host's receipt of an earlier declaration with the session (the audit trail). */
  const keepReceipt = (/** @type {Session} */ s, /** @type {Record<string, any> | undefined} */ receipt) => {
    if (receipt !== undefined) s.receipts.push({ ...receipt, recorded_at: now().toISOString() });
  };

  /** One brand turn: the reply, kept in the transcript, with the session's status after it. */
  const turn = (/** @type {Session} */ s, /** @type {string} */ text) => {
    const answer = reply(brand, text);
    const at = now().toISOString();
    s.transcript.push({ role: 'user', text, at }, { role: 'brand', text: answer.message, at });
    s.last_at = now().getTime();
    if (answer.handoff !== undefined) Object.assign(s, { status: 'pending_handoff', handoff: answer.handoff });
    return answer;
  };

  const handoffOf = (/** @type {import('./brand.js').BrandProduct} */ p) => ({
    type: 'transaction',
    intent: { action: 'purchase', product: { product_id: p.product_id, name: p.name, url: p.url }, price: { amount: p.price, currency: p.currency } },
  });

  return {
    /** Sets a session's status (the compliance controller's force_session_status). */
    force(/** @type {string} */ id, /** @type {string} */ status, /** @type {string | undefined} */ reason) {
      const s = sessions.get(id);
      if (s === undefined) return undefined;
      const from = s.status;
      Object.assign(s, { status, ...(reason !== undefined ? { ended_reason: reason } : {}) });
      return from;
    },
    handlers: {
      si_initiate_session: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        // The offering the host promoted, when it is this brand's and current: an unknown or expired one (another
        // brand's, a token past its time to live) is not applied, and the conversation opens on the intent alone.
        const fromToken = args.offering_token !== undefined ? offerings.resolve(args.offering_token)?.offering_id : undefined;
        const offeringId = [fromToken, args.offering_id].find((id) => id !== undefined && brand.offerings.some((o) => o.offering_id === id));
        const t = now().getTime();
        /** @type {Session} */
        const s = {
          session_id: `si_${randomUUID()}`,
          principal: ctx.principal,
          status: 'active',
          intent: args.intent,
          opened_at: t,
          last_at: t,
          transcript: [],
          receipts: [],
          ...(offeringId !== undefined ? { offering_id: offeringId } : {}),
          ...(args.media_buy_id !== undefined ? { media_buy_id: args.media_buy_id } : {}),
          ...(args.placement !== undefined ? { placement: args.placement } : {}),
        };
        keepReceipt(s, args.sponsored_context_receipt);
        const answer = turn(s, args.intent);
        sessions.set(s.session_id, s);
        const host = args.supported_capabilities ?? {};
        const standard = OURS.components.standard.filter((c) => host.components?.standard === undefined || host.components.standard.includes(c));
        return {
          session_id: s.session_id,
          session_status: s.status,
          session_ttl_seconds: ttlSeconds,
          response: { message: answer.message },
          negotiated_capabilities: { modalities: { conversational: true }, components: { standard } },
          sponsored_context: declaration(),
        };
      },
      si_send_message: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const s = find(args.session_id, ctx.principal);
        if (ENDED.has(s.status)) reject('SESSION_TERMINATED', `The session has ended (${s.ended_reason ?? s.status})`, { field: 'session_id', recovery: 'terminal' });
        keepReceipt(s, args.sponsored_context_receipt);
        // A host's action response (the user pressed checkout on a product) is a purchase request for it.
        const text = args.message ?? `buy ${String(args.action_response?.payload?.product_id ?? args.action_response?.action ?? '')}`;
        const answer = turn(s, text);
        return {
          session_id: s.session_id,
          session_status: s.status,
          response: { message: answer.message },
          sponsored_context: declaration(),
          ...(s.status === 'pending_handoff' && s.handoff !== undefined ? { handoff: handoffOf(s.handoff) } : {}),
        };
      },
      si_terminate_session: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string }} */ ctx) => {
        const s = find(args.session_id, ctx.principal);
        const wasOpen = !ENDED.has(s.status);
        if (wasOpen) Object.assign(s, { status: args.reason === 'handoff_transaction' || args.reason === 'handoff_complete' ? 'complete' : 'terminated', ended_reason: args.reason });
        const checkout = args.reason === 'handoff_transaction' ? (s.handoff ?? productsFor(brand, s.intent)[0]) : undefined;
        return {
          session_id: s.session_id,
          terminated: true,
          session_status: s.status,
          ...(checkout !== undefined
            ? { acp_handoff: { checkout_url: `${checkout.url}/checkout`, checkout_token: `co_${s.session_id}`, payload: { product_id: checkout.product_id, name: checkout.name, price: priceOf(checkout) }, expires_at: new Date(now().getTime() + 900_000).toISOString() } }
            : {}),
        };
      },
    },
  };
}

// @ts-check
/**
 * comply_test_controller for the SI agent's sandbox: `force_session_status` ends a session (or moves it) the way its
 * host or its idle timer would, so the storyboards can observe what a terminated session answers. Answers are the
 * controller's own shapes; it exists only where the profile's surface is `sandbox`.
 */

/** Session statuses a session can be forced into (enums/si-session-status.json). */
const STATUSES = new Set(['active', 'pending_handoff', 'complete', 'terminated']);

/** @param {{ sessions: ReturnType<typeof import('./sessions.js').createSessions> }} deps */
export function createController({ sessions }) {
  const fail = (/** @type {string} */ error, /** @type {string} */ detail) => ({ status: 'failed', success: false, error, error_detail: detail, current_state: null });
  /** @type {Record<string, (p: Record<string, any>) => Record<string, unknown>>} */
  const scenarios = {
    force_session_status: (p) => {
      if (typeof p.session_id !== 'string' || !STATUSES.has(p.status)) return fail('INVALID_PARAMS', 'force_session_status needs params.session_id and a session status');
      const from = sessions.force(p.session_id, p.status, p.termination_reason);
      if (from === undefined) return fail('NOT_FOUND', `no session ${p.session_id}`);
      return { success: true, previous_state: from, current_state: p.status, message: `session ${p.session_id}: ${from} → ${p.status}` };
    },
  };
  return {
    handler: (/** @type {Record<string, any>} */ args) => {
      if (args.scenario === 'list_scenarios') return { success: true, scenarios: Object.keys(scenarios) };
      const run = Object.hasOwn(scenarios, args.scenario) ? scenarios[args.scenario] : undefined;
      if (run === undefined) return fail('UNKNOWN_SCENARIO', `scenario ${String(args.scenario)} is not implemented by this SI agent`);
      if (args.account?.sandbox !== true) return fail('FORBIDDEN', 'the controller acts on sandbox accounts only');
      return run(args.params ?? {});
    },
  };
}

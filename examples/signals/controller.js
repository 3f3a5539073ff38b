// @ts-check
import { Rejection } from '../common/errors.js';

/**
 * comply_test_controller for the signals agent's sandbox (docs/building/by-layer/L3/comply-test-controller.mdx):
 * `force_get_signals_arm` makes the calling account's next brief-mode get_signals answer `submitted` under a task id
 * the runner chose (a real task the runtime keeps: get_task_status and list_tasks find it), and
 * `force_task_completion` ends such a task with the result given, which its get_task_status and its webhook then
 * carry. Answers are the controller's own shapes (`success`, `forced`, `previous_state`/`current_state`, or `error`
 * from its vocabulary), never AdCP task errors. It exists only where the profile's surface is `sandbox`.
 *
 * @typedef {{ arm: string, task_id?: string, message?: string }} Directive
 */

/** Task statuses a task never leaves (L3/async-operations.mdx). */
const TERMINAL_TASK = new Set(['completed', 'failed', 'canceled', 'rejected']);

/**
 * @param {{ accounts: ReturnType<typeof import('../common/accounts.js').createAccounts<import('./activation.js').SignalsSpace>>,
 *   directives: Map<string, Directive>, tasks: { task(taskId: string): { status(): Promise<string | undefined>, complete(result: Record<string, unknown>): Promise<boolean> } } }} deps
 */
export function createController({ accounts, directives, tasks }) {
  const fail = (/** @type {string} */ error, /** @type {string} */ detail, /** @type {string | null} */ currentState = null) => ({ status: 'failed', success: false, error, error_detail: detail, current_state: currentState });

  /** @type {Record<string, (params: Record<string, any>, account: import('./activation.js').Account, principal: string | undefined) => Record<string, unknown> | Promise<Record<string, unknown>>>} */
  const scenarios = {
    force_get_signals_arm: (p, account) => {
      // Discovery answers submitted for a brief; there is no other arm a signals agent can be told to take.
      if (p.arm !== 'submitted') return fail('INVALID_PARAMS', `force_get_signals_arm supports the submitted arm, not ${String(p.arm)}`);
      if (typeof p.task_id !== 'string' || p.task_id === '') return fail('INVALID_PARAMS', 'force_get_signals_arm needs params.task_id');
      directives.set(`get_signals\0${account.account_id}`, { arm: p.arm, task_id: p.task_id, ...(p.message !== undefined ? { message: p.message } : {}) });
      return { success: true, forced: { arm: p.arm, task_id: p.task_id }, message: 'the next brief-mode get_signals from this account answers submitted' };
    },
    force_task_completion: async (p) => {
      if (typeof p.task_id !== 'string') return fail('INVALID_PARAMS', 'force_task_completion needs params.task_id');
      if (p.result === null || typeof p.result !== 'object' || Array.isArray(p.result)) return fail('INVALID_PARAMS', 'force_task_completion needs params.result, the task\'s terminal answer');
      const task = tasks.task(p.task_id);
      const from = await task.status();
      if (from === undefined) return fail('NOT_FOUND', `no task ${p.task_id}`);
      if (TERMINAL_TASK.has(from) || !(await task.complete(p.result))) return fail('INVALID_TRANSITION', `a ${from} task cannot be completed`, from);
      return { success: true, previous_state: from, current_state: 'completed', message: `task ${p.task_id}: ${from} → completed` };
    },
  };
  const listed = Object.keys(scenarios).sort();

  return {
    handler: (/** @type {Record<string, any>} */ args, /** @type {{ principal?: string } | undefined} */ ctx) => {
      if (args.scenario === 'list_scenarios') return { success: true, scenarios: listed };
      const run = Object.hasOwn(scenarios, args.scenario) ? scenarios[args.scenario] : undefined;
      if (run === undefined) return fail('UNKNOWN_SCENARIO', `scenario ${String(args.scenario)} is not implemented by this signals agent`);
      let account;
      try {
        account = accounts.resolve(args.account, ctx?.principal);
      } catch (e) {
        if (!(e instanceof Rejection)) throw e;
        return fail('NOT_FOUND', e.message);
      }
      // Sandbox gate, per request: the controller acts on sandbox accounts only.
      if (!account.sandbox && args.account?.sandbox !== true) return fail('FORBIDDEN', 'the controller acts on sandbox accounts only');
      return run(args.params ?? {}, account, ctx?.principal);
    },
  };
}

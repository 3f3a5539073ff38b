import type { CallToolResult } from '../api/agent-types.js';
import type { Issue } from '../artifacts/contract.js';
import { contextEcho, invalidRequest } from '../wire/errors.js';

/**
 * The compliance test controller answers in its own vocabulary, not with AdCP task errors
 * (compliance/comply-test-controller-response.json, the ControllerError arm: `success: false` and an `error` from
 * the controller's enum). docs/building/by-layer/L3/comply-test-controller.mdx, "Error codes": controllers MUST use
 * those codes so the storyboard runner can assert on them — INVALID_PARAMS for "missing or malformed params" — and
 * the vocabulary "is distinct from the canonical seller-response error-code.json enum". So a controller request its
 * schema refuses is answered INVALID_PARAMS in that arm, with the issues an INVALID_REQUEST would carry (the arm is
 * open), and the caller's context echoed. Like the controller's other answers it is the task's own result, not a
 * transport error: the `status` says the task failed.
 */
export const COMPLIANCE_CONTROLLER = 'comply_test_controller';

/** `echo` is what errorResult takes: the call's context snapshot (or its arguments). */
export function controllerRejection(issues: readonly Issue[], found: number, echo: unknown, release: string): CallToolResult {
  const { message, issues: all } = invalidRequest(COMPLIANCE_CONTROLLER, issues, found);
  const context = contextEcho(echo);
  const body: Record<string, unknown> = {
    success: false,
    error: 'INVALID_PARAMS',
    error_detail: message,
    issues: all,
    ...(context.present ? { context: context.value } : {}),
    status: 'failed',
    adcp_version: release,
  };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

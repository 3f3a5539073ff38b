import { AdcpError, agentFault, type AdcpErrorBody } from './errors.js';
import type { ValidateFn } from '../artifacts/contract.js';
import { jsonCopy } from './json-copy.js';
import type { RuntimeLog } from '../ops/log.js';
import { faultText } from './report.js';

/**
 * A handler's answer made into the AdCP response the runtime sends: the envelope it owns (`status`,
 * `adcp_version`, `context`), and the error body of whatever a handler or authorize hook threw.
 */

/**
 * The response as it goes on the wire: the handler's body with the envelope the runtime owns. `adcp_version` is the
 * release that answered and `context` the caller's (a handler's own values are dropped); `status` defaults to
 * `completed` (unless `defaultStatus` is false: the release's status is the response's own state). A handler may state another AdCP task status (an async `submitted`, a `rejected` arm), or a status its
 * release's response schema itself defines (3.0's create_media_buy carries the media buy's status there); any other
 * value is the agent's bug, answered as one instead of being sent.
 */
export function responseEnvelope(
  result: Record<string, unknown>,
  sentContext: unknown,
  release: string,
  schemaDefinesStatus: (body: Record<string, unknown>) => boolean,
  defaultStatus = true,
): { ok: true; body: Record<string, unknown> } | { ok: false; message: string } {
  const { status, adcp_version: _version, adcp_major_version: _major, context: _context, ...rest } = result;
  // Where the release's `status` is the response's own state (3.0's create_media_buy: the media buy's), a missing one
  // stays missing: `completed` there would say the media buy has finished running.
  const body: Record<string, unknown> = { ...rest, ...(status !== undefined || defaultStatus ? { status: status ?? 'completed' } : {}), adcp_version: release };
  if (sentContext !== undefined) body.context = sentContext;
  if (status !== undefined && !(typeof status === 'string' && TASK_STATUSES.has(status)) && !schemaDefinesStatus(body)) {
    return { ok: false, message: `the handler set status ${jsonText(status)}, which is neither an AdCP task status (${[...TASK_STATUSES].join(', ')}) nor one the AdCP ${release} response defines` };
  }
  return { ok: true, body };
}

/**
 * Whether the response schema itself defines the body's `status`: the body validates, and the same body with a
 * status no schema can define does not. (Only asked for a status outside the task statuses, so production pays for
 * the response validator only when a handler answers that way.)
 */
export function statusDefined(validate: ValidateFn, body: Record<string, unknown>): boolean {
  return validate(body).ok && !validate({ ...body, status: '\u0000' }).ok;
}

/** AdCP's task statuses (enums/task-status.json, the same from 3.0 to 3.2) a response body may carry. */
const TASK_STATUSES: ReadonlySet<string> = new Set(['submitted', 'working', 'input-required', 'completed', 'canceled', 'failed', 'rejected', 'auth-required', 'unknown']);

function jsonText(v: unknown): string {
  try {
    return (JSON.stringify(v) ?? String(v)).slice(0, 64);
  } catch {
    return String(v);
  }
}

export function isAdcpErrorBody(v: unknown): v is AdcpErrorBody {
  return v !== null && typeof v === 'object' && typeof (v as Record<string, unknown>).code === 'string' && typeof (v as Record<string, unknown>).message === 'string';
}

/** The AdcpErrorBody of a value a handler or authorize hook threw; anything unreadable is the agent's failure. */
export function thrownBody(tool: string, e: unknown, log: RuntimeLog, fields?: Record<string, unknown>): AdcpErrorBody {
  try {
    if (e instanceof AdcpError) {
      const body = jsonCopy(e.toBody());
      if (body.ok && isAdcpErrorBody(body.value)) return body.value;
    }
  } catch {
    /* fall through */
  }
  return handlerFailed(tool, e, log, fields);
}

/** A handler that threw: the buyer learns which tool failed, never the error itself (a stack, a path, a secret). */
function handlerFailed(tool: string, e: unknown, log: RuntimeLog, fields?: Record<string, unknown>): AdcpErrorBody {
  log.error('handler_failed', `adcp-codegen: handler for ${tool} failed: ${faultText(e)}`, { tool, ...fields });
  return agentFault(tool, 'the handler failed with an unexpected error (details are in the agent\'s log)');
}

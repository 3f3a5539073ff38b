import { boundedIssue, clip, MAX_REJECTION_ISSUES } from './bounds.js';
import type { Issue } from '../artifacts/contract.js';
import type { VersionUnsupportedDetails } from './release-select.js';
import { unescapeToken } from './pointer.js';

/** The `adcp_error` object of a rejection (AdCP core/error.json, plus the 3.1+ `issues`). */
export interface AdcpErrorBody {
  code: string;
  message: string;
  recovery?: 'transient' | 'correctable' | 'terminal';
  /** JSONPath-lite of issues[0].pointer, as core/error.json requires for pre-3.1 readers (`packages[0].pacing`). */
  field?: string;
  issues?: Issue[];
  suggestion?: string;
  /** Seconds to wait before retrying (RATE_LIMITED, IDEMPOTENCY_IN_FLIGHT, SERVICE_UNAVAILABLE). */
  retry_after?: number;
  details?: Record<string, unknown>;
}

/** A rejection as it goes on the wire: the error, the caller's context echoed, and the release that answered. */
export interface AdcpErrorResponse {
  adcp_error: AdcpErrorBody;
  /** The same error in the payload's errors[] (a fatal failure populates both layers), its issue lists in adcp_error. */
  errors: [AdcpErrorBody];
  context?: unknown;
  status: 'failed';
  adcp_version: string;
}

/**
 * Thrown (or returned) by handlers to answer with an AdCP error instead of a result. The runtime echoes the
 * caller's `context` and labels the release, exactly as for its own rejections.
 */
export class AdcpError extends Error {
  readonly code: string;
  readonly recovery?: AdcpErrorBody['recovery'];
  readonly field?: string;
  readonly details?: Record<string, unknown>;
  readonly suggestion?: string;

  constructor(code: string, message: string, extra: Omit<Partial<AdcpErrorBody>, 'code' | 'message'> = {}) {
    super(message);
    this.name = 'AdcpError';
    this.code = code;
    this.recovery = extra.recovery;
    this.field = extra.field;
    this.details = extra.details;
    this.suggestion = extra.suggestion;
  }

  toBody(): AdcpErrorBody {
    return {
      code: this.code,
      message: this.message,
      ...(this.recovery !== undefined ? { recovery: this.recovery } : {}),
      ...(this.field !== undefined ? { field: this.field } : {}),
      ...(this.suggestion !== undefined ? { suggestion: this.suggestion } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
    };
  }
}

/**
 * A call to a tool the agent does not serve (unknown, or not advertised). AdCP defines no code of its own for it:
 * UNSUPPORTED_FEATURE ("a requested feature … is not supported by this seller", correctable by re-reading the
 * capabilities) is the one its error-code enum offers.
 */
export function unsupportedTool(tool: string): AdcpErrorBody {
  // The caller's name for it, clipped: an error never amplifies what was sent.
  const name = clip(tool);
  return {
    code: 'UNSUPPORTED_FEATURE',
    message: `Tool ${name} is not served by this agent; tools/list names the tools it serves`,
    recovery: 'correctable',
    details: { tool: name },
  };
}

/** RFC 6901 pointer → JSONPath-lite (`/packages/0/targeting` → `packages[0].targeting`). */
export function jsonPathLite(pointer: string): string {
  if (pointer === '') return '';
  let out = '';
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescapeToken(raw);
    if (/^(0|[1-9]\d*)$/.test(token)) out += `[${token}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(token)) out += out === '' ? token : `.${token}`;
    else out += `[${JSON.stringify(token)}]`;
  }
  return out;
}

/** Issues spelled out in an INVALID_REQUEST message. */
const MESSAGE_ISSUES = 3;

/**
 * The INVALID_REQUEST body for a call's issues, bounded whatever the payload (bounds.ts): at most
 * MAX_REJECTION_ISSUES issues, each with payload text clipped, and `details.issues_omitted` counting the rest.
 * `found` is how many issues the producers found in all, when they stopped building them at the cap (drift.ts).
 * `details.issues` mirrors the same bounded list for pre-3.1 readers (core/error.json allows it).
 */
export function invalidRequest(tool: string, issues: readonly Issue[], found: number = issues.length): AdcpErrorBody {
  const kept = issues.slice(0, MAX_REJECTION_ISSUES).map(boundedIssue);
  const omitted = Math.max(found, issues.length) - kept.length;
  const first = kept[0];
  // The first few issues in the message itself; up to the cap in issues[].
  const listed = kept.slice(0, MESSAGE_ISSUES).map((i) => `${i.pointer === '' ? 'the request' : i.pointer} ${i.message}`);
  const more = kept.length + omitted - listed.length;
  const rest = more <= 0 ? '' : omitted > 0 ? ` (and ${more} more issues; issues lists the first ${kept.length})` : ` (and ${more} more issue${more > 1 ? 's' : ''} in issues)`;
  return {
    code: 'INVALID_REQUEST',
    message: first === undefined ? `${tool}: invalid request` : `${tool}: ${listed.join('; ')}${rest}`,
    recovery: 'correctable',
    // error-handling.mdx: `field` is issues[0].pointer in JSONPath-lite (a missing property's pointer is its own).
    ...(first !== undefined ? { field: jsonPathLite(first.pointer) } : {}),
    issues: kept,
    details: { tool, issues: kept, ...(omitted > 0 ? { issues_omitted: omitted } : {}) },
  };
}

/**
 * The agent itself is at fault (a handler threw, or answered with a body its release does not admit): a bug only the
 * agent's operator can fix, so the buyer is told not to retry. AdCP has no "internal error" code; CONFIGURATION_ERROR
 * is its code for "the seller's deployment cannot handle the request — the buyer cannot fix it, retrying will not
 * help, report to the seller's operator" (enums/error-code.json, 3.2; codes are an open vocabulary, so earlier
 * releases' buyers classify it by `recovery: terminal`). The message never carries a stack trace, a path or the
 * handler's own error text: those go to the agent's log.
 */
export function agentFault(tool: string, problem: string, details?: Record<string, unknown>): AdcpErrorBody {
  return {
    code: 'CONFIGURATION_ERROR',
    message: `${tool}: ${problem}`,
    recovery: 'terminal',
    suggestion: "report this to the agent's operator; retrying will not help",
    ...(details !== undefined ? { details } : {}),
  };
}

/** VERSION_UNSUPPORTED with `error-details/version-unsupported.json` as its details, so a buyer can re-pin at once. */
export function versionUnsupported(message: string, details: VersionUnsupportedDetails): AdcpErrorBody {
  return {
    code: 'VERSION_UNSUPPORTED',
    message,
    recovery: 'correctable',
    suggestion: `pin adcp_version to one of ${details.supported_versions.join(', ')}`,
    details: { ...details },
  };
}

/** Serialized size above which a caller's `context` is not echoed on rejections: an error must not amplify. */
export const CONTEXT_ECHO_LIMIT = 8 * 1024;

/**
 * The caller's `context` to echo: the value itself when it is small enough, else nothing. The runtime passes the
 * parse-once copy (plain JSON); anything else that cannot be read (a throwing getter, a proxy, a cycle) is not
 * echoed, and this never throws.
 */
export function contextEcho(args: unknown): { present: boolean; value?: unknown } {
  try {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) return { present: false };
    if (!Object.prototype.hasOwnProperty.call(args, 'context')) return { present: false };
    const value = (args as Record<string, unknown>).context;
    const size = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
    return size <= CONTEXT_ECHO_LIMIT ? { present: true, value } : { present: false };
  } catch {
    return { present: false };
  }
}

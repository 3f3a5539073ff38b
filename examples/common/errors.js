// @ts-check
/**
 * The seller's business rejections. Logic anywhere in the seller throws a Rejection; the tool boundary (`answering`)
 * turns it into the `{ adcp_error }` answer the generated runtime sends with the caller's context echoed. Returning
 * the error body, rather than the generated set's AdcpError class, keeps the business logic independent of which
 * generated set serves it (the examples take theirs from ADCP_GENERATED).
 */

/**
 * @typedef {{ field?: string, recovery?: 'transient' | 'correctable' | 'terminal', details?: Record<string, unknown>, retryAfter?: number, suggestion?: string }} RejectionExtra
 */

export class Rejection extends Error {
  /**
   * @param {string} code an AdCP error code (enums/error-code.json)
   * @param {string} message for humans; never echoes a secret or another account's data
   * @param {RejectionExtra} [extra]
   */
  constructor(code, message, extra = {}) {
    super(message);
    this.name = 'Rejection';
    this.code = code;
    this.extra = extra;
  }

  /** The AdCP error object (core/error.json). */
  body() {
    const { field, recovery = 'correctable', details, retryAfter, suggestion } = this.extra;
    return {
      code: this.code,
      message: this.message,
      recovery,
      ...(field !== undefined ? { field } : {}),
      ...(suggestion !== undefined ? { suggestion } : {}),
      ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
      ...(details !== undefined ? { details } : {}),
    };
  }
}

/**
 * Throws a Rejection (for use in expressions: `x ?? reject(...)`).
 * @param {string} code
 * @param {string} message
 * @param {RejectionExtra} [extra]
 * @returns {never}
 */
export function reject(code, message, extra) {
  throw new Rejection(code, message, extra);
}

/**
 * @template A, C
 * @param {(args: A, ctx: C) => unknown} fn
 * @returns {(args: A, ctx: C) => Promise<unknown>} the handler, answering a thrown Rejection as `{ adcp_error }`
 */
export function answering(fn) {
  return async (args, ctx) => {
    try {
      return await fn(args, ctx);
    } catch (e) {
      if (e instanceof Rejection) return { adcp_error: e.body() };
      throw e;
    }
  };
}

/**
 * Whether a handler's answer is a failed task. The seller answers every failure as `{ adcp_error }` (never a task's
 * `errors[]` arm), so that is the one shape to look for; failures are never cached for replay.
 */
export function isFailure(/** @type {unknown} */ body) {
  return body === null || typeof body !== 'object' || /** @type {Record<string, unknown>} */ (body).adcp_error !== undefined;
}

import type { AdcpErrorBody } from './errors.js';

/**
 * The replay contract's rejections (security.mdx, Idempotency). None names a field or carries the cached answer, the
 * first payload or anything derived from them: a key is a capability token, and an error must not make it a read
 * oracle ("IDEMPOTENCY_CONFLICT response shape").
 */

export function idempotencyConflict(): AdcpErrorBody {
  return {
    code: 'IDEMPOTENCY_CONFLICT',
    message:
      'idempotency_key was used with a different payload within the replay window. Either resend the exact original payload (to return the cached response) or generate a fresh UUID v4 to submit this new payload.',
    recovery: 'correctable',
  };
}

export function idempotencyExpired(): AdcpErrorBody {
  return {
    code: 'IDEMPOTENCY_EXPIRED',
    message: 'idempotency_key is past its replay window; read the resource to learn its current state, then use a fresh key for a new request.',
    recovery: 'correctable',
  };
}

export function idempotencyInFlight(retryAfter: number): AdcpErrorBody {
  return {
    code: 'IDEMPOTENCY_IN_FLIGHT',
    message: `A request with this idempotency_key is still executing; retry with the same key and payload after ${retryAfter} s.`,
    recovery: 'transient',
    retry_after: retryAfter,
  };
}

export function rateLimited(retryAfter: number): AdcpErrorBody {
  return {
    code: 'RATE_LIMITED',
    message: `Too many new idempotency keys for this account; retry after ${retryAfter} s.`,
    recovery: 'transient',
    retry_after: retryAfter,
  };
}

/** The store, or the handler, could not answer in time: nothing was recorded, and a retry with the same key is safe. */
export function serviceUnavailable(message: string, retryAfter = 1): AdcpErrorBody {
  return { code: 'SERVICE_UNAVAILABLE', message, recovery: 'transient', retry_after: retryAfter };
}

// @ts-check
import { reject } from '../common/errors.js';

/**
 * The seller's commercial rules for a package: flight dates, budget against the pricing option's minimum, and
 * measurement terms. These are business rules beyond the schema (the generated runtime has already validated the
 * request's shape); each rejection names the field it is about.
 */

/**
 * Measurement terms this seller accepts: billing on any vendor's count, reconciled in a window its reporting offers,
 * with a variance tolerance it can live with (a zero-variance guarantee on a 28-day window is not one).
 */
export const MEASUREMENT_POLICY = {
  windows: ['live', 'c3', 'c7', 'final', 'post_ivt', 'post_sivt'],
  minVariancePercent: 5,
};

/** The product's default terms (what a buyer can accept unchanged). */
export const DEFAULT_MEASUREMENT_TERMS = {
  billing_measurement: { vendor: { domain: 'news.example' }, max_variance_percent: 10, measurement_window: 'post_ivt' },
  makegood_policy: { available_remedies: ['additional_delivery', 'credit'] },
};

/** How far in the past a flight may start and still be booked (clock skew, a buyer's slow round trip). */
const PAST_START_TOLERANCE_MS = 5 * 60_000;

/**
 * Reads and checks a flight: `start_time` "asap" or a date-time not in the past, an `end_time` after it.
 * @param {{ start_time?: unknown, end_time?: unknown }} args
 * @param {number} nowMs
 * @param {string} [prefix] JSONPath-lite prefix of the fields (a package's own flight)
 * @returns {{ start: number, end: number, asap: boolean }}
 */
export function checkFlight(args, nowMs, prefix = '') {
  const asap = args.start_time === 'asap' || args.start_time === undefined;
  const start = asap ? nowMs : Date.parse(String(args.start_time));
  const end = Date.parse(String(args.end_time));
  if (Number.isNaN(start)) reject('INVALID_REQUEST', 'start_time is not a date-time', { field: `${prefix}start_time` });
  if (Number.isNaN(end)) reject('INVALID_REQUEST', 'end_time is not a date-time', { field: `${prefix}end_time` });
  if (end <= start) reject('INVALID_REQUEST', 'end_time must be after start_time', { field: `${prefix}end_time` });
  if (!asap && start < nowMs - PAST_START_TOLERANCE_MS) reject('INVALID_REQUEST', 'start_time is in the past; use "asap" or a future time', { field: `${prefix}start_time` });
  if (end <= nowMs) reject('INVALID_REQUEST', 'end_time is in the past', { field: `${prefix}end_time` });
  return { start, end, asap };
}

/**
 * A package's budget against its pricing option.
 * @param {number} budget
 * @param {import('./catalog.js').PricingOption} option
 * @param {string} field
 */
export function checkBudget(budget, option, field) {
  if (!(budget > 0)) reject('INVALID_REQUEST', 'budget must be greater than zero', { field });
  const min = typeof option.min_spend_per_package === 'number' ? option.min_spend_per_package : undefined;
  if (min !== undefined && budget < min) {
    reject('BUDGET_TOO_LOW', `budget is below the minimum spend of ${min} ${option.currency} for pricing option ${option.pricing_option_id}`, { field, details: { min_spend: min } });
  }
}

/**
 * Buyer-proposed measurement terms the seller can honour, or TERMS_REJECTED naming the first it cannot.
 * @param {Record<string, any> | undefined} terms core/measurement-terms.json
 * @param {string} field
 */
export function checkMeasurementTerms(terms, field) {
  const billing = terms?.billing_measurement;
  if (billing === undefined) return;
  if (billing.measurement_window !== undefined && !MEASUREMENT_POLICY.windows.includes(billing.measurement_window)) {
    reject('TERMS_REJECTED', `measurement window ${billing.measurement_window} is not offered; offered: ${MEASUREMENT_POLICY.windows.join(', ')}`, { field: `${field}.billing_measurement.measurement_window` });
  }
  if (typeof billing.max_variance_percent === 'number' && billing.max_variance_percent < MEASUREMENT_POLICY.minVariancePercent) {
    reject('TERMS_REJECTED', `a variance tolerance below ${MEASUREMENT_POLICY.minVariancePercent}% is not accepted`, { field: `${field}.billing_measurement.max_variance_percent` });
  }
}

import { randomUUID } from 'node:crypto';
/**
 * One valid AdCP create_media_buy request (valid in 3.0.6 and 3.2), shared by tests and benches so every figure
 * and assertion speaks about the same payload. Returns a fresh object each time.
 */
export function createMediaBuyRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    // A fresh key per request, as AdCP's buyer obligations require: the runtime keeps the replay contract, so a key
    // reused with another payload is IDEMPOTENCY_CONFLICT.
    idempotency_key: randomUUID(),
    account: { account_id: 'acc_1' },
    brand: { domain: 'acme.example' },
    start_time: 'asap',
    end_time: '2027-01-01T00:00:00Z',
    packages: [{ product_id: 'homepage_takeover', pricing_option_id: 'cpm_fixed', budget: 1000 }],
    ...overrides,
  };
}

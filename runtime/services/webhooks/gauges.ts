import { INSTRUMENTATION, otel } from '../../ops/otel.js';
import type { Store } from '../../stores/open.js';
import { backlog } from './records.js';

/**
 * The outbox's backlog as OpenTelemetry gauges, when a meter provider is registered as the outbox starts:
 * `adcp.webhook.outbox.depth` (events neither delivered nor given up on) and `adcp.webhook.outbox.oldest_age`
 * (seconds since the oldest of them was enqueued; 0 when none), by agent. One query per collection for both, at the
 * meter reader's interval, never per call; a store that does not answer skips that collection.
 */
export function outboxGauges(store: Store, profile: string): void {
  const o = otel();
  if (o?.metering !== true) return;
  const meter = o.api.metrics.getMeterProvider().getMeter(INSTRUMENTATION);
  const depth = meter.createObservableGauge('adcp.webhook.outbox.depth', { description: 'Webhook events waiting in the outbox (pending delivery or retry)', unit: '{event}' });
  const oldest = meter.createObservableGauge('adcp.webhook.outbox.oldest_age', { description: 'Age of the oldest webhook event waiting in the outbox', unit: 's' });
  const attributes = { 'adcp.agent': profile };
  meter.addBatchObservableCallback(async (result) => {
    const now = await backlog(await store.open()).catch(() => undefined);
    if (now === undefined) return;
    result.observe(depth, now.depth, attributes);
    result.observe(oldest, now.oldest === undefined ? 0 : Math.max(0, (Date.now() - now.oldest) / 1000), attributes);
  }, [depth, oldest]);
}

import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { AlwaysOnSampler, BatchSpanProcessor, NodeTracerProvider, ParentBasedSampler, TraceIdRatioBasedSampler, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import pino from 'pino';
import { pinoLogger, type PinoModule } from '../runtime/ops/log.js';
import { setSpend } from './http-bodies.js';

/**
 * bench/observe's observability, in the server child (`ADCP_BENCH_OBSERVE=1`): what an operator runs, switched on
 * and off between rounds in one process, so that each configuration is compared with "off" in the same process
 * (two processes of one configuration differ by several per cent on their own).
 *
 * - logging: the runtime's default logger itself (log.ts's pinoLogger: its destination, sonic-boom on fd 2,
 *   asynchronous and buffered; the same base fields), handed to the agent as its logger so that its level can be
 *   switched: `info` (a line per call) or `silent`;
 * - traces: what `NodeTracerProvider.register()` registers — the tracer provider, the AsyncLocalStorage context
 *   manager (a handler's spans nest under the stage that runs it) and the W3C propagators — with a ParentBased
 *   (TraceIdRatio) sampler at the round's ratio, the SDK's BatchSpanProcessor at its default sizes (512 spans an
 *   export, 2,048 queued, every 5 s) and the OTLP/HTTP protobuf exporter: every sampled span is serialised and
 *   POSTed to OTEL_EXPORTER_OTLP_ENDPOINT, the bench's collector stand-in;
 * - metrics: a meter provider with a periodic reader (every 10 s: six times as often as the SDK's default) and the
 *   OTLP/HTTP protobuf metric exporter.
 *
 * Off is off: the API's globals unregistered (the context manager disabled with them, so no async hook runs), the
 * log silent. At the end of a round, `settle` exports the spans the round made and lets its log lines be written, so
 * each round pays for its own. Nothing that flatters (an exporter dropping what it is given) and nothing that penalises (a
 * span processor exporting each span as it ends, which no deployment runs).
 */
export interface Observing {
  readonly logging: boolean;
  readonly metrics: boolean;
  /** The head-sampling ratio of the traces, when traced. */
  readonly traces?: number;
  /**
   * Untraced, but the context manager registered and a context entered once, as any instrumentation does (an HTTP
   * server's enters one per request): on Node 20 AsyncLocalStorage then runs a hook for every promise and async
   * resource of the process, whatever made it. What the operator's registration costs, apart from the runtime's spans.
   */
  readonly contexts?: boolean;
  /** The calibration: CPU (µs) each call's handler spends on purpose, nothing observed (http-bodies.ts, setSpend). */
  readonly spendUs?: number;
  /** The calibration's spend makes garbage (JSON strings) instead of waiting on the clock. */
  readonly allocating?: boolean;
}

export interface Observer {
  /** The agent's logger (AgentOptions.logger). */
  readonly logger: pino.Logger;
  set(observing: Observing): void;
  /** Exports what the span processor holds, and lets the log's last writes land. */
  settle(): Promise<void>;
  /** Spans handed to the exporters so far (a span the batch queue dropped is not: compare with the calls made). */
  spans(): number;
}

export function observer(profile: string): Observer {
  // The runtime's own default logger (its destination, its buffering, its base fields), at a level switched per round.
  const logger = pinoLogger(pino as unknown as PinoModule, 'silent', profile) as pino.Logger;
  let spans = 0;
  const tracers = new Map<number, NodeTracerProvider>();
  const tracerAt = (ratio: number): NodeTracerProvider => {
    let provider = tracers.get(ratio);
    if (provider === undefined) {
      const otlp = new OTLPTraceExporter();
      const counted: SpanExporter = {
        export: (batch, done) => {
          spans += batch.length;
          otlp.export(batch, done);
        },
        shutdown: () => otlp.shutdown(),
        forceFlush: () => otlp.forceFlush(),
      };
      const sampler = new ParentBasedSampler({ root: ratio === 1 ? new AlwaysOnSampler() : new TraceIdRatioBasedSampler(ratio) });
      tracers.set(ratio, (provider = new NodeTracerProvider({ sampler, spanProcessors: [new BatchSpanProcessor(counted)] })));
    }
    return provider;
  };
  const meters = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter(), exportIntervalMillis: 10_000 })] });
  const contexts = new AsyncLocalStorageContextManager();
  const propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
  let traced: NodeTracerProvider | undefined;
  return {
    logger,
    set(observing) {
      trace.disable();
      context.disable();
      propagation.disable();
      metrics.disable();
      traced = observing.traces === undefined ? undefined : tracerAt(observing.traces);
      if (traced !== undefined) {
        trace.setGlobalTracerProvider(traced);
        context.setGlobalContextManager(contexts.enable());
        propagation.setGlobalPropagator(propagator);
      }
      if (observing.contexts === true && traced === undefined) {
        context.setGlobalContextManager(contexts.enable());
        context.with(context.active(), () => undefined);
      }
      if (observing.metrics) metrics.setGlobalMeterProvider(meters);
      logger.level = observing.logging ? 'info' : 'silent';
      setSpend(observing.spendUs ?? 0, observing.allocating === true);
    },
    async settle() {
      await traced?.forceFlush();
      // The log's buffered lines are written now (sonic-boom's flush; pino's own would fsync too, which the runtime
      // never does), and land.
      (logger as unknown as Record<symbol, { flush(): void }>)[pino.symbols.streamSym]!.flush();
      await new Promise((done) => setTimeout(done, 20));
    },
    spans: () => spans,
  };
}

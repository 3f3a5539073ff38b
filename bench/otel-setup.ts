import { metrics, trace } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { MeterProvider, PeriodicExportingMetricReader, AggregationTemporality, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';

/**
 * bench/observe's tracing set-up, in the server child: the OTel SDK registered as an agent's instrumentation would
 * (a tracer provider with the SDK's batching processor, a meter provider with a periodic reader), its exporters
 * counting and dropping what they are given — the SDK's cost per call is measured, not a collector's network.
 */
export function registerOtel(): void {
  const spans: SpanExporter = {
    export: (batch, done) => done({ code: ExportResultCode.SUCCESS }),
    shutdown: async () => undefined,
  };
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spans)] }));
  const metricsOut: PushMetricExporter = {
    export: (_batch, done) => done({ code: ExportResultCode.SUCCESS }),
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
    selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
  };
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: metricsOut, exportIntervalMillis: 10_000 })] }));
}

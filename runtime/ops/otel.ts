import type { CallTrace } from '../api/ops-types.js';
import { agentRequire } from '../artifacts/agent-require.js';

/**
 * OpenTelemetry through its API, `@opentelemetry/api`, an optional package resolved beside the set as @adcp/sdk
 * resolves it. Nothing is loaded, and a call costs one property read, until the process registers a tracer or meter
 * provider (its OTel SDK's start: the API keeps them on one global), because until then every span and instrument
 * the API hands out is a no-op. Registered with another copy of the API of the same major, the providers are shared
 * (the global is the API's, not a copy's).
 */

/** The API's global registry (its `api/global-utils`), for major version 1. */
const REGISTRY = Symbol.for('opentelemetry.js.api.1');

export interface Attributes {
  [key: string]: string | number | boolean | undefined;
}
export interface OtelContext {
  readonly __otelContext?: never;
}
export interface Span {
  setAttributes(attributes: Attributes): void;
  setStatus(status: { code: number; message?: string }): void;
  recordException(e: unknown): void;
  end(): void;
  isRecording(): boolean;
  spanContext(): { traceId: string; spanId: string };
}
export interface Tracer {
  startSpan(name: string, options: { kind?: number; attributes?: Attributes }, context: OtelContext): Span;
}
interface SpanContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote: boolean;
  traceState?: unknown;
}
export interface Counter {
  add(value: number, attributes?: Attributes): void;
}
export interface Histogram {
  record(value: number, attributes?: Attributes): void;
}
export interface ObservableResult {
  observe(value: number, attributes?: Attributes): void;
}
export interface Meter {
  createCounter(name: string, options: { description: string; unit: string }): Counter;
  createHistogram(name: string, options: { description: string; unit: string; advice?: { explicitBucketBoundaries: number[] } }): Histogram;
  createObservableGauge(name: string, options: { description: string; unit: string }): Observable;
  createObservableCounter(name: string, options: { description: string; unit: string }): Observable;
  addBatchObservableCallback(callback: (result: { observe(observable: Observable, value: number, attributes?: Attributes): void }) => void | Promise<void>, observables: Observable[]): void;
}
export interface Observable {
  addCallback(cb: (result: ObservableResult) => void | Promise<void>): void;
}
export interface OtelApi {
  trace: {
    getTracer(name: string, version?: string): Tracer;
    getTracerProvider(): object;
    getSpan(context: OtelContext): Span | undefined;
    setSpan(context: OtelContext, span: Span): OtelContext;
    setSpanContext(context: OtelContext, spanContext: SpanContext): OtelContext;
  };
  context: { active(): OtelContext; with<A extends unknown[], R>(context: OtelContext, fn: (...args: A) => R, thisArg?: unknown, ...args: A): R };
  propagation: { fields(): string[]; extract(context: OtelContext, carrier: Record<string, string>): OtelContext };
  metrics: { getMeterProvider(): { getMeter(name: string, version?: string): Meter } };
  createTraceState(raw?: string): unknown;
  SpanKind: { SERVER: number; INTERNAL: number };
  SpanStatusCode: { ERROR: number };
}

interface Registry {
  trace?: unknown;
  metrics?: unknown;
  context?: unknown;
}

/** The name the runtime's tracer and meter carry. */
export const INSTRUMENTATION = 'adcp-codegen';

let api: OtelApi | null | undefined;

/** What is on: spans (a tracer provider is registered), metrics (a meter provider is), the API to make them with. */
export interface Otel {
  readonly api: OtelApi;
  readonly tracing: boolean;
  readonly metering: boolean;
  /** A context manager is registered: a span made active is seen by what runs inside (else activating one is moot). */
  readonly contexts: boolean;
}

/** The last answer of otel(), and the registry's entries it was made from: a call reads, it does not allocate. */
let last: { trace: unknown; metrics: unknown; context: unknown; otel: Otel | undefined } | undefined;

export function otel(): Otel | undefined {
  const registry = (globalThis as { [REGISTRY]?: Registry })[REGISTRY];
  if (registry === undefined) return undefined;
  const { trace, metrics, context } = registry;
  if (last !== undefined && last.trace === trace && last.metrics === metrics && last.context === context) return last.otel;
  const tracing = trace !== undefined;
  const metering = metrics !== undefined;
  if ((tracing || metering) && api === undefined) {
    try {
      // Read once into a plain object: the package's exports are getters, which a call would otherwise pay for each
      // time it reads `trace` or `context`.
      const m = agentRequire()('@opentelemetry/api') as OtelApi;
      api = { trace: m.trace, context: m.context, propagation: m.propagation, metrics: m.metrics, createTraceState: m.createTraceState, SpanKind: m.SpanKind, SpanStatusCode: m.SpanStatusCode };
    } catch {
      api = null;
    }
  }
  const made = (!tracing && !metering) || api === null || api === undefined ? undefined : { api, tracing, metering, contexts: context !== undefined };
  last = { trace, metrics, context, otel: made };
  return made;
}

/**
 * The context a call's span starts in, from the `active` one holding no span (under an HTTP instrumentation's server
 * span, which already continued the caller's trace, that one is the parent): the caller's trace context from its
 * headers — through the registered propagator when there is one, else read as W3C Trace Context says.
 */
export function parentContext(api: OtelApi, active: OtelContext, trace: CallTrace | undefined): OtelContext {
  if (trace?.traceparent === undefined) return active;
  if (api.propagation.fields().length > 0) {
    const carrier: Record<string, string> = { traceparent: trace.traceparent };
    if (trace.tracestate !== undefined) carrier.tracestate = trace.tracestate;
    return api.propagation.extract(active, carrier);
  }
  const parsed = traceparent(trace.traceparent);
  if (parsed === undefined) return active;
  const traceState = trace.tracestate !== undefined && trace.tracestate.length <= 512 ? api.createTraceState(trace.tracestate) : undefined;
  return api.trace.setSpanContext(active, { ...parsed, isRemote: true, ...(traceState !== undefined ? { traceState } : {}) });
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * A W3C `traceparent` header (Trace Context, §3.2): version, trace id, parent id, flags; undefined when it is not
 * one (version ff, an all-zero id, version 00 with anything after the flags).
 */
export function traceparent(header: string): { traceId: string; spanId: string; traceFlags: number } | undefined {
  const m = TRACEPARENT.exec(header.trim());
  if (m === null || m[1] === 'ff' || (m[1] === '00' && m[5] !== undefined)) return undefined;
  if (/^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return { traceId: m[2]!, spanId: m[3]!, traceFlags: parseInt(m[4]!, 16) & 1 };
}

/** The tracer, made once per tracer provider (a test or an agent may register another). */
let tracers: WeakMap<object, Tracer> | undefined;
export function tracerOf(api: OtelApi): Tracer {
  const provider = api.trace.getTracerProvider();
  tracers ??= new WeakMap();
  let tracer = tracers.get(provider);
  if (tracer === undefined) tracers.set(provider, (tracer = api.trace.getTracer(INSTRUMENTATION)));
  return tracer;
}

/** A set of metric attributes a call is counted under, made once (call-watch.ts): `index` numbers it in this process. */
export interface MetricSet {
  readonly attributes: Attributes;
  readonly index: number;
}

/** A call's instruments: calls by tool and outcome, their duration; the store's errors. */
export interface CallInstruments {
  /**
   * One call more under `set` on `adcp.calls`. An asynchronous counter: the runtime keeps the totals (a number a set)
   * and the meter reader collects them, which spares each call one synchronous record (the SDK hashes the attributes
   * of each), for the same monotonic sum exported.
   */
  count(set: MetricSet): void;
  readonly duration: Histogram;
  readonly storeErrors: Counter;
}

let instruments: WeakMap<object, CallInstruments> | undefined;

/** The instruments, made once per meter provider (each keeps its own totals). */
export function instrumentsOf(api: OtelApi): CallInstruments {
  const provider = api.metrics.getMeterProvider();
  instruments ??= new WeakMap();
  let made = instruments.get(provider);
  if (made === undefined) {
    const meter = provider.getMeter(INSTRUMENTATION);
    const totals: { readonly set: MetricSet; n: number }[] = [];
    meter.createObservableCounter('adcp.calls', { description: 'AdCP tool calls answered, by tool and outcome', unit: '{call}' }).addCallback((result) => {
      for (const total of totals) if (total !== undefined) result.observe(total.n, total.set.attributes);
    });
    made = {
      count(set) {
        const total = totals[set.index];
        if (total === undefined) totals[set.index] = { set, n: 1 };
        else total.n++;
      },
      duration: meter.createHistogram('adcp.call.duration', {
        description: 'How long an AdCP tool call took, from its arguments to its answer',
        unit: 's',
        advice: { explicitBucketBoundaries: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] },
      }),
      storeErrors: meter.createCounter('adcp.store.errors', { description: "Statements the agent's store failed (it was unreachable or refused)", unit: '{error}' }),
    };
    instruments.set(provider, made);
  }
  return made;
}

import { randomUUID } from 'node:crypto';
import type { CallTrace } from '../api/ops-types.js';
import type { Answer, Call, Stage } from '../call/call.js';
import type { RuntimeLog } from './log.js';
import { instrumentsOf, otel, parentContext, tracerOf, traceparent, type Attributes, type MetricSet, type Otel, type OtelApi, type OtelContext, type Span, type Tracer } from './otel.js';

/**
 * What watches one call, for call/pipeline.ts's runCall: its log line, its spans (one for the call, one per stage
 * that runs, each run in its span's context so a handler's own spans nest under `handle`), its metrics. Generic over
 * the stages: a stage is named by its function. Made only when something watches — the log writes call lines, or a
 * tracer or meter provider is registered — so an agent with neither pays one check a call.
 *
 * What a watched call costs is kept to what it reports (bench/observe measures it): a call its sampler leaves out
 * gets no stage span and no attribute work; the per-tool span name and attributes, and the metric attributes per
 * (tool, outcome, error code), are made once, not per call; one clock reading starts the call, one ends it, for its
 * duration metric and log line alike; the call is counted on a total of the runtime's own (an asynchronous counter,
 * otel.ts), and only its duration is recorded through the SDK; a watch adds no promise to the call (pipeline.ts).
 */
export interface CallWatch {
  /** The stages run in spans of their own (through `stage` and `hooks`): the call's span records. */
  readonly spans: boolean;
  stage(stage: Stage, call: Call): ReturnType<Stage>;
  /** The answer hooks (call.onAnswer: an idempotency claim completed or released), as one more step. */
  hooks(run: () => Promise<Answer>): Promise<Answer>;
  end(answer: Answer): void;
  fail(error: unknown): void;
}

/** Error codes that are the agent's failure, not the caller's: their spans are errors. */
const FAULTS: ReadonlySet<string> = new Set(['CONFIGURATION_ERROR', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']);
/** The longest tool name a log line or span repeats (a caller's unknown tool name is the caller's text). */
const NAME_MAX = 64;

export function watchCall(log: RuntimeLog, call: Call): CallWatch | undefined {
  const logging = log.calls();
  const o = otel();
  if (!logging && o === undefined) return undefined;
  return new Watch(logging ? log : undefined, o, call);
}

class Watch implements CallWatch {
  readonly spans: boolean;
  private readonly started = performance.now();
  /** The call's span, when a tracer provider is registered (recording or not: its trace id names the call). */
  private readonly span: Span | undefined;
  /** When the call's span records: the API, its tracer, and the context its stage spans start in. */
  private readonly traced: { readonly api: OtelApi; readonly tracer: Tracer; readonly inside: OtelContext; readonly contexts: boolean } | undefined;

  constructor(
    private readonly log: RuntimeLog | undefined,
    private readonly o: Otel | undefined,
    private readonly call: Call,
  ) {
    const trace = call.ctx.trace as CallTrace | undefined;
    if (o?.tracing === true) {
      const { api } = o;
      const active = api.context.active();
      // Under an active span (an HTTP instrumentation's server span) the call's is INTERNAL; else it is where the call
      // arrives: SERVER, continuing the caller's trace context.
      const under = api.trace.getSpan(active) !== undefined;
      const parent = under ? active : parentContext(api, active, trace);
      const tracer = tracerOf(api);
      const named = spanOf(call);
      const span = tracer.startSpan(named.name, { kind: under ? api.SpanKind.INTERNAL : api.SpanKind.SERVER, attributes: named.attributes }, parent);
      this.span = span;
      // A call its sampler left out gets no stage spans: they would record nothing either.
      if (span.isRecording()) this.traced = { api, tracer, inside: api.trace.setSpan(parent, span), contexts: o.contexts };
    }
    this.spans = this.traced !== undefined;
    call.requestId = requestId(trace, this.span);
  }

  stage(stage: Stage, call: Call): ReturnType<Stage> {
    return this.traced === undefined ? stage(call) : inStageSpan(this.traced, stage.name, () => stage(call));
  }

  hooks(run: () => Promise<Answer>): Promise<Answer> {
    return this.traced === undefined ? run() : (inStageSpan(this.traced, 'answer', run) as Promise<Answer>);
  }

  end(answer: Answer): void {
    this.finish(answer, undefined);
  }

  fail(error: unknown): void {
    this.finish(undefined, error);
  }

  private finish(answer: Answer | undefined, error: unknown): void {
    const ms = performance.now() - this.started;
    const { call, span, traced } = this;
    const facts = factsOf(call, answer, error);
    if (traced !== undefined) {
      span!.setAttributes({ 'adcp.release': call.release.key, 'adcp.outcome': facts.outcome, 'adcp.error_code': facts.code, 'adcp.replayed': call.replayed, 'adcp.principal': call.ctx.principal });
      if (error !== undefined) span!.recordException(error);
      if (error !== undefined || (facts.code !== undefined && FAULTS.has(facts.code))) span!.setStatus({ code: traced.api.SpanStatusCode.ERROR, message: facts.code ?? 'the call failed' });
    }
    span?.end();
    if (this.o?.metering === true) {
      const metrics = instrumentsOf(this.o.api);
      const set = metricSet(facts);
      metrics.count(set);
      metrics.duration.record(ms / 1000, set.attributes);
    }
    if (this.log !== undefined) {
      // Built in its final order, each field once; fields that do not apply are left out, not null.
      const line: Record<string, unknown> = { event: 'call', tool: clip(call.tool), release: call.release.key, principal: call.ctx.principal ?? null, outcome: facts.outcome };
      if (facts.code !== undefined) line.error_code = facts.code;
      line.duration_ms = Math.round(ms * 1e3) / 1e3;
      line.replayed = call.replayed;
      line.request_id = call.requestId;
      if (span !== undefined) {
        const { traceId, spanId } = span.spanContext();
        line.trace_id = traceId;
        line.span_id = spanId;
      }
      this.log.call(line);
    }
  }
}

/**
 * A stage in a span of its own, ended when the stage's step settles; run with that span active when a context
 * manager is registered (a handler's own spans then nest under `handle`), and plainly when none is, where activating
 * it would change nothing and cost a context per stage.
 */
function inStageSpan<T extends Answer | void>(
  traced: { readonly api: OtelApi; readonly tracer: Tracer; readonly inside: OtelContext; readonly contexts: boolean },
  name: string,
  run: () => T | Promise<T>,
): T | Promise<T> {
  const { api, inside } = traced;
  const span = traced.tracer.startSpan(`adcp.stage ${name}`, {}, inside);
  const ended = (answer: T): T => {
    if (answer !== undefined) span.setAttributes(answer.isError === true ? { 'adcp.stage.answered': true, 'adcp.error_code': codeOf(answer) } : ANSWERED);
    span.end();
    return answer;
  };
  const failed = (e: unknown): never => {
    span.recordException(e);
    span.setStatus({ code: api.SpanStatusCode.ERROR });
    span.end();
    throw e;
  };
  let step: T | Promise<T>;
  try {
    step = traced.contexts ? api.context.with(api.trace.setSpan(inside, span), run) : run();
  } catch (e) {
    return failed(e);
  }
  return step instanceof Promise ? step.then(ended, failed) : ended(step);
}

const ANSWERED: Attributes = Object.freeze({ 'adcp.stage.answered': true });

interface Facts {
  /** The tool as metrics name it (bounded). */
  readonly tool: string;
  readonly outcome: string;
  readonly code: string | undefined;
}

/** The call's tool (bounded), outcome (the answer's status, `failed` for a rejection) and error code. */
function factsOf(call: Call, answer: Answer | undefined, error: unknown): Facts {
  // A tool the profile does not serve is the caller's text: its metric series is one, whatever it was.
  const unknown = error !== null && typeof error === 'object' && (error as Error).name === 'UnknownToolError';
  const tool = unknown ? '(unknown)' : clip(call.tool);
  if (answer === undefined) return { tool, outcome: 'failed', code: unknown ? 'UNSUPPORTED_FEATURE' : 'INTERNAL_ERROR' };
  if (answer.isError === true) return { tool, outcome: 'failed', code: codeOf(answer) };
  const status = answer.structuredContent?.status;
  return { tool, outcome: typeof status === 'string' ? status : 'completed', code: undefined };
}

function codeOf(answer: Answer): string | undefined {
  const error = answer.structuredContent?.adcp_error as { code?: unknown } | undefined;
  return typeof error?.code === 'string' ? error.code : undefined;
}

/** Span names and metric attribute sets made once and reused, up to a bound (each set is also a metric series). */
const MEMO_MAX = 1024;
const metricSets = new Map<string, MetricSet>();
const spanNames = new Map<string, { readonly name: string; readonly attributes: Attributes }>();
/** Past the bound, a call is counted in the overflow series (OpenTelemetry's name for it), as the SDK's own limit does. */
const OVERFLOW: MetricSet = Object.freeze({ attributes: Object.freeze({ 'otel.metric.overflow': true }), index: MEMO_MAX });

/** The metric attributes of a call's facts: by tool, outcome and error code. */
function metricSet(facts: Facts): MetricSet {
  const key = `${facts.tool}\n${facts.outcome}\n${facts.code ?? ''}`;
  let set = metricSets.get(key);
  if (set === undefined) {
    if (metricSets.size >= MEMO_MAX) return OVERFLOW;
    const attributes = facts.code === undefined ? { 'adcp.tool': facts.tool, 'adcp.outcome': facts.outcome } : { 'adcp.tool': facts.tool, 'adcp.outcome': facts.outcome, 'adcp.error_code': facts.code };
    metricSets.set(key, (set = Object.freeze({ attributes: Object.freeze(attributes), index: metricSets.size })));
  }
  return set;
}

/** The call span's name and starting attributes (what a sampler sees), per tool the profile serves. */
function spanOf(call: Call): { readonly name: string; readonly attributes: Attributes } {
  const make = () => {
    const tool = clip(call.tool);
    return { name: `adcp ${tool}`, attributes: Object.freeze({ 'adcp.tool': tool }) };
  };
  if (typeof call.tool !== 'string' || !call.served.tools.has(call.tool)) return make();
  let named = spanNames.get(call.tool);
  if (named === undefined) {
    named = make();
    if (spanNames.size < MEMO_MAX) spanNames.set(call.tool, named);
  }
  return named;
}

/**
 * The call's request id: the caller's trace id (its `traceparent`), else its `x-request-id` when it is a plain token,
 * else this call's own trace id, else a new UUID.
 */
function requestId(trace: CallTrace | undefined, span: Span | undefined): string {
  const parent = trace?.traceparent !== undefined ? traceparent(trace.traceparent) : undefined;
  if (parent !== undefined) return parent.traceId;
  if (trace?.requestId !== undefined && /^[\w.:@/+=-]{1,128}$/.test(trace.requestId)) return trace.requestId;
  return span?.spanContext().traceId ?? randomUUID();
}

function clip(name: string): string {
  return name.length > NAME_MAX ? `${name.slice(0, NAME_MAX)}…` : name;
}

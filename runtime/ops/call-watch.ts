import { randomUUID } from 'node:crypto';
import type { CallTrace } from '../api/ops-types.js';
import type { Answer, Call, Stage } from '../call/call.js';
import type { RuntimeLog } from './log.js';
import { instrumentsOf, otel, parentContext, tracerOf, traceparent, type Attributes, type OtelApi, type OtelContext, type Span } from './otel.js';

/**
 * What watches one call, for call/pipeline.ts's runCall: its log line, its spans (one for the call, one per stage,
 * each stage run in its span's context so a handler's own spans nest under `handle`), its metrics. Generic over the
 * stages: a stage is named by its function. Made only when something watches — the log writes call lines, or a
 * tracer or meter provider is registered — so an agent with neither pays one check a call.
 */
export interface CallWatch {
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
  const started = performance.now();
  const trace = call.ctx.trace as CallTrace | undefined;
  const tracing = o?.tracing === true ? o.api : undefined;
  let span: Span | undefined;
  let stages: ((name: string, run: () => Answer | void | Promise<Answer | void>) => Answer | void | Promise<Answer | void>) | undefined;
  if (tracing !== undefined) {
    const parent = parentContext(tracing, trace);
    const kind = tracing.trace.getSpan(tracing.context.active()) === undefined ? tracing.SpanKind.SERVER : tracing.SpanKind.INTERNAL;
    span = tracerOf(tracing).startSpan(`adcp ${clip(call.tool)}`, { kind, attributes: { 'adcp.tool': clip(call.tool) } }, parent);
    // A call its sampler left out gets no stage spans: they would record nothing either.
    if (span.isRecording()) {
      const inside = tracing.trace.setSpan(parent, span);
      stages = (name, run) => inStageSpan(tracing, inside, o!.contexts, name, run);
    }
  }
  call.requestId = requestId(trace, span);
  const finish = (answer: Answer | undefined, error: unknown): void => {
    const seconds = (performance.now() - started) / 1000;
    const facts = factsOf(call, answer, error);
    if (span !== undefined) {
      span.setAttributes({ 'adcp.release': call.release.key, 'adcp.outcome': facts.outcome, 'adcp.error_code': facts.code, 'adcp.replayed': call.replayed, 'adcp.principal': call.ctx.principal });
      if (error !== undefined) span.recordException(error);
      if (error !== undefined || (facts.code !== undefined && FAULTS.has(facts.code))) span.setStatus({ code: tracing!.SpanStatusCode.ERROR, message: facts.code ?? 'the call failed' });
      span.end();
    }
    if (o?.metering === true) {
      const metrics = instrumentsOf(o.api);
      const attributes: Attributes = { 'adcp.tool': facts.tool, 'adcp.outcome': facts.outcome };
      if (facts.code !== undefined) attributes['adcp.error_code'] = facts.code;
      metrics.calls.add(1, attributes);
      metrics.duration.record(seconds, attributes);
    }
    if (logging) {
      log.call({
        event: 'call',
        tool: clip(call.tool),
        release: call.release.key,
        principal: call.ctx.principal ?? null,
        outcome: facts.outcome,
        ...(facts.code !== undefined ? { error_code: facts.code } : {}),
        duration_ms: Math.round(seconds * 1e6) / 1e3,
        replayed: call.replayed,
        request_id: call.requestId,
        ...(span !== undefined ? { trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId } : {}),
      });
    }
  };
  return {
    stage: stages === undefined ? (stage, c) => stage(c) : (stage, c) => stages(stage.name, () => stage(c)),
    hooks: stages === undefined ? (run) => run() : (run) => stages('answer', run) as Promise<Answer>,
    end: (answer) => finish(answer, undefined),
    fail: (error) => finish(undefined, error),
  };
}

/**
 * A stage in a span of its own, ended when the stage's step settles; run with that span active when a context
 * manager is registered (a handler's own spans then nest under `handle`), and plainly when none is, where activating
 * it would change nothing and cost a context per stage.
 */
function inStageSpan<T extends Answer | void>(api: OtelApi, parent: OtelContext, contexts: boolean, name: string, run: () => T | Promise<T>): T | Promise<T> {
  const span = tracerOf(api).startSpan(`adcp.stage ${name}`, {}, parent);
  const ended = (answer: T): T => {
    if (answer !== undefined) span.setAttributes({ 'adcp.stage.answered': true, ...(answer.isError === true ? { 'adcp.error_code': codeOf(answer) } : {}) });
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
    step = contexts ? api.context.with(api.trace.setSpan(parent, span), run) : run();
  } catch (e) {
    return failed(e);
  }
  return step instanceof Promise ? step.then(ended, failed) : ended(step);
}

/** The call's tool (bounded), outcome (the answer's status, `failed` for a rejection) and error code. */
function factsOf(call: Call, answer: Answer | undefined, error: unknown): { tool: string; outcome: string; code: string | undefined } {
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
